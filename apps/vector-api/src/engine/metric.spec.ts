import fc from 'fast-check';
import { asStored, type MetricName, rankAll, type Ranked } from '../../../../test/support/metric-reference';
import { parseFilter } from './filter';
import { createScanKernel } from './simd';
import { METRICS, type Metric } from './types';
import { type CollectionHit, VectorCollection } from './vector-collection';

/**
 * The engine's answer against the float64 brute force: min(n, matches) hits; at each
 * position the same ranking key as the reference's (within float32 rounding, `tol`), so
 * the order is the reference's up to ties; every row clearly better than the last one
 * returned is there; each hit's score is the contract's formula for its row.
 */
function expectLikeReference(
  hits: readonly CollectionHit[],
  ranked: readonly Ranked[],
  n: number,
  metric: MetricName,
  tol: number,
): void {
  const want = Math.min(n, ranked.length);
  expect(hits).toHaveLength(want);
  if (want === 0) return;
  const byIndex = new Map(ranked.map((r) => [r.index, r]));
  const ids = hits.map((h) => Number(h.id.slice(1)));
  expect(new Set(ids).size).toBe(want);
  hits.forEach((h, i) => {
    const ref = byIndex.get(ids[i]);
    expect(ref).toBeDefined();
    if (!ref) return;
    // The contract's score for the row (float64 over the stored float32 values; cosine
    // keeps the kernel's float32 similarity, as it always has).
    const scoreTol = metric === 'cosine' ? 1e-6 : 1e-9 + 1e-6 * Math.abs(ref.score);
    expect(Math.abs(h.score - ref.score)).toBeLessThanOrEqual(scoreTol);
    // The i-th best key (ties within rounding may swap rows, never change the key sequence).
    expect(Math.abs(ref.key - ranked[i].key)).toBeLessThanOrEqual(tol);
    if (i > 0) expect(h.score).toBeLessThanOrEqual(hits[i - 1].score);
    if (metric !== 'cosine' && i > 0 && h.score === hits[i - 1].score) expect(ids[i]).toBeGreaterThan(ids[i - 1]);
  });
  const last = ranked[want - 1].key;
  const got = new Set(ids);
  for (const r of ranked) {
    if (r.key <= last + tol) break;
    expect(got.has(r.index)).toBe(true);
  }
}

/** Ranking-key tolerance: float32 dot products err by about 1e-7 × ‖q‖·‖x‖ per term. */
function tolerance(vectors: readonly number[][], query: readonly number[]): number {
  const norm = (v: readonly number[]): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  const maxNorm = Math.max(0, ...vectors.map(norm));
  const qn = norm(query);
  return 1e-5 * (1 + qn * maxNorm + qn * qn + maxNorm * maxNorm);
}

// Small integers (exact ties, equal rows), zeros and arbitrary reals.
const coordinate = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.double({ min: -10, max: 10, noNaN: true, noDefaultInfinity: true }),
);

const scenario = fc.integer({ min: 1, max: 9 }).chain((dim) =>
  fc.record({
    dim: fc.constant(dim),
    vectors: fc.array(fc.array(coordinate, { minLength: dim, maxLength: dim }), { minLength: 1, maxLength: 80, size: 'medium' }),
    query: fc.array(coordinate, { minLength: dim, maxLength: dim }),
    // n as a share of the rows, mostly below them (so the selection matters), sometimes above.
    share: fc.double({ min: 0, max: 1.3, noNaN: true }),
    deleted: fc.array(fc.nat(), { maxLength: 10 }),
    group: fc.oneof(fc.constant(undefined), fc.integer({ min: 0, max: 2 })),
  }),
);

