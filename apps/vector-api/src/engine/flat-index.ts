import { exactSearch } from './exact';
import type { Hit, IndexStatus, LabelFilter, VectorIndex } from './types';
import type { VectorStore } from './vector-store';

/** The `flat` index: no structure of its own, always exact (one scan of every live row, see exact.ts). */
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

  idle(): Promise<void> {
    return Promise.resolve();
  }

  close(): void {}
}
