import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { exactSearchLabels, rescore } from './exact';
import {
  type HnswWorkerCounts,
  type HnswWorkerData,
  type HnswWorkerReply,
  type HnswWorkerRequest,
  hnswWorkerMain,
} from './hnsw-worker';
import { compareHits, type Hit, type IndexStatus, type LabelFilter, type VectorIndex } from './types';
import type { VectorStore } from './vector-store';

export interface HnswOptions {
  readonly m: number;
  readonly efConstruction: number;
  /** Lowest ef of any search; the effective ef is max(k, efSearch) × effort. */
  readonly efSearch: number;
  /** Longest stretch of graph insertion in the worker before it looks at its messages. */
  readonly sliceMs: number;
  readonly seed: number;
  /** Rows sent to the worker per message, and how many such batches may be in flight. */
  readonly batchRows: number;
  readonly batchesInFlight: number;
  /**
   * Rows not yet in the graph that a query still answers through the graph (merging an exact
   * scan of them); above max(this, 10 % of the rows) it scans the whole table exactly.
   */
  readonly maxBacklog: number;
}

export const DEFAULT_HNSW_OPTIONS: HnswOptions = {
  m: 16,
  efConstruction: 200,
  efSearch: 100,
  sliceMs: 4,
  seed: 100,
  batchRows: 256,
  batchesInFlight: 4,
  maxBacklog: 20_000,
};

/** A graph to start from instead of an empty one (a snapshot's hnswlib file and label states). */
export interface HnswSeed {
  readonly graphPath: string;
  readonly inGraph: Uint8Array;
  /** Labels whose graph point may be older than the store's row (written while the snapshot was taken). */
  readonly dirty: readonly number[];
}

/** What a snapshot of the graph consists of (see HnswIndex.writeGraph). */
export interface HnswGraphFile {
  readonly inGraph: Uint8Array;
  readonly counts: HnswWorkerCounts;
  /** Labels added or deleted in the store but not (yet known to be) applied to the written graph. */
  readonly dirty: number[];
}

const workerSource = `(${hnswWorkerMain.toString()})();`;

/** Where hnswlib-node lives, for the worker's require (the service's own resolution). */
function hnswlibPath(): string {
  const from = process.argv[1] ?? join(process.cwd(), 'index.js');
  try {
    return createRequire(from).resolve('hnswlib-node');
  } catch {
    return createRequire(join(process.cwd(), 'index.js')).resolve('hnswlib-node');
  }
}
let resolvedHnswlib: string | undefined;

interface Waiter<T> {
  resolve(value: T): void;
  reject(err: Error): void;
}

/** What HnswIndex.status() reports for an empty table, without starting its worker (created with the first row). */
export function emptyHnswStatus(options: Partial<HnswOptions> = {}): IndexStatus {
  const o = { ...DEFAULT_HNSW_OPTIONS, ...options };
  return {
    kind: 'hnsw',
    state: 'ready',
    details: {
      rows: 0,
      m: o.m,
      ef_construction: o.efConstruction,
      ef_search: o.efSearch,
      points: 0,
      tombstones: 0,
      pending: 0,
      progress: 1,
      capacity: 0,
      from_snapshot: 0,
    },
  };
}

/**
 * `hnsw` over hnswlib-node, in a worker thread of its own (hnsw-worker.ts): the event loop
 * only copies rows into messages and posts searches, so graph building never delays a
 * request. Rows reach the graph in batches, a few in flight at a time; until a batch is
 * done its rows are in `pending`/`inFlight`, which queries scan exactly and merge, so a
 * query always sees every row. A query is answered by the graph once the backlog is small
 * (below `maxBacklog` and 10 % of the table), otherwise by an exact scan (`search` → null).
 * Deletes mark the graph's point deleted; a reused label updates its old point in place.
 * The graph's space follows the store's metric (cosine, ip for dot, l2 for euclidean); its
 * candidates are rescored exactly with the store's similarity.
 */
