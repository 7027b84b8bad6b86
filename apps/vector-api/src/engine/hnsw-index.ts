import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startWorkerFile } from '@app/platform';
import { HierarchicalNSW } from 'hnswlib-node';
import { exactSearchLabels } from './exact';
import type { HnswBuildJob, HnswBuildReply, HnswSpace } from './hnsw-build-protocol';
import { compareHits, type Hit, type IndexStatus, type LabelFilter, type VectorIndex } from './types';
import type { VectorStore } from './vector-store';

export interface HnswOptions {
  readonly m: number;
  readonly efConstruction: number;
  /** Lowest ef of any search; the effective ef is max(k, efSearch) × effort. */
  readonly efSearch: number;
  readonly seed: number;
  /**
   * Rows of the growing segment (written, not yet in the sealed graph, searched exactly)
   * at which a build of the next graph starts. A smaller table never gets a graph: an
   * exact scan of it is cheaper than a search.
   */
  readonly sealRows: number;
  /** Most rows one build takes from the growing segment (the rest wait for the next build). */
  readonly maxBuildRows: number;
  /**
   * Rows of the growing segment a query still answers through the graph (merging an exact
   * scan of them); above max(this, 10 % of the rows) it scans the whole table exactly.
   */
  readonly maxBacklog: number;
}

export const DEFAULT_HNSW_OPTIONS: HnswOptions = {
  m: 16,
  efConstruction: 200,
  efSearch: 100,
  seed: 100,
  sealRows: 1024,
  maxBuildRows: 131_072,
  maxBacklog: 20_000,
};

/** A graph to start from (a snapshot's hnswlib file and label states). */
export interface HnswSeed {
  /** None when the snapshot's table had no graph yet (a small table, all rows growing). */
  readonly graphPath?: string;
  /** Per label: 0 not in the graph, 1 a live point, 2 a deleted point. */
  readonly inGraph: Uint8Array;
  /** Labels whose graph point may be older than the store's row (written while the snapshot was taken). */
  readonly dirty: readonly number[];
}

export interface HnswGraphCounts {
  /** Points of the graph, deleted ones included. */
  readonly points: number;
  readonly deleted: number;
  readonly capacity: number;
}

/** What a snapshot of the graph consists of (see HnswIndex.writeGraph). */
export interface HnswGraphFile {
  readonly inGraph: Uint8Array;
  readonly counts: HnswGraphCounts;
  /** Labels whose row is not in the written graph as the store has it: the loader re-adds them. */
  readonly dirty: number[];
}

/** What HnswIndex.status() reports for an empty table (no graph yet). */
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
      growing: 0,
      building: 0,
      progress: 1,
      capacity: 0,
      from_snapshot: 0,
    },
  };
}

/** The process's directory for graph files (built graphs, snapshot copies): removed at exit. */
let graphDir: string | undefined;
function graphFile(): string {
  if (graphDir === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'vector-graphs-'));
    graphDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return join(graphDir, `${randomUUID()}.hnsw`);
}

/**
 * Builds run one at a time per process, whatever the number of tables: a build holds a
 * core, and the event loop keeps the other (the machines this runs on have two and up).
 */
class BuildSlots {
  limit = 1;
  private running = 0;
  private readonly queue: Array<() => void> = [];
  acquire(): Promise<() => void> {
    return new Promise((resolve) => {
      const grant = (): void => {
        this.running++;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.running--;
          this.queue.shift()?.();
        });
      };
      if (this.running < this.limit) grant();
      else this.queue.push(grant);
    });
  }
}
export const hnswBuildSlots = new BuildSlots();

