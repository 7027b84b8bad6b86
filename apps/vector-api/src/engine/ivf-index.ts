import { performance } from 'node:perf_hooks';
import { runInWorker, yieldToEventLoop } from './background';
import { exactSearchLabels } from './flat-index';
import { type IvfModelData, trainIvfModel } from './ivf-train';
import { compareHits, TopK } from './top-k';
import type { Hit, IndexStatus, LabelFilter, VectorIndex } from './types';
import { dotAt, type VectorStore } from './vector-store';

export interface IvfOptions {
  /** Below this many live rows the index answers exactly (a scan is as fast and exact). */
  readonly minRows: number;
  /** Retrain when the table has grown to this multiple of the rows the model was trained on. */
  readonly retrainGrowth: number;
  /** Estimated recall@10 the default nprobe must reach. */
  readonly targetRecall: number;
  readonly seed: number;
  /** Train in a worker thread from this many rows·dimensions (below: in-thread). */
  readonly workerFromFloats: number;
  /** Longest stretch of list assignment before yielding to the event loop. */
  readonly sliceMs: number;
}

export const DEFAULT_IVF_OPTIONS: IvfOptions = {
  minRows: 2000,
  retrainGrowth: 2,
  targetRecall: 0.98,
  seed: 0x1f2e3d,
  workerFromFloats: 0,
  sliceMs: 8,
};

interface IvfModel {
  readonly centroids: Float32Array;
  readonly nlist: number;
  readonly nprobe: number;
  readonly estimatedRecall: number;
  readonly trainedRows: number;
  readonly lists: number[][];
  /** 1 when the label is in one of the lists. */
  listed: Uint8Array;
}

/** nlist ≈ 4·√N (the usual IVF rule of thumb), at least 1. */
export function nlistFor(rows: number): number {
  return Math.max(1, Math.round(4 * Math.sqrt(rows)));
}

/**
 * `ivf`, our own inverted-file index: spherical k-means centroids (k-means++ seeding,
 * trained on a sample), one list of labels per centroid; a query scans the `nprobe` lists
 * whose centroids are closest. Training runs in a worker thread; until the first model
 * exists the index answers `null` (the planner scans exactly). New rows wait in `pending`
 * (scanned exactly by queries) until a background chunk assigns them to their nearest
 * centroid. Past `retrainGrowth` × the training size the model is retrained in the
 * background and swapped in. Scores are exact dot products.
 */
export class IvfIndex implements VectorIndex {
  readonly kind = 'ivf' as const;
  private model: IvfModel | undefined;
  private readonly pending = new Set<number>();
  private training: Promise<void> | undefined;
  private draining: Promise<void> | undefined;
  private closed = false;
  private readonly abort = new AbortController();
  private readonly options: IvfOptions;

  constructor(
    private readonly store: VectorStore,
    options: Partial<IvfOptions> = {},
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    this.options = { ...DEFAULT_IVF_OPTIONS, ...options };
    this.maybeTrain();
  }

  add(labels: readonly number[]): void {
    if (this.model) {
      for (const label of labels) this.pending.add(label);
      this.drain();
    }
    this.maybeTrain();
  }

  remove(labels: readonly number[]): void {
    // Deleted labels stay in their list and are skipped by the scan (the store's state);
    // the next training drops them.
    for (const label of labels) this.pending.delete(label);
  }

  private assign(model: IvfModel, label: number): void {
    if (!this.store.isAlive(label)) return;
    if (label >= model.listed.length) {
      const grown = new Uint8Array(Math.max(label + 1, model.listed.length * 2));
      grown.set(model.listed);
      model.listed = grown;
    }
    if (model.listed[label] === 1) return;
    const { dim } = this.store;
    const v = this.store.vector(label);
    let best = 0;
    let bestScore = -Infinity;
    for (let c = 0; c < model.nlist; c++) {
      const s = dotAt(model.centroids, c * dim, v, dim);
      if (s > bestScore) {
        bestScore = s;
        best = c;
      }
    }
    model.lists[best]?.push(label);
    model.listed[label] = 1;
  }

  /** Assigns pending rows in chunks between event-loop turns (nlist·dim work per row). */
  private drain(): void {
    if (this.draining || this.closed) return;
    this.draining = (async () => {
      while (this.pending.size > 0 && !this.closed) {
        const model = this.model;
        if (!model) return;
        const sliceEnd = performance.now() + this.options.sliceMs;
        for (const label of this.pending) {
          this.pending.delete(label);
          this.assign(model, label);
          if (performance.now() >= sliceEnd) break;
        }
        await yieldToEventLoop();
      }
    })()
      .catch((err: unknown) => this.onError(err))
      .finally(() => {
        this.draining = undefined;
      });
  }