export class HnswIndex implements VectorIndex {
  readonly kind = 'hnsw' as const;
  private readonly options: HnswOptions;
  private readonly worker: Worker;
  private readonly waiting = new Int32Array(new SharedArrayBuffer(4));
  private ready = false;
  /** The worker has loaded hnswlib-node (its 'lib' message): terminating it is safe from then on. */
  private libLoaded = false;
  private terminateWhenLoaded = false;
  private closed = false;
  private counts: HnswWorkerCounts = { points: 0, deleted: 0, capacity: 0 };
  /** Labels to send, in order. */
  private readonly pending = new Set<number>();
  /** Batches sent and not yet done, with their labels. */
  private readonly inFlight = new Map<number, Uint32Array>();
  private inFlightRows = 0;
  private nextBatch = 1;
  private nextId = 1;
  private readonly searches = new Map<number, Waiter<Uint32Array>>();
  private readonly writes = new Map<number, Waiter<HnswGraphFile>>();
  private readonly idleWaiters: Array<() => void> = [];
  private readonly fromSnapshot: boolean;
  /** Settles once the worker has its graph (for a seed: the file has been read and may be removed). */
  readonly loaded: Promise<void>;
  private markLoaded!: (err?: Error) => void;
  /** Labels whose add or delete happened while a snapshot was being written (dirty for it). */
  private touchedDuringWrite: Set<number> | undefined;