/** The growing segment's labels: insertion order, O(1) add and delete, iterable without copying. */
class LabelList {
  items = new Uint32Array(64);
  size = 0;
  private readonly at = new Map<number, number>();
  has(label: number): boolean {
    return this.at.has(label);
  }
  add(label: number): void {
    if (this.at.has(label)) return;
    if (this.size === this.items.length) {
      const grown = new Uint32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.at.set(label, this.size);
    this.items[this.size++] = label;
  }
  delete(label: number): void {
    const i = this.at.get(label);
    if (i === undefined) return;
    this.at.delete(label);
    const last = this.items[--this.size];
    if (i < this.size) {
      this.items[i] = last;
      this.at.set(last, i);
    }
  }
  view(): Uint32Array {
    return this.items.subarray(0, this.size);
  }
}

interface Sealed {
  readonly index: HierarchicalNSW;
  /** The file it was read from (immutable: later deletes are only in `inGraph`). */
  readonly path: string;
  capacity: number;
  points: number;
}

interface Build {
  readonly labels: Uint32Array;
  /** The seq of each label's row when it was sent: a row written again since is not installed. */
  readonly seqs: Float64Array;
  /** Labels removed from the sealed graph while this build ran (deleted or written again). */
  readonly removed: Set<number>;
  added: number;
  /** performance.now() when it was scheduled (waiting for a build slot counts). */
  readonly startedAt: number;
  worker?: Worker;
}

const GROWTH = 1.5;

/**
 * hnswlib-node takes queries as plain arrays: the float32 query copied into a reused one
 * (an indexed loop; `Array.from` goes through the iterator protocol, several times slower).
 */
function toPlain(query: Float32Array, into: number[]): number[] {
  into.length = query.length;
  for (let i = 0; i < query.length; i++) into[i] = query[i];
  return into;
}

/**
 * `hnsw` over hnswlib-node as a sealed graph and a growing segment (see docs/vector-engine.md).
 * Queries run on the calling thread, never waiting for a build: the sealed graph is
 * searched synchronously (hnswlib-node's searchKnn) and the growing segment (rows written
 * since the graph was built) exactly, and the two are merged. A build runs in a worker
 * thread of its own (hnsw-builder.worker.ts): it loads the sealed graph's file, marks the
 * points deleted since, adds the growing rows, writes a new file; the main thread reads it
 * with hnswlib's asynchronous readIndex (off the event loop) and swaps it in, re-applying
 * what changed meanwhile. Deletes mark the sealed graph's point deleted (a tombstone); a
 * label written again goes to the growing segment and updates its point in the next build.
 * Candidates are rescored exactly from the store.
 */
export class HnswIndex implements VectorIndex {
  readonly kind = 'hnsw' as const;
  private readonly options: HnswOptions;
  private readonly space: HnswSpace;
  private sealed: Sealed | undefined;
  /** Per label: 1 live in the sealed graph, 2 a deleted point of it, 0 not in it. */
  private inGraph = new Uint8Array(1024);
  private live = 0;
  private readonly growing = new LabelList();
  /** The array a query is copied into for searchKnn (one per index: a search runs to its end before the next starts). */
  private readonly plain: number[] = [];
  private build: Build | undefined;
  private closed = false;
  private failures = 0;
  private readonly idleWaiters: Array<() => void> = [];
  private readonly fromSnapshot: boolean;
  /** Settles once a seed's graph is read (the file may then be removed). */
  readonly loaded: Promise<void>;

  constructor(
    private readonly store: VectorStore,
    options: Partial<HnswOptions> = {},
    private readonly onError: (err: unknown) => void = () => undefined,
    seed?: HnswSeed,
  ) {
    this.options = { ...DEFAULT_HNSW_OPTIONS, ...options };
    this.space = store.metric === 'cosine' ? 'cosine' : store.metric === 'dot' ? 'ip' : 'l2';
    this.fromSnapshot = seed !== undefined;
    if (seed?.graphPath !== undefined) {
      this.loaded = this.loadSeed(seed.graphPath, seed);
      this.loaded.catch((err: unknown) => {
        this.onError(err);
        this.queueAll();
        this.schedule();
      });
    } else {
      this.loaded = Promise.resolve();
      this.queueAll();
      this.schedule();
    }
  }

