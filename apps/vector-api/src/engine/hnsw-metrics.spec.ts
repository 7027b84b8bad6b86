import { measureRecall } from '../../../../test/support/metric-recall';
import { METRICS } from './types';

describe('hnsw per metric', () => {
  // Measured: recall@10 1.000 for all three (ef = 100 on 10,000 rows; candidates rescored
  // exactly); with a filter matching half of the rows 1.000 (dot: 0.997 with a third).
  it.each(METRICS)('%s: recall@10 ≥ 0.95 at the default options (10,000 × 32, held-out queries)', async (metric) => {
    const { recall, filteredRecall, c } = await measureRecall('hnsw', metric, 8, 10_000, 32);
    try {
      expect(c.status().state).toBe('ready');
      expect(recall).toBeGreaterThanOrEqual(0.95);
      expect(filteredRecall).toBeGreaterThanOrEqual(0.95);
    } finally {
      c.close();
    }
  });
});
