import type { Hit, IndexStatus, LabelFilter, VectorIndex } from './types';
import { toHits, type VectorStore } from './vector-store';

/**
 * Exact top-k over every live row: one linear pass of the scan kernel (WebAssembly SIMD,
 * or its JS fallback) over the contiguous block, a bounded heap for selection. `accept`
 * restricts the rows (filters); like liveness it is only asked about rows that would
 * enter the top k.
 */
export function exactSearch(store: VectorStore, query: Float32Array, k: number, accept?: LabelFilter): Hit[] {
  return toHits(store.kernel.scan(query, k, store.acceptor(accept)));
}

/** Exact top-k over the given labels only (the planner's path for selective filters). */
export function exactSearchLabels(
  store: VectorStore,
  query: Float32Array,
  k: number,
  labels: ArrayLike<number> | Iterable<number>,
): Hit[] {
  return toHits(store.kernel.scanRows(query, rowList(labels), k, store.acceptor()));
}

/** The kernel takes indexable row lists; sets (pending rows) are copied once. */
export function rowList(labels: ArrayLike<number> | Iterable<number>): ArrayLike<number> {
  return 'length' in labels ? labels : Array.from(labels);
}

/** The `flat` index: no structure of its own, always exact. */
export class FlatIndex implements VectorIndex {
  readonly kind = 'flat' as const;

  constructor(private readonly store: VectorStore) {}

  add(): void {}
  remove(): void {}

  search(query: Float32Array, k: number, accept?: LabelFilter): Hit[] {
    return exactSearch(this.store, query, k, accept);
  }

  exhaustive(): boolean {
    return true;
  }

  status(): IndexStatus {
    return { kind: 'flat', state: 'ready', details: { rows: this.store.alive, simd: this.store.simd ? 1 : 0 } };
  }

  close(): void {}
}