  private maybeTrain(): void {
    if (this.training || this.closed) return;
    const rows = this.store.alive;
    if (rows < this.options.minRows) return;
    if (this.model && rows < this.model.trainedRows * this.options.retrainGrowth) return;
    this.training = this.train()
      .catch((err: unknown) => {
        if (!this.closed) this.onError(err);
      })
      .finally(() => {
        this.training = undefined;
        this.maybeTrain();
      });
  }

  private async train(): Promise<void> {
    const { dim } = this.store;
    const labels = this.store.aliveLabels();
    const n = labels.length;
    const data = new Float32Array(n * dim);
    for (let i = 0; i < n; i++) data.set(this.store.vector(labels[i]), i * dim);
    const nlist = nlistFor(n);
    // Faiss trains on 39–256 points per centroid; 24 per list (at least 8192) keeps a
    // 100k-row training to seconds while the lists stay balanced.
    const sampleSize = Math.min(n, Math.max(nlist * 24, 8192));
    const args = [data, n, dim, nlist, this.options.seed, sampleSize, 10, this.options.targetRecall] as const;
    const result: IvfModelData =
      n * dim >= this.options.workerFromFloats
        ? await runInWorker(trainIvfModel as (...a: never[]) => IvfModelData, args, [data.buffer], this.abort.signal)
        : trainIvfModel(...args);
    if (this.closed) return;
    const lists: number[][] = Array.from({ length: result.nlist }, () => []);
    const listed = new Uint8Array(this.store.size + 1024);
    for (let i = 0; i < n; i++) {
      const label = labels[i];
      if (!this.store.isAlive(label)) continue;
      lists[result.assign[i]]?.push(label);
      listed[label] = 1;
    }
    this.model = {
      centroids: result.centroids,
      nlist: result.nlist,
      nprobe: result.nprobe,
      estimatedRecall: result.recall,
      trainedRows: n,
      lists,
      listed,
    };
    // Rows that arrived while training ran (in any label order: several instances write)
    // wait in pending for the new model.
    this.pending.clear();
    for (let label = 0; label < this.store.size; label++)
      if (this.store.isAlive(label) && listed[label] !== 1) this.pending.add(label);
    this.drain();
  }

  /** Resolves when no training or assignment is running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.training || this.draining) await (this.training ?? this.draining);
  }

  search(query: Float32Array, k: number, accept?: LabelFilter, effort = 1): Hit[] | null {
    const model = this.model;
    if (!model || this.store.alive < this.options.minRows) return null;
    const { dim, data, state } = this.store;
    const probes = Math.min(model.nlist, Math.ceil(model.nprobe * effort));
    const nearest = new TopK(probes);
    for (let c = 0; c < model.nlist; c++) nearest.push(c, dotAt(model.centroids, c * dim, query, dim));
    const top = new TopK(k);
    for (const { label: c } of nearest.results()) {
      const list = model.lists[c];
      for (let i = 0; i < list.length; i++) {
        const label = list[i];
        if (state[label] !== 1) continue;
        if (accept !== undefined && !accept(label)) continue;
        const s = dotAt(data, label * dim, query, dim);
        if (s >= top.threshold) top.push(label, s);
      }
    }
    const hits = top.results();
    if (this.pending.size === 0) return hits;
    const extra = exactSearchLabels(this.store, query, k, accept ? [...this.pending].filter(accept) : this.pending);
    return [...hits, ...extra].sort(compareHits).slice(0, k);
  }

  exhaustive(effort: number): boolean {
    const model = this.model;
    return !model || Math.ceil(model.nprobe * effort) >= model.nlist;
  }

  status(): IndexStatus {
    const model = this.model;
    if (!model) {
      return { kind: 'ivf', state: this.training ? 'building' : 'exact', details: { rows: this.store.alive } };
    }
    return {
      kind: 'ivf',
      state: this.store.alive < this.options.minRows ? 'exact' : 'ready',
      details: {
        rows: this.store.alive,
        nlist: model.nlist,
        nprobe: model.nprobe,
        trained_rows: model.trainedRows,
        estimated_recall_at_10: Math.round(model.estimatedRecall * 1000) / 1000,
        pending: this.pending.size,
        retraining: this.training ? 1 : 0,
      },
    };
  }

  close(): void {
    this.closed = true;
    this.abort.abort();
    this.model = undefined;
    this.pending.clear();
  }
}