  /** Every live row not in the sealed graph goes to the growing segment. */
  private queueAll(): void {
    for (let label = 0; label < this.store.size; label++) {
      if (this.store.isAlive(label) && this.graphState(label) !== 1) this.growing.add(label);
    }
  }

  private graphState(label: number): number {
    return label < this.inGraph.length ? this.inGraph[label] : 0;
  }

  private setGraphState(label: number, state: number): void {
    if (label >= this.inGraph.length) {
      const grown = new Uint8Array(Math.max(label + 1, Math.ceil(this.inGraph.length * GROWTH)));
      grown.set(this.inGraph);
      this.inGraph = grown;
    }
    this.inGraph[label] = state;
  }

  private async loadSeed(graphPath: string, seed: HnswSeed): Promise<void> {
    const index = new HierarchicalNSW(this.space, this.store.dim);
    await index.readIndex(graphPath);
    // The file is the snapshot's: keep a copy of our own (the loader removes its file).
    const path = graphFile();
    await copyFile(graphPath, path);
    if (this.closed) {
      index.initIndex(1);
      return;
    }
    const dirty = new Set(seed.dirty);
    this.inGraph = new Uint8Array(Math.max(seed.inGraph.length, this.store.size, 1024));
    this.inGraph.set(seed.inGraph);
    let points = 0;
    this.live = 0;
    for (let label = 0; label < this.inGraph.length; label++) {
      const there = this.inGraph[label];
      if (there === 0) continue;
      points++;
      if (there !== 1) continue;
      if (!this.store.isAlive(label) || dirty.has(label)) {
        this.markDeleted(index, label);
        this.inGraph[label] = 2;
      } else {
        this.live++;
      }
    }
    this.sealed = { index, path, capacity: index.getMaxElements(), points };
    this.queueAll();
    this.schedule();
  }

  private markDeleted(index: HierarchicalNSW, label: number): void {
    try {
      index.markDelete(label);
    } catch {
      // already deleted
    }
  }

  add(labels: readonly number[]): void {
    for (const label of labels) {
      this.unseal(label);
      this.growing.add(label);
    }
    this.schedule();
  }

  remove(labels: readonly number[]): void {
    for (const label of labels) {
      this.unseal(label);
      this.growing.delete(label);
    }
  }

  /** The label's point in the sealed graph no longer holds its row: a tombstone. */
  private unseal(label: number): void {
    if (this.graphState(label) !== 1) return;
    if (this.sealed) this.markDeleted(this.sealed.index, label);
    this.inGraph[label] = 2;
    this.live--;
    this.build?.removed.add(label);
  }

  /** Starts a build when the growing segment is large enough and none is running. */
  private schedule(force = false): void {
    if (this.closed || this.build) return;
    if (this.growing.size === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
      return;
    }
    // idle() waits for every row to be in the graph, so a waiter makes a small growing segment due too.
    const due = force || this.idleWaiters.length > 0 || this.growing.size >= this.options.sealRows;
    if (!due) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
      return;
    }
    const take = Math.min(this.growing.size, this.options.maxBuildRows);
    const labels = this.growing.view().slice(0, take);
    const seqs = new Float64Array(take);
    const dim = this.store.dim;
    const vectors = new Float32Array(take * dim);
    for (let i = 0; i < take; i++) {
      vectors.set(this.store.vector(labels[i]), i * dim);
      seqs[i] = this.store.seq(labels[i]);
    }
    const build: Build = { labels, seqs, removed: new Set(), added: 0, startedAt: performance.now() };
    this.build = build;
    void this.runBuild(build, vectors).finally(() => {
      if (this.build === build) this.build = undefined;
      this.schedule();
    });
  }

