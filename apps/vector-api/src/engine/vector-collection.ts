import { performance } from 'node:perf_hooks';
import { runSliced, type Steps } from './background';
import { exactSearchLabelsSteps, exactSearchSteps } from './exact';
import { FlatIndex } from './flat-index';
import { type Filter, type FilterRows, type IndexBudget, type Metadata, MetadataIndex } from './filter';
import { DEFAULT_HNSW_OPTIONS, emptyHnswStatus, HnswIndex, type HnswOptions, type HnswSeed } from './hnsw-index';
import { emptyIvfStatus, IvfIndex, type IvfOptions, type IvfSeed } from './ivf-index';
import { RowCatalog } from './row-catalog';
import { compareHits, type Hit, type IndexKind, type IndexStatus, type Metric, type Seq, type VectorIndex } from './types';
import { SlotState, toStored, VectorStore } from './vector-store';

export interface CollectionRow {
  readonly id: string;
  /** uint32 label, assigned by the database, never reused within a table. */
  readonly label: number;
  readonly embedding: ArrayLike<number>;
  readonly metadata?: Metadata | undefined;
}

export interface CollectionHit {
  readonly id: string;
  readonly score: number;
  readonly metadata: Metadata;
  /** Bytes of the metadata as JSON (what it adds to an answer), measured when the row was written. */
  readonly metadataBytes: number;
}

export interface CollectionOptions {
  /** How rows are compared and scored (see Metric); fixed for the collection's life. Default cosine. */
  readonly metric?: Metric;
  readonly ivf?: Partial<IvfOptions>;
  readonly hnsw?: Partial<HnswOptions>;
  /** A filter matching at most this many rows is answered by an exact scan of those rows. */
  readonly exactFilterRows?: number;
  /** …or at most this fraction of the table. */
  readonly exactFilterFraction?: number;
  readonly onError?: (err: unknown) => void;
  /** Do not create the default index until `warm()` (bulk loads: build once, after the rows). */
  readonly deferIndex?: boolean;
  /** false forces the JavaScript exact scan instead of WebAssembly SIMD (tests, comparisons). */
  readonly simd?: boolean;
  /** querySliced: longest stretch of a query's work before it yields to the event loop. */
  readonly sliceMs?: number;
  /** How many distinct metadata values the inverted index keeps before keys are scanned instead. */
  readonly indexBudget?: IndexBudget;
}

/**
 * How a query's scores are shown: `api`, the /v1 contract (cosine clamped to [0, 1],
 * euclidean 1 / (1 + distance)); `raw`, the measure itself (cosine similarity unclamped,
 * euclidean the L2 distance, lowest first), as Qdrant's API shows it. Dot is the dot product
 * either way; the ranking is the same.
 */
export type ScoreScale = 'api' | 'raw';

/** How one query runs beyond its vector, n, filter and index. */
export interface QueryOptions {
  /** The scores' scale (default `api`). */
  readonly scores?: ScoreScale;
  /**
   * hnsw: the ef of the first search (Qdrant's `params.hnsw_ef`) instead of max(n, efSearch);
   * the planner still widens it when a filter leaves fewer than n results.
   */
  readonly hnswEf?: number;
}

/** Default of CollectionOptions.sliceMs, as the background index work (ivf, hnsw). */
export const QUERY_SLICE_MS = 8;

/**
 * Rows a filtered index search may expect to visit (want × table ÷ matching rows) before
 * the planner prefers the exact scan of the matching rows: at n = 1000 and 2.5 % of a
 * 100,000-row hnsw table one searchKnn call held the event loop for ~60 ms.
 */
const INDEX_VISIT_BUDGET = 20_000;

/** querySliced runs a query again (at most this many times in all) when rows it selected were deleted meanwhile. */
const QUERY_ATTEMPTS = 3;

/** What the default index starts from instead of nothing (a snapshot's structure). */
export interface IndexSeed {
  readonly hnsw?: HnswSeed;
  readonly ivf?: IvfSeed;
}

/** Labels [from, from + count) as a snapshot stores them (see snapshot.ts). */
export interface RowBlock {
  readonly from: number;
  readonly state: Uint8Array;
  readonly seqOf: Float64Array;
  /** The live rows' vectors as stored (normalised for cosine), in label order. */
  readonly vectors: Float32Array;
  /** The live rows' ids and metadata, in label order. */
  readonly rows: ReadonlyArray<readonly [string, Metadata | null]>;
}

