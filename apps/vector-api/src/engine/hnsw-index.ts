import hnswlib from 'hnswlib-node';
import { performance } from 'node:perf_hooks';
import { yieldToEventLoop } from './background';
import { exactSearchLabels, rescore } from './exact';
import { compareHits, type Hit, type IndexStatus, type LabelFilter, type VectorIndex } from './types';
import type { VectorStore } from './vector-store';

// hnswlib-node is CommonJS whose exports a static analyser cannot see; take them from the default.
const { HierarchicalNSW } = hnswlib;
type Graph = InstanceType<typeof HierarchicalNSW>;

export interface HnswOptions {
  readonly m: number;
  readonly efConstruction: number;
  /** Lowest ef of any search; the effective ef is max(k, efSearch) × effort. */
  readonly efSearch: number;
  /** Rebuild when marked-deleted points exceed this fraction of the graph. */
  readonly rebuildTombstoneRatio: number;
  /** Longest stretch of graph work before yielding to the event loop. */
  readonly sliceMs: number;
  readonly seed: number;
}

export const DEFAULT_HNSW_OPTIONS: HnswOptions = {
  m: 16,
  efConstruction: 200,
  efSearch: 100,
  rebuildTombstoneRatio: 0.2,
  sliceMs: 8,
  seed: 100,
};

interface GraphState {
  readonly graph: Graph;
  /** 1 when the label is a point of this graph (marked deleted or not). */
  inGraph: Uint8Array;
  points: number;
  tombstones: number;
}

/**
 * `hnsw` over hnswlib-node in cosine space. hnswlib calls block the event loop, so points
 * are added in chunks between event-loop turns: a new graph is built in the background
 * (queries are answered exactly meanwhile), and inserted rows wait in `pending`, which
 * queries scan exactly and merge, until a chunk adds them. Deletes are markDelete; past
 * `rebuildTombstoneRatio` a fresh graph is built in the background and swapped in.
 */
export class HnswIndex implements VectorIndex {
  readonly kind = 'hnsw' as const;
  private current: GraphState | undefined;
  private building: GraphState | undefined;
  private pending = new Set<number>();
  private worker: Promise<void> | undefined;
  private closed = false;
  private readonly options: HnswOptions;

  constructor(
    private readonly store: VectorStore,
    options: Partial<HnswOptions> = {},
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    this.options = { ...DEFAULT_HNSW_OPTIONS, ...options };
    this.startBuild();
  }

  private newGraph(capacity: number): GraphState {
    const graph = new HierarchicalNSW('cosine', this.store.dim);
    graph.initIndex({
      maxElements: Math.max(1024, capacity),
      m: this.options.m,
      efConstruction: this.options.efConstruction,
      randomSeed: this.options.seed,
      allowReplaceDeleted: false,
    });
    return { graph, inGraph: new Uint8Array(Math.max(1024, this.store.size)), points: 0, tombstones: 0 };
  }

  private addPoint(g: GraphState, label: number): void {
    if (label < g.inGraph.length && g.inGraph[label] !== 0) return;
    // Capacity grows ahead of inserts (doubling), never one point at a time.
    if (g.points + 1 > g.graph.getMaxElements()) g.graph.resizeIndex(g.graph.getMaxElements() * 2);
    // hnswlib wants a plain Array; this copy happens once per insert, never per query.
    g.graph.addPoint(Array.from(this.store.vector(label)), label);
    if (label >= g.inGraph.length) {
      const grown = new Uint8Array(Math.max(label + 1, g.inGraph.length * 2));
      grown.set(g.inGraph);
      g.inGraph = grown;
    }
    g.inGraph[label] = 1;
    g.points++;
  }

  private startBuild(): void {
    if (this.closed) return;
    this.building = this.newGraph(this.store.alive * 2);
    this.kick();
  }

  /** Ensures the background loop runs (build first, then draining pending inserts). */
  private kick(): void {
    if (this.worker || this.closed) return;
    this.worker = this.work()
      .catch((err: unknown) => this.onError(err))
      .finally(() => {
        this.worker = undefined;
        if (!this.closed && (this.building || this.pending.size > 0)) this.kick();
      });
  }