  constructor(
    private readonly store: VectorStore,
    options: Partial<HnswOptions> = {},
    private readonly onError: (err: unknown) => void = () => undefined,
    seed?: HnswSeed,
  ) {
    this.options = { ...DEFAULT_HNSW_OPTIONS, ...options };
    resolvedHnswlib ??= hnswlibPath();
    const data: HnswWorkerData = {
      hnswlibPath: resolvedHnswlib,
      dim: store.dim,
      space: store.metric === 'cosine' ? 'cosine' : store.metric === 'dot' ? 'ip' : 'l2',
      m: this.options.m,
      efConstruction: this.options.efConstruction,
      seed: this.options.seed,
      capacity: Math.ceil(store.alive * 1.1) + 1024,
      sliceMs: this.options.sliceMs,
      waiting: this.waiting,
      ...(seed ? { graphPath: seed.graphPath, inGraph: seed.inGraph } : {}),
    };
    this.fromSnapshot = seed !== undefined;
    this.loaded = new Promise<void>((resolve, reject) => {
      this.markLoaded = (err) => (err ? reject(err) : resolve());
    });
    this.loaded.catch(() => undefined);
    this.worker = new Worker(workerSource, { eval: true, workerData: data });
    this.worker.unref();
    this.worker.on('message', (msg: HnswWorkerReply) => {
      this.onReply(msg);
      this.holdWhileWaited();
    });
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => {
      if (!this.closed) this.fail(new Error(`hnsw worker exited with code ${code}`));
    });
    // Every live row the graph does not hold (or may hold an older version of) is queued.
    const inGraph = seed?.inGraph;
    const dirty = new Set(seed?.dirty ?? []);
    const removed: number[] = [];
    for (let label = 0; label < store.size; label++) {
      const there = inGraph !== undefined && label < inGraph.length ? inGraph[label] : 0;
      if (store.isAlive(label)) {
        if (there !== 1 || dirty.has(label)) this.pending.add(label);
      } else if (there === 1) {
        removed.push(label);
      }
    }
    if (removed.length > 0) this.post({ t: 'remove', labels: Uint32Array.from(removed) });
  }

  private post(msg: HnswWorkerRequest, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(msg, transfer);
    this.holdWhileWaited();
  }

  /** The worker keeps the process alive only while someone awaits it (a search, a write, idle()). */
  private holdWhileWaited(): void {
    if (this.closed) return;
    if (this.searches.size > 0 || this.writes.size > 0 || this.idleWaiters.length > 0) this.worker.ref();
    else this.worker.unref();
  }

  private fail(err: unknown): void {
    if (this.closed) return;
    this.onError(err);
    const error = err instanceof Error ? err : new Error(String(err));
    this.markLoaded(error);
    for (const w of this.searches.values()) w.reject(error);
    this.searches.clear();
    for (const w of this.writes.values()) w.reject(error);
    this.writes.clear();
    this.ready = false;
  }

  private onReply(msg: HnswWorkerReply): void {
    switch (msg.t) {
      case 'lib':
        this.libLoaded = true;
        if (this.terminateWhenLoaded) void this.worker.terminate();
        break;
      case 'ready':
        this.ready = true;
        this.counts = msg;
        this.markLoaded();
        this.pump();
        break;
      case 'done': {
        this.counts = msg;
        const labels = this.inFlight.get(msg.batch);
        if (labels) {
          this.inFlight.delete(msg.batch);
          this.inFlightRows -= labels.length;
        }
        this.pump();
        break;
      }
      case 'result': {
        const w = this.searches.get(msg.id);
        this.searches.delete(msg.id);
        if (!w) break;
        if (msg.labels) w.resolve(msg.labels);
        else w.reject(new Error(msg.error ?? 'hnsw search failed'));
        break;
      }
      case 'written': {
        const w = this.writes.get(msg.id);
        this.writes.delete(msg.id);
        this.counts = msg;
        const touched = this.touchedDuringWrite ?? new Set<number>();
        this.touchedDuringWrite = undefined;
        if (!w) break;
        if (!msg.inGraph) {
          w.reject(new Error(msg.error ?? 'hnsw graph write failed'));
          break;
        }
        // Rows still on their way to the graph, or changed while it was written, are not in
        // the file as the store has them: the loader re-adds (or deletes) them.
        const dirty = new Set<number>(touched);
        for (const l of this.pending) dirty.add(l);
        for (const labels of this.inFlight.values()) for (const l of labels) dirty.add(l);
        w.resolve({ inGraph: msg.inGraph, counts: msg, dirty: [...dirty] });
        this.pump();
        break;
      }
      case 'failed':
        this.fail(new Error(msg.error));
        break;
    }
  }

  /** Sends pending rows to the worker, a few batches ahead of it. */
  private pump(): void {
    if (!this.ready || this.closed) return;
    const { batchRows, batchesInFlight } = this.options;
    const dim = this.store.dim;
    while (this.inFlight.size < batchesInFlight && this.pending.size > 0) {
      const labels: number[] = [];
      for (const label of this.pending) {
        this.pending.delete(label);
        if (this.store.isAlive(label)) labels.push(label);
        if (labels.length >= batchRows) break;
      }
      if (labels.length === 0) continue;
      const vectors = new Float32Array(labels.length * dim);
      for (let i = 0; i < labels.length; i++) vectors.set(this.store.vector(labels[i]), i * dim);
      const batch = this.nextBatch++;
      const sent = Uint32Array.from(labels);
      this.inFlight.set(batch, sent);
      this.inFlightRows += sent.length;
      this.post({ t: 'add', batch, labels: Uint32Array.from(sent), vectors }, [vectors.buffer]);
    }
    if (this.inFlight.size === 0 && this.pending.size === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  add(labels: readonly number[]): void {
    for (const label of labels) {
      // Re-queued at the end: a label written again goes after its earlier batch.
      this.pending.delete(label);
      this.pending.add(label);
      this.touchedDuringWrite?.add(label);
    }
    this.pump();
  }

  remove(labels: readonly number[]): void {
    for (const label of labels) {
      this.pending.delete(label);
      this.touchedDuringWrite?.add(label);
    }
    if (labels.length > 0 && !this.closed) this.post({ t: 'remove', labels: Uint32Array.from(labels) });
  }

  /** Rows the graph does not hold yet. */
  private backlog(): number {
    return this.pending.size + this.inFlightRows;
  }

  search(query: Float32Array, k: number, accept?: LabelFilter, effort = 1, bitmap?: Uint8Array): Promise<Hit[]> | null {
    if (!this.ready || this.closed) return null;
    const backlog = this.backlog();
    if (backlog > Math.max(this.options.maxBacklog, this.store.alive * 0.1) && backlog > this.store.alive * 0.01) return null;
    const live = this.counts.points - this.counts.deleted;
    const ef = Math.ceil(Math.min(Math.max(k, this.options.efSearch) * effort, Math.max(live, k)));
    // The rows not in the graph yet are scanned here while the worker searches the graph.
    const extra: Hit[] = backlog === 0 ? [] : exactSearchLabels(this.store, query, k, this.backlogLabels(accept));
    const asked = live > 0 ? this.ask(query, k, ef, bitmap) : Promise.resolve(new Uint32Array(0));
    return asked.then((labels) => {
      const hits: Hit[] = [];
      rescore(this.store, query, labels, hits);
      const seen = new Set<number>();
      const out: Hit[] = [];
      for (const h of [...hits, ...extra].sort(compareHits)) {
        if (seen.has(h.label) || (accept && !accept(h.label))) continue;
        seen.add(h.label);
        out.push(h);
        if (out.length === k) break;
      }
      return out;
    });
  }

  private backlogLabels(accept?: LabelFilter): number[] {
    const out: number[] = [];
    for (const l of this.pending) if (!accept || accept(l)) out.push(l);
    for (const labels of this.inFlight.values()) for (const l of labels) if (!accept || accept(l)) out.push(l);
    return out;
  }

  private ask(query: Float32Array, k: number, ef: number, bitmap?: Uint8Array): Promise<Uint32Array> {
    const id = this.nextId++;
    const q = Float32Array.from(query);
    return new Promise<Uint32Array>((resolve, reject) => {
      this.searches.set(id, { resolve, reject });
      Atomics.add(this.waiting, 0, 1);
      const transfer: ArrayBuffer[] = [q.buffer];
      if (bitmap) transfer.push(bitmap.buffer as ArrayBuffer);
      this.post({ t: 'search', id, query: q, k, ef, ...(bitmap ? { bitmap } : {}) }, transfer);
    });
  }

  exhaustive(effort: number): boolean {
    return Math.max(1, this.options.efSearch) * effort >= this.counts.points;
  }

  /**
   * Writes the graph to `path` (hnswlib's own format) without stopping queries: the worker
   * holds back adds and deletes until the file is complete. Changes made meanwhile are
   * listed in `dirty` so that a loader applies them again.
   */
  writeGraph(path: string): Promise<HnswGraphFile> {
    if (!this.ready || this.closed) return Promise.reject(new Error('hnsw graph is not ready'));
    const id = this.nextId++;
    this.touchedDuringWrite = new Set();
    return new Promise<HnswGraphFile>((resolve, reject) => {
      this.writes.set(id, { resolve, reject });
      this.post({ t: 'write', id, path });
    });
  }

  /** Resolves when every row the index was given is in the graph (tests, benchmarks). */
  idle(): Promise<void> {
    if (this.closed || (this.ready && this.backlog() === 0)) return Promise.resolve();
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.holdWhileWaited();
    });
  }

  status(): IndexStatus {
    const backlog = this.backlog();
    const { points, deleted, capacity } = this.counts;
    const rows = this.store.alive;
    const indexed = Math.max(0, Math.min(rows, rows - backlog));
    return {
      kind: 'hnsw',
      // An empty table is complete even before its worker has started.
      state: backlog === 0 && (this.ready || rows === 0) ? 'ready' : 'building',
      details: {
        rows,
        m: this.options.m,
        ef_construction: this.options.efConstruction,
        ef_search: this.options.efSearch,
        points: points - deleted,
        tombstones: deleted,
        pending: backlog,
        progress: rows === 0 ? 1 : Math.floor((indexed / rows) * 1000) / 1000,
        capacity,
        from_snapshot: this.fromSnapshot ? 1 : 0,
      },
    };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const err = new Error('index closed');
    for (const w of this.searches.values()) w.reject(err);
    for (const w of this.writes.values()) w.reject(err);
    this.searches.clear();
    this.writes.clear();
    this.pending.clear();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.markLoaded(err);
    // A thread terminated while the addon's module initialiser runs aborts the whole process
    // (its napi calls fail, and node-addon-api's throw of that failure is fatal): a table
    // closed right after it was opened waits for the worker's 'lib' message first.
    if (this.libLoaded) void this.worker.terminate();
    else this.terminateWhenLoaded = true;
  }
}