export interface QueryPlan {
  readonly index: IndexKind;
  /** `exact`: flat scan (all rows, or the filter's rows); `index`: the chosen index answered. */
  readonly path: 'exact' | 'index';
  readonly effort: number;
}

/**
 * One table in memory: string ids ↔ uint32 labels, the vectors (normalised for cosine),
 * metadata and its inverted index, and the indexes (the table's default built eagerly, others on first
 * use). The planner guarantees min(n, matching rows) results ordered by exact similarity.
 */
export class VectorCollection {
  readonly store: VectorStore;
  /**
   * Each label's id, metadata and metadata size (the JSON's bytes, `{}` = 2 when none:
   * answers are bounded by them before they are built), off the V8 heap (row-catalog.ts).
   */
  private readonly catalog: RowCatalog;
  private readonly metaIndex: MetadataIndex;
  private readonly indexes = new Map<IndexKind, VectorIndex>();
  private readonly exactFilterRows: number;
  private readonly exactFilterFraction: number;
  private readonly sliceMs: number;
  /** What filter evaluation reads besides the inverted index: liveness and each row's metadata. */
  private readonly rows: FilterRows;
  readonly metric: Metric;

  constructor(
    readonly dimension: number,
    readonly defaultIndex: IndexKind,
    private readonly options: CollectionOptions = {},
  ) {
    this.metric = options.metric ?? 'cosine';
    this.store = new VectorStore(dimension, undefined, { simd: options.simd ?? true, metric: this.metric });
    this.exactFilterRows = options.exactFilterRows ?? 2000;
    this.exactFilterFraction = options.exactFilterFraction ?? 0.02;
    this.sliceMs = options.sliceMs ?? QUERY_SLICE_MS;
    this.metaIndex = new MetadataIndex(options.indexBudget);
    const catalog = new RowCatalog({ onError: options.onError });
    this.catalog = catalog;
    const { store } = this;
    this.rows = {
      get size() {
        return store.size;
      },
      isAlive: (label) => store.isAlive(label),
      metadata: (label) => catalog.metadata(label),
      field: (label, key) => catalog.field(label, key),
      labelOf: (id) => catalog.labelOf(id),
    };
    this.indexes.set('flat', new FlatIndex(this.store));
    // The default index is created with the first row (insert, warm): an empty table holds no
    // hnsw worker and graph (≈ 10 MB at 4096 dimensions), so a project's empty tables cost
    // next to nothing.
    this.deferred = options.deferIndex ?? false;
  }

  /** The default index waits for warm() (a bulk load in progress). */
  private deferred: boolean;

  /** Labels written or deleted since beginCapture (a snapshot being taken), or undefined. */
  private touched: Set<number> | undefined;
  private changeCount = 0;
  /**
   * performance.now() of the oldest change not in a snapshot: set when `changes` goes from 0
   * to more, cleared when it is set back to 0 (a snapshot written or adopted); undefined
   * when there is none.
   */
  firstChangeAt: number | undefined;

  /** Labels written or deleted since this instance loaded the table or last took a snapshot. */
  get changes(): number {
    return this.changeCount;
  }

  set changes(n: number) {
    if (n <= 0) this.firstChangeAt = undefined;
    else if (this.changeCount === 0) this.firstChangeAt ??= performance.now();
    this.changeCount = Math.max(0, n);
  }

  /** Starts building the default index (in the background) if it does not exist yet, from `seed` when given. */
  warm(seed?: IndexSeed): void {
    this.deferred = false;
    if (seed === undefined && this.store.size === 0) return; // nothing to index yet: the first insert creates it
    this.index(this.defaultIndex, seed);
  }

  /** The index of this kind if it exists (a snapshot stores the default index's structure). */
  builtIndex(kind: IndexKind = this.defaultIndex): VectorIndex | undefined {
    return this.indexes.get(kind);
  }

  /** Starts recording the labels that change (a snapshot's rows are read over many event-loop turns). */
  beginCapture(): void {
    this.touched = new Set();
  }

  /** Stops recording; the labels that changed since beginCapture. */
  endCapture(): number[] {
    const touched = this.touched;
    this.touched = undefined;
    return touched ? [...touched] : [];
  }