  private async work(): Promise<void> {
    const { sliceMs } = this.options;
    let sliceEnd = performance.now() + sliceMs;
    const building = this.building;
    if (building) {
      for (let label = 0; label < this.store.size; label++) {
        if (this.closed) return;
        if (!this.store.isAlive(label)) continue;
        this.addPoint(building, label);
        if (performance.now() >= sliceEnd) {
          await yieldToEventLoop();
          sliceEnd = performance.now() + sliceMs;
        }
      }
      // Swap: rows deleted while building are marked, pending rows now in the graph leave pending.
      for (let label = 0; label < building.inGraph.length; label++) {
        if (building.inGraph[label] === 1 && !this.store.isAlive(label)) {
          building.graph.markDelete(label);
          building.inGraph[label] = 2;
          building.tombstones++;
        }
      }
      for (const label of this.pending)
        if (label < building.inGraph.length && building.inGraph[label] !== 0) this.pending.delete(label);
      this.current = building;
      this.lastEf = -1; // a new graph starts at hnswlib's default ef
      this.building = undefined;
    }
    const current = this.current;
    if (!current) return;
    while (this.pending.size > 0 && !this.building && !this.closed) {
      sliceEnd = performance.now() + sliceMs;
      for (const label of this.pending) {
        this.pending.delete(label);
        if (this.store.isAlive(label)) this.addPoint(current, label);
        if (performance.now() >= sliceEnd) break;
      }
      await yieldToEventLoop();
    }
  }

  add(labels: readonly number[]): void {
    for (const label of labels) this.pending.add(label);
    this.kick();
  }

  remove(labels: readonly number[]): void {
    for (const label of labels) {
      this.pending.delete(label);
      const g = this.current;
      if (g && label < g.inGraph.length && g.inGraph[label] === 1) {
        g.graph.markDelete(label);
        g.inGraph[label] = 2;
        g.tombstones++;
      }
    }
    const g = this.current;
    if (g && !this.building && g.points > 0 && g.tombstones / g.points > this.options.rebuildTombstoneRatio) this.startBuild();
  }

  /** hnswlib-node only takes plain Arrays: one reused buffer instead of Array.from per query. */
  private readonly queryBuffer: number[] = [];
  private lastEf = -1;

  private plainQuery(query: Float32Array): number[] {
    const q = this.queryBuffer;
    q.length = query.length;
    for (let i = 0; i < query.length; i++) q[i] = query[i] ?? 0;
    return q;
  }

  search(query: Float32Array, k: number, accept?: LabelFilter, effort = 1): Hit[] | null {
    const g = this.current;
    if (!g) return null;
    const live = g.points - g.tombstones;
    const hits: Hit[] = [];
    if (live > 0) {
      const ef = Math.min(Math.max(k, this.options.efSearch) * effort, Math.max(live, k));
      const efInt = Math.ceil(ef);
      if (efInt !== this.lastEf) {
        g.graph.setEf(efInt);
        this.lastEf = efInt;
      }
      const q = this.plainQuery(query);
      const res = accept ? g.graph.searchKnn(q, Math.min(k, live), accept) : g.graph.searchKnn(q, Math.min(k, live));
      // Scores are recomputed exactly from our own vectors (hnswlib's are float distances).
      rescore(this.store, query, res.neighbors, hits);
    }
    if (this.pending.size > 0) {
      const extra = exactSearchLabels(this.store, query, k, accept ? [...this.pending].filter(accept) : this.pending);
      hits.push(...extra);
    }
    return hits.sort(compareHits).slice(0, k);
  }

  exhaustive(effort: number): boolean {
    const g = this.current;
    if (!g) return true;
    return Math.max(1, this.options.efSearch) * effort >= g.points;
  }

  /** Resolves when the background build and insert drain have finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.worker) await this.worker;
  }

  status(): IndexStatus {
    const g = this.current;
    return {
      kind: 'hnsw',
      state: g ? 'ready' : 'building',
      details: {
        rows: this.store.alive,
        m: this.options.m,
        ef_construction: this.options.efConstruction,
        ef_search: this.options.efSearch,
        points: g?.points ?? 0,
        tombstones: g?.tombstones ?? 0,
        pending: this.pending.size,
        capacity: g?.graph.getMaxElements() ?? 0,
        rebuilding: g && this.building ? 1 : 0,
      },
    };
  }

  close(): void {
    this.closed = true;
    this.current = undefined;
    this.lastEf = -1;
    this.building = undefined;
    this.pending.clear();
  }
}
