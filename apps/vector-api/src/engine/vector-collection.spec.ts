import { parseFilter } from './filter';
import { clusteredVectors, mulberry32 } from '../../../../test/support/random';
import { bruteForce, recallAt } from '../../../../test/support/search-reference';
import { INDEX_KINDS, type IndexKind } from './types';
import { type CollectionRow, VectorCollection } from './vector-collection';

const DIM = 24;
const COUNT = 4000;
const { vectors } = clusteredVectors(31, COUNT + 30, DIM, 30);
const data = vectors.slice(0, COUNT);
const queries = vectors.slice(COUNT);
// bucket: 1 % of rows have rare=true; half have parity 'even'.
const rows: CollectionRow[] = data.map((embedding, i) => ({
  id: `v${i}`,
  label: i,
  embedding,
  metadata: { rare: i % 100 === 7, parity: i % 2 === 0 ? 'even' : 'odd', n: i, tags: [`t${i % 3}`] },
}));

async function loaded(kind: IndexKind, simd = true): Promise<VectorCollection> {
  const c = new VectorCollection(DIM, kind, { ivf: { minRows: 1000 }, exactFilterRows: 500, simd });
  c.insert(rows);
  await c.idle();
  return c;
}

describe('VectorCollection planner', () => {
  describe.each(INDEX_KINDS)('%s', (kind) => {
    let c: VectorCollection;
    beforeAll(async () => {
      c = await loaded(kind);
    });
    afterAll(() => c.close());

    it('is ready (not answering exactly by accident)', () => {
      expect(c.status().state).toBe('ready');
    });

    it('1 % selectivity: exactly the best matching rows (exact scan of the matches)', async () => {
      for (const q of queries) {
        const { hits, plan } = await c.query(q, 10, parseFilter({ rare: true }));
        expect(plan.path).toBe('exact');
        expect(hits.map((h) => h.id)).toEqual(bruteForce(data, q, 10, (i) => i % 100 === 7).map((i) => `v${i}`));
        expect(hits.every((h) => h.metadata.rare === true)).toBe(true);
      }
    });

    it('50 % selectivity through the index: exactly min(n, matches) rows, all matching, the best ones (exact for flat, recall@10 ≥ 0.95 otherwise)', async () => {
      let recall = 0;
      for (const q of queries) {
        const { hits, plan } = await c.query(q, 10, parseFilter({ parity: 'even' }));
        expect(plan.path).toBe(kind === 'flat' ? 'exact' : 'index');
        expect(hits).toHaveLength(10);
        expect(hits.every((h) => h.metadata.parity === 'even')).toBe(true);
        const expected = bruteForce(data, q, 10, (i) => i % 2 === 0).map((i) => `v${i}`);
        if (kind === 'flat') expect(hits.map((h) => h.id)).toEqual(expected);
        recall += recallAt(
          expected,
          hits.map((h) => h.id),
        );
      }
      expect(recall / queries.length).toBeGreaterThanOrEqual(0.95);
    });

    it('returns all matching rows when fewer than n match, ordered by exact score', async () => {
      const q = queries[0];
      const { hits } = await c.query(q, 1000, parseFilter({ n: { $gte: 100, $lt: 160 }, tags: 't0' }));
      expect(hits.map((h) => h.id)).toEqual(
        bruteForce(data, q, 1000, (i) => i >= 100 && i < 160 && i % 3 === 0).map((i) => `v${i}`),
      );
      for (let i = 1; i < hits.length; i++)
        expect((hits[i - 1] as { score: number }).score).toBeGreaterThanOrEqual((hits[i] as { score: number }).score);
    });

    it('unfiltered recall@10 ≥ 0.95 and scores clamped to [0, 1]', async () => {
      let recall = 0;
      for (const q of queries) {
        const { hits } = await c.query(q, 10);
        expect(hits).toHaveLength(10);
        for (const h of hits) {
          expect(h.score).toBeGreaterThanOrEqual(0);
          expect(h.score).toBeLessThanOrEqual(1);
        }
        recall += recallAt(
          bruteForce(data, q, 10).map((i) => `v${i}`),
          hits.map((h) => h.id),
        );
      }
      expect(recall / queries.length).toBeGreaterThanOrEqual(0.95);
    });

    it('per-query index override answers (exactly while that index builds)', async () => {
      for (const other of INDEX_KINDS) {
        const q = queries[3];
        const { hits } = await c.query(q, 5, undefined, other);
        expect(hits).toHaveLength(5);
      }
    });
  });

  it('never returns deleted ids, and replaying inserts or deletes changes nothing', async () => {
    const c = await loaded('hnsw');
    const q = queries[4];
    const first = (await c.query(q, 20)).hits.map((h) => h.id);
    const labels = first.map((id) => c.labelOf(id) as number);
    expect(c.deleteLabels(labels)).toBe(20);
    expect(c.deleteLabels(labels)).toBe(0);
    expect(c.insert(rows.filter((r) => labels.includes(r.label)))).toBe(0); // deleted labels never come back
    for (const kind of INDEX_KINDS) {
      const ids = (await c.query(q, 50, undefined, kind)).hits.map((h) => h.id);
      expect(ids.some((id) => first.includes(id))).toBe(false);
      const filtered = (await c.query(q, 50, parseFilter({ parity: { $in: ['even', 'odd'] } }), kind)).hits.map((h) => h.id);
      expect(filtered.some((id) => first.includes(id))).toBe(false);
    }
    expect(c.size).toBe(COUNT - 20);
    expect(c.insert(rows.slice(0, 10))).toBe(0); // already present
    c.close();
  });

  it('a re-inserted id under a newer label replaces the older one', async () => {
    const c = new VectorCollection(2, 'flat');
    c.insert([{ id: 'a', label: 0, embedding: [1, 0] }]);
    c.insert([{ id: 'a', label: 5, embedding: [0, 1] }]);
    expect(c.size).toBe(1);
    expect((await c.query([0, 1], 5)).hits).toEqual([{ id: 'a', score: 1, metadata: {}, metadataBytes: 2 }]);
    c.insert([{ id: 'a', label: 3, embedding: [1, 1] }]); // stale: ignored
    expect((await c.query([0, 1], 5)).hits.map((h) => h.id)).toEqual(['a']);
  });

  it('answers exactly while hnsw is still adding rows in the background', async () => {
    const c = new VectorCollection(DIM, 'hnsw', {});
    c.insert(rows);
    expect(c.status().details.pending).toBeGreaterThan(3000); // nothing blocked: the rows wait in the growing segment
    const q = queries[5];
    expect((await c.query(q, 10)).hits.map((h) => h.id)).toEqual(bruteForce(data, q, 10).map((i) => `v${i}`));
    await c.idle();
    expect(c.status().details).toMatchObject({ pending: 0, points: COUNT });
    c.close();
  });

  describe.each(INDEX_KINDS)('%s: the WebAssembly SIMD scan and the JavaScript fallback agree', (kind) => {
    let simd: VectorCollection;
    let js: VectorCollection;
    beforeAll(async () => {
      [simd, js] = await Promise.all([loaded(kind, true), loaded(kind, false)]);
    });
    afterAll(() => {
      simd.close();
      js.close();
    });

    it.each([
      ['unfiltered', undefined],
      ['1 % selective (exact scan of the matches)', { rare: true }],
      ['50 % selective (through the index)', { parity: 'even' }],
    ])('%s: same ids in the same order, same scores, same plan', async (_name, filter) => {
      expect(simd.store.simd).toBe(true);
      expect(js.store.simd).toBe(false);
      for (const q of queries) {
        const f = filter === undefined ? undefined : parseFilter(filter);
        const a = await simd.query(q, 10, f);
        const b = await js.query(q, 10, f);
        expect(a.plan).toEqual(b.plan);
        expect(a.hits.map((h) => h.id)).toEqual(b.hits.map((h) => h.id));
        a.hits.forEach((h, i) => expect(Math.abs(h.score - (b.hits[i]?.score ?? NaN))).toBeLessThan(1e-5));
      }
    });
  });
});

