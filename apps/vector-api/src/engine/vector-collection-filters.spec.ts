import fc from 'fast-check';
import { clusteredVectors, mulberry32 } from '../../../../test/support/random';
import { bruteForce, matchesFilter } from '../../../../test/support/search-reference';
import { type Metadata, parseFilter } from './filter';
import { MAX_FILTER } from './filter-limits';
import { INDEX_KINDS, type IndexKind } from './types';
import { type CollectionRow, VectorCollection } from './vector-collection';

/**
 * Nested filters ($and, $or, $nin, $exists …) through VectorCollection.query: exactly
 * min(n, matching rows) results, all matching, ordered by score, and for flat the
 * brute-force top n of the matching rows.
 */
const DIM = 8;
const COUNT = 3000;
const { vectors } = clusteredVectors(77, COUNT + 20, DIM, 20);
const data = vectors.slice(0, COUNT);
const queries = vectors.slice(COUNT);
const rand = mulberry32(78);
const CATEGORIES = ['a', 'b', 'c', 'd', 'e'];
const metas: Metadata[] = data.map((_, i) => {
  const m: Metadata = { cat: CATEGORIES[Math.floor(rand() * 5)], n: Math.floor(rand() * 100) };
  if (rand() < 0.7) m.tags = CATEGORIES.filter(() => rand() < 0.3); // [] sometimes
  if (rand() < 0.5) m.flag = rand() < 0.5;
  if (i % 97 === 3) m.rare = 'yes';
  return m;
});
const rows: CollectionRow[] = data.map((embedding, i) => ({ id: `v${i}`, label: i, embedding, metadata: metas[i] }));

const key = fc.constantFrom('cat', 'n', 'tags', 'flag', 'rare', 'none');
const scalar = fc.oneof(fc.constantFrom(...CATEGORIES, 'yes'), fc.integer({ min: 0, max: 99 }), fc.boolean());
const bound = fc.integer({ min: -1, max: 100 });
const cond = fc.oneof(
  scalar,
  fc.record({ $in: fc.array(scalar, { maxLength: 4 }) }),
  fc.record({ $nin: fc.array(scalar, { maxLength: 3 }) }),
  fc.record({ $ne: scalar }),
  fc.record({ $exists: fc.boolean() }),
  fc.record({ $gte: bound, $lt: bound }, { requiredKeys: [] }).filter((o) => Object.keys(o).length > 0),
);
const fields = fc.dictionary(key, cond, { maxKeys: 2 });
const filterFrom = (depth: number): fc.Arbitrary<Record<string, unknown>> => {
  if (depth === MAX_FILTER.depth) return fields;
  return fc
    .tuple(
      fields,
      fc.constantFrom('$and', '$or'),
      fc.option(fc.array(filterFrom(depth + 1), { minLength: 1, maxLength: 2 }), { freq: 2, nil: undefined }),
    )
    .map(([f, op, children]) => (children === undefined ? f : { ...f, [op]: children }));
};
const filter = filterFrom(1);

describe.each(INDEX_KINDS)('%s: nested filters through query (property)', (kind: IndexKind) => {
  let c: VectorCollection;
  beforeAll(async () => {
    c = new VectorCollection(DIM, kind, { ivf: { minRows: 1000 }, exactFilterRows: 100, exactFilterFraction: 0.02 });
    c.insert(rows);
    await c.idle();
  });
  afterAll(() => c.close());

  it('is ready (the index answers, not an exact scan by accident)', () => {
    expect(c.status().state).toBe('ready');
  });

  it('exactly min(n, matches) rows, all matching, best first (for flat: the brute-force top n)', async () => {
    const paths = { exact: 0, index: 0 };
    await fc.assert(
      fc.asyncProperty(filter, fc.nat(queries.length - 1), fc.constantFrom(1, 10, 100), async (f, qi, n) => {
        const accept = (i: number): boolean => matchesFilter(metas[i], f);
        const matching = data.map((_, i) => i).filter(accept);
        const parsed = parseFilter(f);
        expect(c.matchingLabels(parsed)).toEqual(matching);
        const q = queries[qi];
        const { hits, plan } = await c.query(q, n, parsed);
        paths[plan.path]++;
        expect(hits).toHaveLength(Math.min(n, matching.length));
        expect(hits.every((h) => accept(Number(h.id.slice(1))))).toBe(true);
        expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
        for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
        if (kind === 'flat') {
          const expected = bruteForce(data, q, n, accept);
          // Ties aside: the same scores in the same order.
          hits.forEach((h, i) => expect(Math.abs(h.score - Math.max(0, score(data[expected[i]], q)))).toBeLessThan(1e-5));
        }
      }),
      { numRuns: 100 },
    );
    // Both planner paths were taken: the exact scan of the matches and the index's search.
    expect(paths.exact).toBeGreaterThan(0);
    if (kind !== 'flat') expect(paths.index).toBeGreaterThan(10);
  });
});

function score(v: readonly number[], q: readonly number[]): number {
  let d = 0;
  let nv = 0;
  let nq = 0;
  for (let i = 0; i < v.length; i++) {
    d += v[i] * q[i];
    nv += v[i] * v[i];
    nq += q[i] * q[i];
  }
  return d / Math.sqrt(nv * nq);
}

describe('a filter with $or on a large table runs in slices', () => {
  it('gives the event loop turns and answers as query()', async () => {
    const r = mulberry32(9);
    const c = new VectorCollection(4, 'flat', { sliceMs: 0 });
    c.insert(
      Array.from({ length: 60_000 }, (_, i) => ({
        id: `r${i}`,
        label: i,
        embedding: [r(), r(), r(), r()],
        metadata: { n: i % 1000, p: i % 2 === 0 ? 'even' : 'odd', t: [`t${i % 7}`] },
      })),
    );
    const f = parseFilter({
      $or: [{ p: 'even', n: { $gte: 10 } }, { t: { $nin: ['t1', 't2'] } }, { missing: { $exists: true } }],
      n: { $ne: 5 },
    });
    const expected = Array.from({ length: 60_000 }, (_, i) => i).filter(
      (i) => ((i % 2 === 0 && i % 1000 >= 10) || (i % 7 !== 1 && i % 7 !== 2)) && i % 1000 !== 5,
    );
    expect(c.matchingLabels(f)).toEqual(expected);
    let turns = 0;
    let done = false;
    const tick = (): void => {
      if (done) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const sliced = await c.querySliced([1, 0, 0, 0], 20, f);
    done = true;
    expect(turns).toBeGreaterThan(5);
    expect(sliced).toEqual(await c.query([1, 0, 0, 0], 20, f));
    c.close();
  });
});