  private async runBuild(build: Build, vectors: Float32Array): Promise<void> {
    const release = await hnswBuildSlots.acquire();
    const out = graphFile();
    try {
      if (this.closed) return;
      const base = this.sealed;
      const liveLabels: number[] = [];
      if (base) for (let l = 0; l < this.inGraph.length; l++) if (this.inGraph[l] === 1) liveLabels.push(l);
      const job: HnswBuildJob = {
        space: this.space,
        dim: this.store.dim,
        m: this.options.m,
        efConstruction: this.options.efConstruction,
        seed: this.options.seed,
        ...(base ? { base: { path: base.path, live: Uint32Array.from(liveLabels) } } : {}),
        labels: build.labels,
        vectors,
        out,
      };
      // Deletes from here on are re-applied to the new graph (the job's list is as of now).
      build.removed.clear();
      const done = await this.runWorker(build, job, [vectors.buffer as ArrayBuffer]);
      if (this.closed) return;
      const index = new HierarchicalNSW(this.space, this.store.dim);
      await index.readIndex(out);
      if (this.closed) {
        index.initIndex(1);
        return;
      }
      this.install(build, index, out, done.points, base);
      this.failures = 0;
    } catch (err) {
      await rm(out, { force: true });
      if (this.closed) return;
      this.failures++;
      this.onError(err);
      // The rows stay in the growing segment (searched exactly); try again later.
      if (this.failures < 5) await new Promise((r) => setTimeout(r, 1000 * this.failures).unref());
    } finally {
      release();
    }
  }

  private runWorker(build: Build, job: HnswBuildJob, transfer: ArrayBuffer[]): Promise<{ points: number }> {
    return new Promise((resolve, reject) => {
      const worker = startWorkerFile(new URL('./hnsw-builder.worker.js', import.meta.url), {
        workerData: job,
        transferList: transfer,
      });
      build.worker = worker;
      worker.unref();
      let settled = false;
      worker.on('message', (msg: HnswBuildReply) => {
        if (msg.t === 'progress') build.added = msg.added;
        else if (msg.t === 'done') {
          settled = true;
          resolve({ points: msg.points });
        } else {
          settled = true;
          reject(new Error(`hnsw build failed: ${msg.error}`));
        }
      });
      worker.on('error', (err) => {
        settled = true;
        reject(err);
      });
      worker.on('exit', (code) => {
        build.worker = undefined;
        if (!settled) reject(new Error(this.closed ? 'index closed' : `hnsw build worker exited with code ${code}`));
      });
    });
  }

  /**
   * Swaps the built graph in (one event-loop turn, so no query sees half of it): the base's
   * live points stay live unless removed during the build, the sent rows become live unless
   * written again or deleted since (their points are marked deleted and they stay growing).
   */
  private install(build: Build, index: HierarchicalNSW, path: string, points: number, base: Sealed | undefined): void {
    for (const label of build.removed) this.markDeleted(index, label);
    // A label written again while the build ran is in `removed` only if it was sealed; rows
    // sent by this build and written or deleted since are caught by their seq here.
    for (let i = 0; i < build.labels.length; i++) {
      const label = build.labels[i];
      if (
        this.store.isAlive(label) &&
        this.store.seq(label) === build.seqs[i] &&
        this.growing.has(label) &&
        !build.removed.has(label)
      ) {
        this.growing.delete(label);
        if (this.graphState(label) !== 1) this.live++;
        this.setGraphState(label, 1);
      } else {
        this.markDeleted(index, label);
        if (this.graphState(label) === 0) this.setGraphState(label, 2);
      }
    }
    // Points of the base deleted while the build ran were marked in `removed`; points the
    // job sent as deleted are 2 already.
    this.sealed = { index, path, capacity: index.getMaxElements(), points };
    if (base) {
      base.index.initIndex(1); // frees the old graph's native memory now, not at garbage collection
      void rm(base.path, { force: true });
    }
  }

