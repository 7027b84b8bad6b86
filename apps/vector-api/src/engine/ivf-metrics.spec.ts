import { measureRecall } from '../../../../test/support/metric-recall';
import { METRICS } from './types';

describe('ivf per metric', () => {
  // Measured: cosine 0.977 (nprobe 7/400), dot 0.972 (11/400), euclidean 0.979 (7/400).
  it.each(METRICS)('%s: recall@10 ≥ 0.95 at the default options (10,000 × 32, held-out queries)', async (metric) => {
    const { recall, c } = await measureRecall('ivf', metric, 7, 10_000, 32);
    try {
      const status = c.status();
      expect(status.state).toBe('ready');
      expect(status.details.nprobe).toBeLessThan(status.details.nlist / 10);
      expect(recall).toBeGreaterThanOrEqual(0.95);
    } finally {
      c.close();
    }
  });
});
