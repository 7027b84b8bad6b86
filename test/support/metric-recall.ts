import { parseFilter } from '../../apps/vector-api/src/engine/filter';
import { type CollectionOptions, VectorCollection } from '../../apps/vector-api/src/engine/vector-collection';
import type { Metric } from '../../apps/vector-api/src/engine/types';
import { metricVectors, topK } from './metric-reference';
import { recallAt } from './search-reference';

/**
 * recall@10 of an index at its default options, on held-out queries, against the float64
 * brute force of the metric: `count` clustered rows of `dim` (50 clusters, for dot with
 * norms varied over [0.25, 4)), then `queries` more vectors as queries. Every query must
 * be answered by the index (not an exact fallback) with 10 hits. `filteredRecall`: the
 * same queries with a filter matching half of the rows (exactly 10 matching hits each,
 * or it throws). The caller closes `c`.
 */
export async function measureRecall(
  kind: 'ivf' | 'hnsw',
  metric: Metric,
  seed: number,
  count: number,
  dim: number,
  queries = 100,
  options: CollectionOptions = {},
): Promise<{ recall: number; filteredRecall: number; c: VectorCollection }> {
  const vectors = metricVectors(seed, count + queries, dim, 50, metric === 'dot', 0.8);
  const data = vectors.slice(0, count);
  const c = new VectorCollection(dim, kind, {
    ...options,
    metric,
    onError: (err) => {
      throw err;
    },
  });
  c.insert(data.map((embedding, i) => ({ id: `v${i}`, label: i, embedding, metadata: { g: i % 2 } })));
  await c.idle();
  let recall = 0;
  let filteredRecall = 0;
  let viaIndex = 0;
  const filter = parseFilter({ g: 0 });
  for (const q of vectors.slice(count)) {
    const { hits, plan } = await c.query(q, 10);
    if (plan.path === 'index' && hits.length === 10) viaIndex++;
    recall += recallAt(
      topK(data, q, 10, metric).map((i) => `v${i}`),
      hits.map((h) => h.id),
    );
    const filtered = (await c.query(q, 10, filter)).hits;
    if (filtered.length !== 10 || filtered.some((h) => h.metadata.g !== 0)) throw new Error('a filtered query came back short');
    filteredRecall += recallAt(
      topK(data, q, 10, metric, (i) => i % 2 === 0).map((i) => `v${i}`),
      filtered.map((h) => h.id),
    );
  }
  if (viaIndex !== queries) throw new Error(`${queries - viaIndex} queries were not answered by the ${kind} index`);
  return { recall: recall / queries, filteredRecall: filteredRecall / queries, c };
}