  /** Labels [from, from + count) as they are now. */
  exportBlock(from: number, count: number): RowBlock {
    const { store, dimension } = this;
    const end = Math.min(store.size, from + count);
    const n = Math.max(0, end - from);
    const state = store.state.slice(from, from + n);
    const seqOf = store.seqOf.slice(from, from + n);
    let alive = 0;
    for (let i = 0; i < n; i++) if (state[i] === SlotState.Alive) alive++;
    const vectors = new Float32Array(alive * dimension);
    const rows: Array<readonly [string, Metadata | null]> = [];
    for (let i = 0; i < n; i++) {
      if (state[i] !== SlotState.Alive) continue;
      const label = from + i;
      vectors.set(store.vector(label), rows.length * dimension);
      rows.push([this.catalog.id(label) ?? '', this.catalog.metadata(label) ?? null]);
    }
    return { from, state, seqOf, vectors, rows };
  }

  /** Loads a snapshot's block into an empty range (before the indexes exist). */
  importBlock(block: RowBlock): void {
    const { store, dimension } = this;
    store.reserve(block.from + block.state.length);
    let r = 0;
    for (let i = 0; i < block.state.length; i++) {
      const label = block.from + i;
      const seq = block.seqOf[i];
      if (block.state[i] === SlotState.Alive) {
        const row = block.rows[r];
        const vector = block.vectors.subarray(r * dimension, (r + 1) * dimension);
        r++;
        if (!row) throw new RangeError(`snapshot block at ${block.from} lists fewer rows than live labels`);
        this.insert([{ id: row[0], label, embedding: vector, metadata: row[1] ?? undefined }], seq, true);
      } else if (block.state[i] === SlotState.Deleted) {
        store.delete(label, seq);
      }
    }
  }

  get size(): number {
    return this.store.alive;
  }

  /** Bytes of the row's metadata as JSON, or undefined when no row has this id. */
  metadataBytesOf(id: string): number | undefined {
    const label = this.catalog.labelOf(id);
    return label === undefined ? undefined : this.catalog.metadataBytes(label);
  }

  has(id: string): boolean {
    return this.catalog.labelOf(id) !== undefined;
  }

  labelOf(id: string): number | undefined {
    return this.catalog.labelOf(id);
  }

  /** The id of the live row at `label`, or undefined. */
  idOf(label: number): string | undefined {
    return this.catalog.has(label) ? this.catalog.id(label) : undefined;
  }

  /** Labels of the live rows, ascending. */
  aliveLabels(): number[] {
    return this.store.aliveLabels();
  }

  private index(kind: IndexKind, seed?: IndexSeed): VectorIndex {
    let index = this.indexes.get(kind);
    if (!index) {
      const onError = this.options.onError;
      index =
        kind === 'ivf'
          ? new IvfIndex(this.store, this.options.ivf, onError, seed?.ivf)
          : new HnswIndex(this.store, this.options.hnsw, onError, seed?.hnsw);
      this.indexes.set(kind, index);
    }
    return index;
  }

  /**
   * Adds rows as written by change `seq` of the table's log (0: order unknown, only empty
   * labels are written). A label holding a write at least as new is left alone (a replay),
   * an older live row at the label is replaced (the label was freed and reused by changes
   * applied out of order), so applying the log in any order, twice, converges.
   */
  insert(rows: readonly CollectionRow[], seq: Seq = 0, normalized = false): number {
    const added: number[] = [];
    const replaced: number[] = [];
    for (const row of rows) {
      const previous = this.catalog.labelOf(row.id);
      // The same id under another label: one of the two was deleted by a change not yet
      // applied here. The newer write wins (without seqs: the larger label).
      if (previous !== undefined && previous !== row.label) {
        if (seq === 0 ? previous > row.label : this.store.seq(previous) > seq) continue;
      }
      const wasAlive = this.store.isAlive(row.label);
      const oldMetadata = wasAlive ? this.catalog.metadata(row.label) : undefined;
      const vector = normalized && row.embedding instanceof Float32Array ? row.embedding : toStored(row.embedding, this.metric);
      if (!this.store.put(row.label, vector, seq)) continue;
      if (wasAlive) {
        this.metaIndex.remove(row.label, oldMetadata);
        // (catalog.set below drops the label's old id, when it pointed here.)
        replaced.push(row.label);
      }
      // The older label keeps its seq: the delete that freed it must still apply when it comes.
      if (previous !== undefined && previous !== row.label) this.removeLabel(previous, 0, true);
      this.catalog.set(row.label, row.id, row.metadata);
      this.metaIndex.add(row.label, row.metadata);
      added.push(row.label);
      this.touched?.add(row.label);
    }
    this.changes += added.length;
    if (replaced.length > 0) for (const index of this.indexes.values()) index.remove(replaced);
    if (added.length > 0) for (const index of this.indexes.values()) index.add(added);
    // The first rows of a table: its default index starts now (it queues every live row).
    if (added.length > 0 && !this.deferred && !this.indexes.has(this.defaultIndex)) this.index(this.defaultIndex);
    return added.length;
  }

