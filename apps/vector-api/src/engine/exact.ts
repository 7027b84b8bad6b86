import type { Steps } from './background';
import { type ScanResult, TopN } from './simd';
import type { Hit, LabelFilter } from './types';
import type { VectorStore } from './vector-store';

/**
 * Exact search, shared by every index and the planner: the flat index is nothing else,
 * ivf and hnsw scan their not-yet-indexed rows with it and rescore their candidates, the
 * planner answers selective filters and fallbacks with it. Scores are the metric's
 * similarities (see Hit: dot products, less ‖x‖²/2 for euclidean), ties go to the smaller
 * label (`compareHits`).
 */

/**
 * Exact top-k over every live row: one linear pass of the scan kernel (WebAssembly SIMD,
 * or its JS fallback) over the contiguous block, a bounded heap for selection. `accept`
 * restricts the rows (filters); like liveness it is only asked about rows that would
 * enter the top k.
 */
export function exactSearch(store: VectorStore, query: Float32Array, k: number, accept?: LabelFilter): Hit[] {
  return toHits(store.kernel.scan(query, k, store.acceptor(accept)));
}

/** Exact top-k over the given labels only (the planner's path for selective filters, an index's pending rows). */
export function exactSearchLabels(
  store: VectorStore,
  query: Float32Array,
  k: number,
  labels: ArrayLike<number> | Iterable<number>,
): Hit[] {
  return toHits(store.kernel.scanRows(query, rowList(labels), k, store.acceptor()));
}

/**
 * Rows scored between two checkpoints of a sliced scan: about 2^18 multiply-adds, a fraction
 * of a millisecond with SIMD (at least 256 rows, so a 4096-d table still scans in big steps).
 */
export function rowsPerStep(dim: number): number {
  return Math.max(256, Math.floor(2 ** 18 / dim));
}

/**
 * exactSearch as steps: the same result (selection does not depend on the order rows are
 * offered), yielding between blocks of rowsPerStep rows. Rows stored after the scan began
 * are not scanned; rows deleted meanwhile are refused by the liveness check when offered,
 * but one already selected stays (the caller drops hits whose row is gone).
 */
export function* exactSearchSteps(store: VectorStore, query: Float32Array, k: number): Steps<Hit[]> {
  const { kernel } = store;
  const end = kernel.size;
  const top = new TopN(Math.min(k, end));
  const accept = store.acceptor();
  const step = rowsPerStep(store.dim);
  for (let first = 0; first < end; first += step) {
    kernel.scanRangeInto(query, first, Math.min(step, end - first), top, accept);
    if (first + step < end) yield;
  }
  return toHits(top.result());
}

/** exactSearchLabels as steps (see exactSearchSteps). */
export function* exactSearchLabelsSteps(
  store: VectorStore,
  query: Float32Array,
  k: number,
  labels: readonly number[],
): Steps<Hit[]> {
  const top = new TopN(Math.min(k, labels.length));
  const accept = store.acceptor();
  const step = rowsPerStep(store.dim);
  for (let first = 0; first < labels.length; first += step) {
    store.kernel.scanRowsInto(query, labels.slice(first, first + step), top, accept);
    if (first + step < labels.length) yield;
  }
  return toHits(top.result());
}

/**
 * Exact scores of an approximate index's candidates (hnswlib's distances are float32
 * approximations), appended to `into`; deleted rows are skipped. Not sorted.
 */
export function rescore(store: VectorStore, query: Float32Array, labels: ArrayLike<number>, into: Hit[]): void {
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i];
    if (store.isAlive(label)) into.push({ label, score: store.similarity(label, query) });
  }
}

/** The kernel takes indexable row lists; sets (pending rows) are copied once. */
export function rowList(labels: ArrayLike<number> | Iterable<number>): ArrayLike<number> {
  return 'length' in labels ? labels : Array.from(labels);
}

/** A kernel result (best first) as engine hits. */
export function toHits(result: ScanResult): Hit[] {
  const { labels, scores } = result;
  const out: Hit[] = new Array<Hit>(labels.length);
  for (let i = 0; i < labels.length; i++) out[i] = { label: labels[i], score: scores[i] };
  return out;
}