describe("VectorCollection.querySliced with hnswEf (Qdrant's params.hnsw_ef)", () => {
  let c: VectorCollection;
  beforeAll(async () => {
    c = await loaded('hnsw');
  });
  afterAll(() => c.close());

  it('starts the hnsw search at that ef (effort = ef ÷ max(n, efSearch)) and keeps the count and the recall', async () => {
    let wide = 0;
    let narrow = 0;
    for (const q of queries) {
      const expected = bruteForce(data, q, 10).map((i) => `v${i}`);
      const byDefault = await c.querySliced(q, 10);
      const high = await c.querySliced(q, 10, undefined, 'hnsw', { hnswEf: 400 });
      const low = await c.querySliced(q, 10, undefined, 'hnsw', { hnswEf: 10 });
      expect([byDefault.plan, high.plan, low.plan]).toEqual([
        { index: 'hnsw', path: 'index', effort: 1 },
        { index: 'hnsw', path: 'index', effort: 4 },
        { index: 'hnsw', path: 'index', effort: 0.1 },
      ]);
      expect([high.hits.length, low.hits.length]).toEqual([10, 10]);
      wide += recallAt(
        expected,
        high.hits.map((h) => h.id),
      );
      narrow += recallAt(
        expected,
        low.hits.map((h) => h.id),
      );
    }
    expect(wide / queries.length).toBeGreaterThanOrEqual(0.95);
    expect(wide).toBeGreaterThanOrEqual(narrow); // a wider search never finds fewer true neighbours here
  });

  it('leaves a flat search as it is (exact)', async () => {
    const flat = await c.querySliced(queries[0], 10, undefined, 'flat', { hnswEf: 400 });
    expect(flat.plan).toEqual({ index: 'flat', path: 'exact', effort: 1 });
  });
});