  search(query: Float32Array, k: number, accept?: LabelFilter, effort = 1): Hit[] | null {
    if (this.closed) return null;
    const alive = this.store.alive;
    const growing = this.growing.size;
    // Early in a build (no graph yet, or most rows still growing) the planner scans exactly.
    if (this.sealed === undefined) return growing === 0 ? [] : null;
    if (growing > Math.max(this.options.maxBacklog, alive * 0.1) && growing > alive * 0.01) return null;
    const hits: Hit[] = [];
    if (this.live > 0) {
      const { index, capacity } = this.sealed;
      const ef = Math.ceil(Math.min(Math.max(k, this.options.efSearch) * effort, Math.max(this.live, k)));
      index.setEf(ef);
      const q = toPlain(query, this.plain);
      const kk = Math.min(k, capacity);
      const found = accept ? index.searchKnn(q, kk, accept) : index.searchKnn(q, kk);
      const { store } = this;
      for (const label of found.neighbors) if (store.isAlive(label)) hits.push({ label, score: store.similarity(label, query) });
    }
    if (growing === 0) return hits;
    const rows = accept ? this.growing.view().filter((l) => accept(l)) : this.growing.view();
    const extra = exactSearchLabels(this.store, query, k, rows);
    const out: Hit[] = [];
    const seen = new Set<number>();
    for (const h of [...hits, ...extra].sort(compareHits)) {
      if (seen.has(h.label)) continue;
      seen.add(h.label);
      out.push(h);
      if (out.length === k) break;
    }
    return out;
  }

  exhaustive(effort: number): boolean {
    return Math.max(1, this.options.efSearch) * effort >= (this.sealed?.points ?? 0);
  }

  /**
   * Writes the sealed graph to `path` (hnswlib's format: a copy of its immutable file) and
   * the label states as of now; rows not in it (growing) are dirty for the loader.
   * undefined when there is no graph yet (a small table: its rows are the whole snapshot).
   */
  async writeGraph(path: string): Promise<HnswGraphFile | undefined> {
    if (this.closed) throw new Error('index closed');
    const sealed = this.sealed;
    if (!sealed) return undefined;
    const inGraph = this.inGraph.slice(0, Math.max(this.store.size, 1));
    const dirty = Array.from(this.growing.view()).filter((l) => this.graphState(l) !== 1);
    await copyFile(sealed.path, path);
    let deleted = 0;
    for (let l = 0; l < inGraph.length; l++) if (inGraph[l] === 2) deleted++;
    return { inGraph, dirty, counts: { points: sealed.points, deleted, capacity: sealed.capacity } };
  }

  /** Resolves when every row the index was given is in the sealed graph (tests, benchmarks). */
  async idle(): Promise<void> {
    await this.loaded.catch(() => undefined);
    if (this.closed || (this.growing.size === 0 && !this.build)) return;
    await new Promise<void>((resolve) => {
      this.idleWaiters.push(resolve);
      // Small tables never seal on their own: idle() asks for a graph of what there is.
      if (!this.build) this.schedule(true);
    });
  }

  buildStartedAt(): number | undefined {
    return this.build?.startedAt;
  }

  status(): IndexStatus {
    const rows = this.store.alive;
    const growing = this.growing.size;
    // Rows waiting for a build: the growing segment once it is due (a small one is searched
    // exactly by design and is not a backlog).
    const pending = this.build || growing >= this.options.sealRows ? growing : 0;
    const indexed = Math.max(0, rows - pending);
    return {
      kind: 'hnsw',
      state: pending === 0 ? 'ready' : 'building',
      details: {
        rows,
        m: this.options.m,
        ef_construction: this.options.efConstruction,
        ef_search: this.options.efSearch,
        points: this.live,
        tombstones: (this.sealed?.points ?? 0) - this.live,
        pending,
        growing,
        building: this.build ? this.build.labels.length : 0,
        progress: rows === 0 || pending === 0 ? 1 : Math.floor((indexed / rows) * 1000) / 1000,
        capacity: this.sealed?.capacity ?? 0,
        from_snapshot: this.fromSnapshot ? 1 : 0,
      },
    };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.build?.worker?.terminate();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
    if (this.sealed) {
      this.sealed.index.initIndex(1);
      void rm(this.sealed.path, { force: true });
      this.sealed = undefined;
    }
  }
}
