/**
 * A table's change number: every write takes the next `vector_tables.seq` and records its
 * change under it (see docs/vector-engine.md, "Rows, labels and seq"). PostgreSQL keeps it
 * as a bigint; in memory, in snapshots and in answers it is this number (exact to 2^53,
 * enforced by toSeq where it crosses from the database). 0 means "order unknown".
 */
export type Seq = number;

/** A seq read from PostgreSQL as the engine holds it. */
export function toSeq(seq: bigint): Seq {
  if (seq < 0n || seq > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`seq ${seq} is outside 0..2^53`);
  return Number(seq);
}

/** The three index kinds of the vector-search interface ("Index" table). */
export const INDEX_KINDS = ['flat', 'ivf', 'hnsw'] as const;
export type IndexKind = (typeof INDEX_KINDS)[number];

/**
 * A table's similarity metric, set at creation. `cosine`: score = cosine clamped to [0, 1]
 * (vectors are stored L2-normalised); `dot`: score = dot product of the raw vectors;
 * `euclidean`: score = 1 / (1 + L2 distance). Inside the engine every index ranks by a
 * "similarity" (higher is better, see `Hit`); the collection turns it into the score.
 */
export const METRICS = ['cosine', 'dot', 'euclidean'] as const;
export type Metric = (typeof METRICS)[number];

/**
 * One search result inside the engine: a row's uint32 label and its similarity to the query,
 * higher is better: q·x for cosine (both normalised) and dot, q·x − ‖x‖²/2 for euclidean
 * (ranks exactly as −‖q − x‖², since ‖q‖² is the same for every row).
 */
export interface Hit {
  readonly label: number;
  readonly score: number;
}

/** Best first: higher score, then smaller label. */
export function compareHits(a: Hit, b: Hit): number {
  return b.score - a.score || a.label - b.label;
}

/** Restricts a search to the labels it accepts (metadata filters). */
export type LabelFilter = (label: number) => boolean;

export type IndexState = 'ready' | 'building' | 'exact';

export interface IndexStatus {
  readonly kind: IndexKind;
  /**
   * `ready`: holds every row and answers from its own structure; `building`: rows are still
   * on their way into it (details.pending of them, details.progress as a fraction) and
   * queries scan those exactly (or the whole table, early in a build); `exact`: the table
   * is small, so the index deliberately answers exactly.
   */
  readonly state: IndexState;
  readonly details: Readonly<Record<string, number>>;
}

/**
 * One interface for flat, ivf and hnsw. Vectors live in the shared VectorStore; an index
 * only keeps its own structure over labels. `search` runs on the caller's thread and
 * returns at once; it returns `null` when the index cannot answer (still building, or the
 * table is below its size threshold): the planner then answers exactly. `effort` ≥ 1
 * widens the search (more lists, larger ef) when a filter leaves too few results.
 */
export interface VectorIndex {
  readonly kind: IndexKind;
  add(labels: readonly number[]): void;
  remove(labels: readonly number[]): void;
  search(query: Float32Array, k: number, accept?: LabelFilter, effort?: number): Hit[] | null;
  /** True when `search` at this effort already examined every row (widening cannot help). */
  exhaustive(effort: number): boolean;
  status(): IndexStatus;
  /**
   * performance.now() when the build that keeps this index `building` was started (an hnsw
   * build of the growing segment, from when it was queued for a build slot; the first ivf
   * training), or undefined when none runs. Indexes that never build leave it out.
   */
  buildStartedAt?(): number | undefined;
  /** Resolves when the index's background work is done and it holds every row (tests, benchmarks). */
  idle(): Promise<void>;
  close(): void;
}
