import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusteredVectors } from '../../../../test/support/random';
import { recallAt } from '../../../../test/support/search-reference';
import { exactSearch } from './exact';
import { HnswIndex } from './hnsw-index';
import type { Hit } from './types';
import { toNormalized, VectorStore } from './vector-store';

const DIM = 32;

describe('hnsw (a sealed hnswlib graph searched in place, built in a worker, and a growing segment)', () => {
  const { vectors } = clusteredVectors(21, 4100, DIM, 40);
  const queries = vectors.slice(4000).map((q) => toNormalized(q));
  const open: HnswIndex[] = [];
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hnsw-spec-'));
  });
  afterEach(() => {
    for (const index of open.splice(0)) index.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function storeOf(count: number): VectorStore {
    const store = new VectorStore(DIM);
    vectors.slice(0, count).forEach((v, label) => store.put(label, toNormalized(v), 1));
    return store;
  }

  function indexOf(store: VectorStore, options = {}, seed?: ConstructorParameters<typeof HnswIndex>[3]): HnswIndex {
    const index = new HnswIndex(
      store,
      options,
      (err) => {
        throw err;
      },
      seed,
    );
    open.push(index);
    return index;
  }

  function must<T>(value: T | undefined): T {
    if (value === undefined) throw new Error('expected a graph file');
    return value;
  }

  async function labels(answer: Hit[] | Promise<Hit[]> | null): Promise<number[]> {
    if (answer === null) throw new Error('the index did not answer');
    return (await answer).map((h) => h.label);
  }

  function recall(store: VectorStore, index: HnswIndex): Promise<number> {
    return Promise.all(
      queries.map(async (q) =>
        recallAt(
          exactSearch(store, q, 10).map((h) => h.label),
          await labels(index.search(q, 10)),
        ),
      ),
    ).then((r) => r.reduce((a, b) => a + b, 0) / r.length);
  }

  it('reports building with the pending count and progress, answers exactly (null) meanwhile, then reaches recall@10 ≥ 0.95', async () => {
    const store = storeOf(4000);
    const index = indexOf(store, { maxBacklog: 100 });
    const building = index.status();
    expect(building.state).toBe('building');
    expect(building.details.pending).toBe(4000);
    expect(building.details.progress).toBe(0);
    expect(index.search(queries[0], 10)).toBeNull();
    await index.idle();
    expect(index.status()).toMatchObject({
      state: 'ready',
      details: { points: 4000, pending: 0, progress: 1, m: 16, ef_construction: 200 },
    });
    expect(await recall(store, index)).toBeGreaterThanOrEqual(0.95);
  });

  it('sees inserted rows at once (scanned exactly in the growing segment until a build seals them), then drains them into the graph', async () => {
    const store = storeOf(1000);
    const index = indexOf(store);
    await index.idle();
    const added: number[] = [];
    for (let l = 1000; l < 3000; l++) {
      store.put(l, toNormalized(vectors[l]), 2);
      added.push(l);
    }
    index.add(added);
    expect(index.status()).toMatchObject({ state: 'building', details: { pending: 2000 } });
    expect((await labels(index.search(store.vector(2999).slice(), 1)))[0]).toBe(2999);
    await index.idle();
    expect(index.status().details).toMatchObject({ points: 3000, pending: 0 });
    expect(index.status().details.capacity).toBeGreaterThanOrEqual(3000);
    expect((await labels(index.search(store.vector(2999).slice(), 1)))[0]).toBe(2999);
  });

  it('never returns deleted rows, and a label written again reuses its graph slot', async () => {
    const store = storeOf(2000);
    const index = indexOf(store);
    await index.idle();
    const q = queries[1];
    const first = await labels(index.search(q, 10));
    for (const l of first) store.delete(l, 3);
    index.remove(first);
    const second = await labels(index.search(q, 10));
    expect(second).toHaveLength(10);
    expect(second.some((l) => first.includes(l))).toBe(false);
    await index.idle();
    // The freed labels come back holding other vectors (as the database hands freed labels
    // to new rows): the graph updates those points in place instead of growing.
    const before = index.status().details;
    first.forEach((l, i) => store.put(l, toNormalized(vectors[3000 + i]), 4));
    index.add(first);
    await index.idle();
    const after = index.status().details;
    expect(after.points).toBe(2000);
    expect(after.capacity).toBeGreaterThanOrEqual(before.capacity);
    expect(after.tombstones).toBe(0);
    expect((await labels(index.search(toNormalized(vectors[3000]), 1)))[0]).toBe(first[0]);
  });

  it('sets ef to at least k (large n returns n results)', async () => {
    const store = storeOf(1500);
    const index = indexOf(store);
    await index.idle();
    expect(await labels(index.search(queries[2], 1000))).toHaveLength(1000);
  });

  it('applies a filter inside the graph search (bitmap) and rescores exactly', async () => {
    const store = storeOf(3000);
    const index = indexOf(store);
    await index.idle();
    const bitmap = new Uint8Array(store.size);
    for (let l = 0; l < store.size; l += 2) bitmap[l] = 1;
    const accept = (l: number): boolean => bitmap[l] === 1;
    const hits = index.search(queries[3], 10, accept, 1) ?? [];
    expect(hits).toHaveLength(10);
    expect(hits.every((h) => h.label % 2 === 0)).toBe(true);
    for (const h of hits) expect(h.score).toBeCloseTo(store.dot(h.label, queries[3]), 6);
  });

  it('writes its graph without stopping searches, and a new index seeded from the file holds the same graph', async () => {
    const store = storeOf(3000);
    const index = indexOf(store);
    await index.idle();
    const path = join(dir, 'graph.bin');
    const writing = index.writeGraph(path);
    // A row written while the file is copied is not in the graph's states.
    store.put(3000, toNormalized(vectors[3000]), 5);
    index.add([3000]);
    const during = await labels(index.search(queries[4], 10));
    const file = must(await writing);
    expect(during).toHaveLength(10);
    expect(file.counts.points).toBe(3000);
    // The states are the graph's as of the call: the row written meanwhile is not in them, so a loader adds it.
    expect(file.inGraph[3000] ?? 0).toBe(0);
    const expected = await labels(index.search(queries[4], 10));

    const loaded = indexOf(store, {}, { graphPath: path, inGraph: file.inGraph, dirty: file.dirty });
    expect(loaded.status().details.from_snapshot).toBe(1);
    await loaded.idle();
    expect(loaded.status().details).toMatchObject({ points: 3001, pending: 0 });
    expect(await labels(loaded.search(queries[4], 10))).toEqual(expected);
    expect(await recall(store, loaded)).toBeGreaterThanOrEqual(0.95);
  });

  it('a seed whose file lacks rows of the store, or holds deleted ones, is brought up to date', async () => {
    const store = storeOf(2000);
    const index = indexOf(store);
    await index.idle();
    const path = join(dir, 'older.bin');
    const file = must(await index.writeGraph(path));
    for (let l = 2000; l < 2500; l++) store.put(l, toNormalized(vectors[l]), 6);
    const gone = [0, 1, 2, 3];
    for (const l of gone) store.delete(l, 6);
    const loaded = indexOf(store, {}, { graphPath: path, inGraph: file.inGraph, dirty: [] });
    await loaded.idle();
    expect(loaded.status().details).toMatchObject({ points: 2496, pending: 0, tombstones: 4 });
    const hits = await labels(loaded.search(toNormalized(vectors[0]), 20));
    expect(hits.some((l) => gone.includes(l))).toBe(false);
    expect((await labels(loaded.search(toNormalized(vectors[2400]), 1)))[0]).toBe(2400);
  });

  describe('invariants of a build running while rows change', () => {
    /** Waits until a build has started (its rows sent to the worker). */
    async function building(index: HnswIndex): Promise<void> {
      for (let i = 0; i < 500 && index.status().details.building === 0; i++) await new Promise((r) => setTimeout(r, 2));
      expect(index.status().details.building).toBeGreaterThan(0);
    }

    /** 1,500 rows sealed in a graph, then 1,000 more on their way into the next one (the build started). */
    async function buildRunning(): Promise<{ store: VectorStore; index: HnswIndex }> {
      const store = storeOf(1500);
      const index = indexOf(store, { sealRows: 200 });
      await index.idle();
      for (let l = 1500; l < 2500; l++) store.put(l, toNormalized(vectors[l]), 2);
      index.add(Array.from({ length: 1000 }, (_, i) => 1500 + i));
      await building(index);
      return { store, index };
    }

    function top1(index: HnswIndex, label: number, store: VectorStore): number | undefined {
      const hits = index.search(store.vector(label).slice(), 1);
      if (hits === null) throw new Error('the index did not answer');
      return hits[0]?.label;
    }

    it('every row is found while a build runs, and rows deleted or written again meanwhile stay so after it is swapped in', async () => {
      const { store, index } = await buildRunning();
      // Queries during the build: rows of the sealed graph and rows being built are all found.
      for (const l of [0, 700, 1499, 1500, 2000, 2499]) expect(top1(index, l, store)).toBe(l);
      // Changes during the build: sealed rows and rows being built, deleted and rewritten.
      const deleted = [3, 4, 1600, 1601];
      for (const l of deleted) store.delete(l, 3);
      index.remove(deleted);
      const rewritten = [5, 1700];
      rewritten.forEach((l, i) => store.put(l, toNormalized(vectors[3000 + i]), 3));
      index.add(rewritten);
      await index.idle();
      expect(index.status().details).toMatchObject({ pending: 0, growing: 0, building: 0, points: 2496 });
      for (const l of deleted) {
        const near = index.search(toNormalized(vectors[l]), 50) ?? [];
        expect(near.map((h) => h.label)).not.toContain(l);
      }
      rewritten.forEach((l, i) => expect(index.search(toNormalized(vectors[3000 + i]), 1)?.[0]?.label).toBe(l));
      expect(index.search(toNormalized(vectors[5]), 1)?.[0]?.label).not.toBe(5);
      expect(await recall(store, index)).toBeGreaterThanOrEqual(0.95);
    });

    it('a snapshot of the graph taken while a build runs restores every row', async () => {
      const { store, index } = await buildRunning();
      const path = join(dir, 'during-build.bin');
      const file = must(await index.writeGraph(path));
      store.delete(10, 4);
      index.remove([10]);
      const loaded = indexOf(store, { sealRows: 200 }, { graphPath: path, inGraph: file.inGraph, dirty: file.dirty });
      await loaded.idle();
      expect(loaded.status().details).toMatchObject({ pending: 0, points: 2499 });
      for (const l of [0, 1499, 1500, 2499]) expect(top1(loaded, l, store)).toBe(l);
      expect((loaded.search(toNormalized(vectors[10]), 20) ?? []).map((h) => h.label)).not.toContain(10);
    });

    it('a build that fails leaves its rows in the growing segment, still found', async () => {
      const store = storeOf(500);
      const errors: unknown[] = [];
      const index = new HnswIndex(store, { sealRows: 100, m: 16 }, (err) => errors.push(err));
      open.push(index);
      // A file that is not a graph as the base makes the next build fail in its worker.
      await index.idle();
      (index as unknown as { sealed: { path: string } }).sealed.path = join(dir, 'not-a-graph.bin');
      for (let l = 500; l < 700; l++) store.put(l, toNormalized(vectors[l]), 2);
      index.add(Array.from({ length: 200 }, (_, i) => 500 + i));
      for (let i = 0; i < 1000 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
      expect(errors.length).toBeGreaterThan(0);
      expect(index.status().details.growing).toBe(200);
      for (const l of [0, 499, 500, 699]) expect(top1(index, l, store)).toBe(l);
    });
  });
});
