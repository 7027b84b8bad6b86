import { measureRecall } from '../../../../test/support/metric-recall';

/** The same model and answers as with WebAssembly SIMD (ivf-metrics.spec.ts): dot 0.972, euclidean 0.979. */
describe('ivf per metric, JavaScript scan kernel', () => {
  it.each(['dot', 'euclidean'] as const)('%s: recall@10 ≥ 0.95 without WebAssembly SIMD (10,000 × 32)', async (metric) => {
    const { recall, filteredRecall, c } = await measureRecall('ivf', metric, 7, 10_000, 32, 100, { simd: false });
    try {
      expect(c.status().details.simd).toBe(0);
      expect(recall).toBeGreaterThanOrEqual(0.95);
      expect(filteredRecall).toBeGreaterThanOrEqual(0.9);
    } finally {
      c.close();
    }
  });
});