describe('VectorCollection.querySliced', () => {
  describe.each(INDEX_KINDS)('%s', (kind) => {
    let c: VectorCollection;
    beforeAll(async () => {
      c = await loaded(kind);
    });
    afterAll(() => c.close());

    it.each([
      ['unfiltered', undefined],
      ['1 % selective', { rare: true }],
      ['50 % selective', { parity: 'even' }],
      ['ranges and $ne only', { n: { $gte: 100, $lt: 3000 }, parity: { $ne: 'odd' } }],
      ['$ne only', { tags: { $ne: 't1' } }],
      ['several $in lists over an array field', { tags: { $in: ['t0', 't2', 't0'] }, parity: { $in: ['even', 'odd'] } }],
    ])('%s: the same answer as query()', async (_name, filter) => {
      const f = filter === undefined ? undefined : parseFilter(filter);
      for (const q of queries.slice(0, 10)) {
        const sliced = await c.querySliced(q, 50, f);
        expect(sliced).toEqual(await c.query(q, 50, f));
      }
    });
  });

  describe('between slices', () => {
    // 40,000 rows of 64 dimensions: an exact scan takes 10 steps (4096 rows each), so with
    // sliceMs 0 (a turn at every checkpoint) other work interleaves deterministically.
    // Rows 0–4 are the query's nearest neighbours, all in the first step.
    const seeded = mulberry32(5);
    const q = Array.from({ length: 64 }, () => seeded() - 0.5);
    let c: VectorCollection;
    beforeEach(() => {
      const rand = mulberry32(6);
      c = new VectorCollection(64, 'flat', { sliceMs: 0 });
      c.insert(
        Array.from({ length: 40_000 }, (_, i) => ({
          id: `r${i}`,
          label: i,
          embedding: i < 5 ? q.map((x) => x + (rand() - 0.5) * 1e-3) : q.map(() => rand() - 0.5),
          metadata: { n: i },
        })),
      );
    });
    afterEach(() => c.close());

    /** Runs `work` while a setImmediate chain counts event-loop turns and calls `onTurn` at each. */
    async function withTurns<T>(work: () => Promise<T>, onTurn: (turn: number) => void = () => undefined): Promise<[T, number]> {
      let turns = 0;
      let done = false;
      const tick = (): void => {
        if (done) return;
        onTurn(++turns);
        setImmediate(tick);
      };
      setImmediate(tick);
      const result = await work();
      done = true;
      return [result, turns];
    }

    it('a broad filter and the scan give the event loop turns, with the same answer', async () => {
      const conditions: Record<string, unknown> = { n: { $gte: 0 } };
      for (let i = 0; i < 40; i++) conditions[`missing_${i}`] = { $ne: 1 };
      const filter = parseFilter(conditions);
      const [sliced, turns] = await withTurns(() => c.querySliced(q, 20, filter));
      expect(turns).toBeGreaterThan(10);
      expect(sliced).toEqual(await c.query(q, 20, filter));
    });

    it('never answers a row deleted while the query waited, and still answers n rows', async () => {
      const best = (await c.query(q, 5)).hits.map((h) => h.id);
      expect([...best].sort()).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
      const [{ hits }, turns] = await withTurns(
        () => c.querySliced(q, 20),
        (turn) => {
          // After the first step the five best rows are selected: delete them.
          if (turn === 1) c.deleteLabels([0, 1, 2, 3, 4]);
        },
      );
      expect(turns).toBeGreaterThan(3);
      expect(hits).toHaveLength(20);
      expect(hits.map((h) => h.id).filter((id) => best.includes(id))).toEqual([]);
      expect(hits).toEqual((await c.query(q, 20)).hits);
    });
  });
});
