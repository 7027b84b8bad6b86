import type { ScanResult } from './simd';
import type { Hit, LabelFilter } from './types';
import type { VectorStore } from './vector-store';

/**
 * Exact search, shared by every index and the planner: the flat index is nothing else,
 * ivf and hnsw scan their not-yet-indexed rows with it and rescore their candidates, the
 * planner answers selective filters and fallbacks with it. Scores are dot products of
 * normalised vectors (cosine), ties go to the smaller label (`compareHits`).
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
 * Exact scores of an approximate index's candidates (hnswlib's distances are float32
 * approximations), appended to `into`; deleted rows are skipped. Not sorted.
 */
export function rescore(store: VectorStore, query: Float32Array, labels: ArrayLike<number>, into: Hit[]): void {
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i];
    if (store.isAlive(label)) into.push({ label, score: store.dot(label, query) });
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
