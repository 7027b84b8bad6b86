import { TopK } from './top-k';
import type { Hit, IndexStatus, LabelFilter, VectorIndex } from './types';
import { dotAt, type VectorStore } from './vector-store';

/**
 * Exact top-k over every live row: one linear pass over the contiguous block, a bounded
 * heap for selection. `accept` restricts the rows (filters).
 */
export function exactSearch(store: VectorStore, query: Float32Array, k: number, accept?: LabelFilter): Hit[] {
  const top = new TopK(k);
  const { data, state, dim, size } = store;
  for (let label = 0, off = 0; label < size; label++, off += dim) {
    if (state[label] !== 1) continue;
    if (accept !== undefined && !accept(label)) continue;
    const s = dotAt(data, off, query, dim);
    if (s >= top.threshold) top.push(label, s);
  }
  return top.results();
}

/** Exact top-k over the given labels only (the planner's path for selective filters). */
export function exactSearchLabels(store: VectorStore, query: Float32Array, k: number, labels: Iterable<number>): Hit[] {
  const top = new TopK(k);
  const { data, state, dim } = store;
  for (const label of labels) {
    if (state[label] !== 1) continue;
    const s = dotAt(data, label * dim, query, dim);
    if (s >= top.threshold) top.push(label, s);
  }
  return top.results();
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
    return { kind: 'flat', state: 'ready', details: { rows: this.store.alive } };
  }

  close(): void {}
}