describe('metrics: flat against a float64 brute force', () => {
  describe.each([
    ['WebAssembly SIMD', true],
    ['JavaScript fallback', false],
  ])('%s', (_name, simd) => {
    it.each(['dot', 'euclidean', 'cosine'] as const)(
      '%s: same rows in the same order (up to float32 ties), filters and deletes too, contract scores',
      async (metric) => {
        await fc.assert(
          fc.asyncProperty(scenario, async ({ dim, vectors, query, share, deleted, group }) => {
            const n = Math.max(1, Math.ceil(share * vectors.length));
            const c = new VectorCollection(dim, 'flat', { metric, simd });
            try {
              c.insert(vectors.map((embedding, i) => ({ id: `v${i}`, label: i, embedding, metadata: { g: i % 3 } })));
              const gone = new Set(deleted.map((d) => d % vectors.length));
              c.deleteLabels([...gone]);
              const accept = (i: number): boolean => !gone.has(i) && (group === undefined || i % 3 === group);
              const filter = group === undefined ? undefined : parseFilter({ g: group });
              const { hits } = await c.query(query, n, filter);
              expectLikeReference(hits, rankAll(vectors, query, metric, accept), n, metric, tolerance(vectors, query));
            } finally {
              c.close();
            }
          }),
          { numRuns: 150 },
        );
      },
    );
  });

  it('scores are the contract formulas on a known example', async () => {
    const rows = [
      [4, 3],
      [1, 0],
      [0, 0],
      [-2, 1],
    ];
    const q = [2, 1];
    const expected: Record<Metric, Array<[string, number]>> = {
      cosine: [
        ['v0', 11 / (5 * Math.sqrt(5))],
        ['v1', 2 / Math.sqrt(5)],
        ['v2', 0],
        ['v3', 0],
      ],
      dot: [
        ['v0', 11],
        ['v1', 2],
        ['v2', 0],
        ['v3', -3],
      ],
      euclidean: [
        ['v1', 1 / (1 + Math.sqrt(2))],
        ['v2', 1 / (1 + Math.sqrt(5))],
        ['v0', 1 / (1 + Math.sqrt(8))],
        ['v3', 1 / (1 + 4)],
      ],
    };
    for (const metric of METRICS) {
      const c = new VectorCollection(2, 'flat', { metric });
      expect(c.metric).toBe(metric);
      c.insert(rows.map((embedding, i) => ({ id: `v${i}`, label: i, embedding })));
      const { hits } = await c.query(q, 4);
      expect(hits.map((h) => h.id)).toEqual(expected[metric].map(([id]) => id));
      hits.forEach((h, i) => expect(h.score).toBeCloseTo(expected[metric][i][1], 6));
      c.close();
    }
    expect(new VectorCollection(2, 'flat').metric).toBe('cosine');
  });

  it('stores raw vectors for dot and euclidean, normalised for cosine', () => {
    for (const metric of METRICS) {
      const c = new VectorCollection(3, 'flat', { metric });
      c.insert([{ id: 'a', label: 0, embedding: [3, 0, 4] }]);
      expect([...c.exportBlock(0, 1).vectors]).toEqual([...asStored([3, 0, 4], metric)]);
      c.close();
    }
  });
});

describe('metrics: scan kernel', () => {
  it.each([true, false])('euclidean kernel (simd %s) scores q·x − ‖x‖²/2 and retires cleared rows', (simd) => {
    const k = createScanKernel(5, 4, { simd, metric: 'euclidean' });
    const rows = [
      [1, 2, 3, 4, 5],
      [0, 0, 0, 0, 0],
      [-1, 0.5, 2, 0, 1],
      [10, 10, 10, 10, 10],
      [0.1, 0.2, 0.3, 0.4, 0.5],
    ];
    rows.forEach((r, i) => k.set(i, r)); // grows past its capacity of 4
    const q = Float32Array.from([0.5, 1, 1.5, 2, 2.5]);
    const sim = (r: number[]): number => r.reduce((s, x, j) => s + x * q[j] - (x * x) / 2, 0);
    const order = rows.map((r, i) => [i, sim(r)] as const).sort((a, b) => b[1] - a[1]);
    const res = k.scan(q, 5);
    expect([...res.labels]).toEqual(order.map(([i]) => i));
    order.forEach(([, s], i) => expect(res.scores[i]).toBeCloseTo(s, 3));
    expect(k.bias(0)).toBeCloseTo(55 / 2, 10);
    k.clear(4);
    expect(k.bias(4)).toBe(Infinity);
    expect([...k.scan(q, 5, (r) => r !== 4).labels]).not.toContain(4);
    // a reload recomputes the norms
    k.load(Float32Array.from([2, 0, 0, 0, 0, 1, 0, 0, 0, 0]), 2);
    expect(k.bias(0)).toBe(2);
    expect(k.bias(1)).toBe(0.5);
    expect([...k.scan(Float32Array.from([1, 0, 0, 0, 0]), 2).labels]).toEqual([1, 0]);
  });
});
