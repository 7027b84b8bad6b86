import { clusteredVectors } from '../../../../test/support/random';
import { recallAt } from '../../../../test/support/search-reference';
import { exactSearch } from './exact';
import { HnswIndex } from './hnsw-index';
import { toNormalized, VectorStore } from './vector-store';

const DIM = 32;

describe('hnsw (hnswlib-node)', () => {
  const { vectors } = clusteredVectors(21, 4100, DIM, 40);
  const queries = vectors.slice(4000).map((q) => toNormalized(q));

  function build(count: number, options = {}): { store: VectorStore; index: HnswIndex } {
    const store = new VectorStore(DIM);
    vectors.slice(0, count).forEach((v, label) => store.put(label, toNormalized(v)));
    return { store, index: new HnswIndex(store, options) };
  }

  it('answers exactly (null) while building in time slices, then reaches recall@10 ≥ 0.95', async () => {
    const { store, index } = build(4000, { sliceMs: 5 });
    expect(index.status().state).toBe('building');
    expect(index.search(queries[0], 10)).toBeNull();
    await index.idle();
    expect(index.status()).toMatchObject({ state: 'ready', details: { points: 4000, m: 16, ef_construction: 200 } });
    let recall = 0;
    for (const q of queries) {
      const hits = index.search(q, 10) ?? [];
      recall += recallAt(
        exactSearch(store, q, 10).map((h) => h.label),
        hits.map((h) => h.label),
      );
    }
    expect(recall / queries.length).toBeGreaterThanOrEqual(0.95);
    index.close();
  });

  it('grows capacity ahead of inserts, sees pending inserts at once, and drains them into the graph', async () => {
    const { store, index } = build(1000);
    await index.idle();
    const before = index.status().details.capacity;
    const labels: number[] = [];
    for (let l = 1000; l < 3000; l++) {
      store.put(l, toNormalized(vectors[l]));
      labels.push(l);
    }
    index.add(labels);
    expect(index.search(store.vector(2999), 1)?.[0]?.label).toBe(2999); // still pending: scanned exactly
    await index.idle();
    const status = index.status();
    expect(status.details.points).toBe(3000);
    expect(status.details.pending).toBe(0);
    expect(status.details.capacity).toBeGreaterThan(before);
    expect(index.search(store.vector(2999), 1)?.[0]?.label).toBe(2999);
    index.close();
  });

  it('never returns deleted rows and rebuilds once tombstones pass the threshold', async () => {
    const { store, index } = build(2000, { rebuildTombstoneRatio: 0.2 });
    await index.idle();
    const q = queries[1];
    const first = (index.search(q, 10) ?? []).map((h) => h.label);
    for (const l of first) store.delete(l);
    index.remove(first);
    const second = (index.search(q, 10) ?? []).map((h) => h.label);
    expect(second).toHaveLength(10);
    expect(second.some((l) => first.includes(l))).toBe(false);
    expect(index.status().details.tombstones).toBe(10);

    const many = store.aliveLabels().slice(0, 500);
    for (const l of many) store.delete(l);
    index.remove(many); // 510 / 2000 > 0.2 → background rebuild
    expect(index.status().details.rebuilding).toBe(1);
    expect((index.search(q, 10) ?? []).some((h) => many.includes(h.label) || first.includes(h.label))).toBe(false);
    await index.idle();
    expect(index.status().details).toMatchObject({ tombstones: 0, points: 1490, rebuilding: 0 });
    expect((index.search(q, 10) ?? []).map((h) => h.label)).toEqual(exactSearch(store, q, 10).map((h) => h.label));
    index.close();
  });

  it('sets ef to at least k (large n returns n results)', async () => {
    const { index } = build(1500);
    await index.idle();
    expect(index.search(queries[2], 1000)).toHaveLength(1000);
    index.close();
  });
});