  private removeLabel(label: number, seq: Seq, keepSeq = false): boolean {
    if (!this.store.delete(label, seq, keepSeq)) return false;
    this.metaIndex.remove(label, this.catalog.metadata(label));
    this.catalog.delete(label);
    for (const index of this.indexes.values()) index.remove([label]);
    this.touched?.add(label);
    this.changes++;
    return true;
  }

  /** Deletes rows by label as change `seq` did (idempotent). Returns how many were present. */
  deleteLabels(labels: readonly number[], seq: Seq = 0): number {
    let n = 0;
    for (const label of labels) if (this.removeLabel(label, seq)) n++;
    return n;
  }

  /** When the running build of the default index started (see VectorIndex.buildStartedAt), or undefined. */
  buildStartedAt(): number | undefined {
    return this.indexes.get(this.defaultIndex)?.buildStartedAt?.();
  }

  status(kind: IndexKind = this.defaultIndex): IndexStatus {
    const index = this.indexes.get(kind);
    if (index) return index.status();
    // Not created yet (no row so far): the status an empty index of this kind reports.
    if (this.store.size === 0) return kind === 'hnsw' ? emptyHnswStatus(this.options.hnsw) : emptyIvfStatus();
    return this.index(kind).status();
  }

  /** What the inverted index holds (keys, distinct values, scanned keys). */
  metadataIndexStats(): ReturnType<MetadataIndex['stats']> {
    return this.metaIndex.stats();
  }

  /** Matching labels of a filter, ascending (exact, from the inverted index). */
  matchingLabels(filter: Filter): number[] {
    return this.metaIndex.evaluate(filter, this.rows);
  }

  /** A query in one go, never yielding to the event loop (tests, benchmarks); the service uses querySliced. */
  async query(
    vector: ArrayLike<number>,
    n: number,
    filter?: Filter,
    indexKind: IndexKind = this.defaultIndex,
  ): Promise<{ hits: CollectionHit[]; plan: QueryPlan }> {
    const q = toStored(vector, this.metric);
    const { hits, plan } = await runSliced(this.plan(q, n, filter, indexKind), Number.POSITIVE_INFINITY);
    return {
      plan,
      hits: this.toCollectionHits(
        hits.filter((h) => this.catalog.has(h.label)),
        q,
      ),
    };
  }

  /**
   * The same query, giving the event loop a turn after every `sliceMs` of work (filter
   * evaluation and exact scans are sliced; one index search call is not), so one costly
   * query cannot hold up every other request of the process. Writes may land between
   * slices: a row selected and then deleted before the end is not returned, and the query
   * runs again so the count stays min(n, matching rows).
   */
  async querySliced(
    vector: ArrayLike<number>,
    n: number,
    filter?: Filter,
    indexKind: IndexKind = this.defaultIndex,
    options: QueryOptions = {},
  ): Promise<{ hits: CollectionHit[]; plan: QueryPlan }> {
    const q = toStored(vector, this.metric);
    for (let attempt = 1; ; attempt++) {
      const { hits, plan } = await runSliced(this.plan(q, n, filter, indexKind, options.hnswEf), this.sliceMs);
      const alive = hits.filter((h) => this.catalog.has(h.label));
      if (alive.length === hits.length || attempt === QUERY_ATTEMPTS)
        return { plan, hits: this.toCollectionHits(alive, q, options.scores) };
    }
  }

