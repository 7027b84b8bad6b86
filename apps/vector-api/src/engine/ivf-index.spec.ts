import { clusteredVectors } from '../../../../test/support/random';
import { recallAt } from '../../../../test/support/search-reference';
import { exactSearch } from './exact';
import { IvfIndex, nlistFor } from './ivf-index';
import { toNormalized, VectorStore } from './vector-store';

const DIM = 32;

function setup(count: number, seed = 11): { store: VectorStore; queries: number[][]; vectors: number[][] } {
  const { vectors } = clusteredVectors(seed, count + 100, DIM, 40);
  const store = new VectorStore(DIM);
  vectors.slice(0, count).forEach((v, label) => store.put(label, toNormalized(v)));
  return { store, vectors: vectors.slice(0, count), queries: vectors.slice(count) };
}

function meanRecall(index: IvfIndex, store: VectorStore, queries: number[][]): number {
  let total = 0;
  for (const q of queries) {
    const nq = toNormalized(q);
    const hits = index.search(nq, 10);
    if (!hits) throw new Error('ivf did not answer');
    total += recallAt(
      exactSearch(store, nq, 10).map((h) => h.label),
      hits.map((h) => h.label),
    );
  }
  return total / queries.length;
}

describe('ivf', () => {
  it('uses nlist ≈ 4·√N', () => {
    expect(nlistFor(10_000)).toBe(400);
    expect(nlistFor(1)).toBe(4);
  });

  it('reaches recall@10 ≥ 0.95 with its calibrated default nprobe, probing far fewer than all lists', async () => {
    const { store, queries } = setup(4000);
    const index = new IvfIndex(store, { minRows: 1000 });
    await index.idle();
    const status = index.status();
    expect(status.state).toBe('ready');
    expect(status.details.nlist).toBe(nlistFor(4000));
    expect(status.details.nprobe).toBeLessThan(status.details.nlist);
    expect(meanRecall(index, store, queries)).toBeGreaterThanOrEqual(0.95);
    index.close();
  });

  it('trains in a worker thread for large inputs with the same quality', async () => {
    const { store, queries } = setup(3000, 12);
    const index = new IvfIndex(store, { minRows: 1000, workerFromFloats: 1 });
    expect(index.status().state).toBe('building');
    expect(index.search(toNormalized(queries[0]), 10)).toBeNull(); // caller answers exactly meanwhile
    await index.idle();
    expect(index.status().state).toBe('ready');
    expect(meanRecall(index, store, queries)).toBeGreaterThanOrEqual(0.95);
    index.close();
  });

  it('answers exactly (null) below its size threshold', () => {
    const { store } = setup(500);
    const index = new IvfIndex(store, { minRows: 1000 });
    expect(index.status().state).toBe('exact');
    expect(index.search(store.vector(0), 10)).toBeNull();
  });

  it('assigns new rows to their nearest centroid, retrains past its growth factor, never returns deleted rows', async () => {
    const { vectors } = clusteredVectors(13, 5000, DIM, 40);
    const store = new VectorStore(DIM);
    const index = new IvfIndex(store, { minRows: 1000, retrainGrowth: 2 });
    const add = (from: number, to: number): void => {
      const labels: number[] = [];
      for (let l = from; l < to; l++) {
        store.put(l, toNormalized(vectors[l]));
        labels.push(l);
      }
      index.add(labels);
    };
    add(0, 1200);
    await index.idle();
    expect(index.status().details.trained_rows).toBe(1200);
    add(1200, 2000); // < 2× → assigned, no retraining
    await index.idle();
    expect(index.status().details.trained_rows).toBe(1200);
    const q = store.vector(1500).slice(); // a copy: the view is only valid until the store grows
    expect(index.search(q, 1)?.[0]?.label).toBe(1500);
    add(2000, 2600); // ≥ 2× the training size → retrain
    await index.idle();
    expect(index.status().details.trained_rows).toBe(2600);

    const victims = (index.search(q, 10) ?? []).map((h) => h.label);
    for (const l of victims) store.delete(l);
    index.remove(victims);
    const after = (index.search(q, 10, undefined, 1000) ?? []).map((h) => h.label);
    expect(after).toHaveLength(10);
    expect(after.some((l) => victims.includes(l))).toBe(false);
    index.close();
  });

  it.each([
    ['WebAssembly SIMD', true],
    ['JavaScript fallback', false],
  ])('%s: probing every list equals the exact search across assigned rows, reused labels and deletes', async (_name, simd) => {
    const { vectors } = clusteredVectors(14, 3000, DIM, 40);
    const store = new VectorStore(DIM, 1024, { simd });
    const index = new IvfIndex(store, { minRows: 1000 });
    const add = (from: number, to: number): void => {
      for (let l = from; l < to; l++) store.put(l, toNormalized(vectors[l]));
      index.add(Array.from({ length: to - from }, (_, i) => from + i));
    };
    const queries = vectors.slice(2900).map((v) => toNormalized(v));
    const expectExhaustiveIsExact = (): void => {
      for (const q of queries.slice(0, 20)) {
        const hits = index.search(q, 10, undefined, 1e6) ?? [];
        const exact = exactSearch(store, q, 10);
        expect(hits.map((h) => h.label)).toEqual(exact.map((h) => h.label));
        hits.forEach((h, i) => expect(Math.abs(h.score - (exact[i]?.score ?? NaN))).toBeLessThan(1e-6));
      }
    };
    add(0, 2000);
    await index.idle();
    expect(index.status().details).toMatchObject({ trained_rows: 2000, pending: 0 });
    add(2000, 2100); // pending until the background assigns them, then in their lists
    expect(index.status().details.pending).toBeLessThanOrEqual(100); // (the first slice runs at once)
    expectExhaustiveIsExact();
    await index.idle();
    expect(index.status().details.pending).toBe(0);
    expectExhaustiveIsExact();
    add(2100, 2400);
    await index.idle();
    expect(index.status().details).toMatchObject({ trained_rows: 2000, pending: 0 });
    expectExhaustiveIsExact();
    // Labels deleted and written again with other vectors: they leave their old list at once.
    const reused = [5, 6, 7, 2050, 2300];
    for (const l of reused) expect(store.delete(l, 10)).toBe(true);
    index.remove(reused);
    const other = clusteredVectors(99, 3000, DIM, 40).vectors;
    for (const l of reused) expect(store.put(l, toNormalized(other[l]), 11)).toBe(true);
    index.add(reused);
    expectExhaustiveIsExact();
    await index.idle();
    expectExhaustiveIsExact();
    const victims = (index.search(queries[0], 400, undefined, 1e6) ?? []).map((h) => h.label);
    for (const l of victims) store.delete(l);
    index.remove(victims); // they leave their lists at once
    expectExhaustiveIsExact();
    await index.idle();
    expectExhaustiveIsExact();
    expect(store.alive).toBe(2400 - 400);
    // Every live row is in exactly one list, once.
    const model = index.exportModel();
    const listed = model ? [...model.listOf].filter((c) => c >= 0).length : 0;
    expect(listed).toBe(store.alive);
    index.close();
  });
});