  /**
   * Hits as the API returns them, with the contract's score. Cosine keeps the kernel's
   * similarity (clamped to [0, 1], as always). Dot and euclidean scores are recomputed in
   * float64 from the stored vectors and the selected hits re-sorted by them: their float32
   * similarities carry an absolute error that grows with the norms (and euclidean's
   * ‖q‖² − 2·similarity cancels), so only the selection is taken from the scan.
   */
  private toCollectionHits(hits: readonly Hit[], q: Float32Array, scores: ScoreScale = 'api'): CollectionHit[] {
    const scored =
      this.metric === 'cosine'
        ? hits.map((h) => ({ label: h.label, score: scores === 'raw' ? h.score : Math.min(1, Math.max(0, h.score)) }))
        : hits.map((h) => ({ label: h.label, score: this.store.score(h.label, q) })).sort(compareHits);
    // Raw euclidean: the L2 distance itself (the order above, best first, is ascending distance).
    const rawDistance = scores === 'raw' && this.metric === 'euclidean';
    return scored.map((h) => ({
      id: this.catalog.id(h.label) as string,
      score: rawDistance ? this.store.distance(h.label, q) : h.score,
      metadata: this.catalog.metadata(h.label) ?? {},
      metadataBytes: this.catalog.metadataBytes(h.label) ?? 2,
    }));
  }

  private *plan(
    q: Float32Array,
    n: number,
    filter: Filter | undefined,
    kind: IndexKind,
    hnswEf?: number,
  ): Steps<{ hits: Hit[]; plan: QueryPlan }> {
    const hasFilter = filter !== undefined && filter.length > 0;
    const matched = hasFilter ? yield* this.metaIndex.evaluateSteps(filter, this.rows) : undefined;
    const available = matched ? matched.length : this.store.alive;
    const want = Math.min(n, available);
    if (want === 0) return { hits: [], plan: { index: kind, path: 'exact', effort: 0 } };

    // Few matching rows: scan exactly those (faster than any index and exact). Also when an
    // index would have to visit about want ÷ selectivity rows, more than INDEX_VISIT_BUDGET,
    // to find them: its search is one call that cannot be sliced, the scan of the matches is.
    const alive = this.store.alive;
    if (
      matched &&
      (kind === 'flat' ||
        matched.length <= Math.max(this.exactFilterRows, this.exactFilterFraction * alive) ||
        want * alive > INDEX_VISIT_BUDGET * matched.length)
    ) {
      const hits = yield* exactSearchLabelsSteps(this.store, q, want, matched);
      return { hits, plan: { index: kind, path: 'exact', effort: 1 } };
    }
    if (kind === 'flat')
      return { hits: yield* exactSearchSteps(this.store, q, want), plan: { index: kind, path: 'exact', effort: 1 } };

    const index = this.index(kind);
    // The filter as a test on the matching labels (ascending): no allocation in proportion to the table.
    const accept = matched ? acceptSorted(matched) : undefined;
    // Search, widening (×4 effort) until `want` results come back or the index has looked
    // at everything; then fall back to an exact scan, so the count is never short.
    // An hnsw search asked at another ef starts there: ef = max(want, efSearch) × effort.
    const efSearch = this.options.hnsw?.efSearch ?? DEFAULT_HNSW_OPTIONS.efSearch;
    const first = kind === 'hnsw' && hnswEf !== undefined ? hnswEf / Math.max(want, efSearch) : 1;
    for (let effort = first; ; effort *= 4) {
      const hits = index.search(q, want, accept, effort);
      if (hits === null) break;
      if (hits.length >= want) return { hits, plan: { index: kind, path: 'index', effort } };
      if (index.exhaustive(effort)) break;
      yield;
    }
    const hits = matched
      ? yield* exactSearchLabelsSteps(this.store, q, want, matched)
      : yield* exactSearchSteps(this.store, q, want);
    return { hits, plan: { index: kind, path: 'exact', effort: 0 } };
  }

  /** Waits for background builds (tests). */
  async idle(): Promise<void> {
    for (const index of this.indexes.values()) await index.idle();
  }

  close(): void {
    this.catalog.close();
    for (const index of this.indexes.values()) index.close();
  }
}

/** A label filter over an ascending list of labels (binary search). */
export function acceptSorted(labels: readonly number[]): (label: number) => boolean {
  return (label) => {
    let lo = 0;
    let hi = labels.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = labels[mid];
      if (v === label) return true;
      if (v < label) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  };
}
