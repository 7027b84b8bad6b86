/**
 * Brute-force references for the vector engine's metrics, in float64 over the vectors as
 * the engine stores them (float32; normalised for cosine). They share no code with
 * apps/vector-api/src/engine, so a bug there cannot hide in both.
 */
import { mulberry32 } from './random';

export type MetricName = 'cosine' | 'dot' | 'euclidean';

export interface Ranked {
  readonly index: number;
  /** Ranking key, higher is better: cosine, dot product, or −‖q − x‖². */
  readonly key: number;
  /** The contract's score: cosine clamped to [0, 1], the dot product, or 1 / (1 + ‖q − x‖). */
  readonly score: number;
}

/** The vector as float32, and normalised (in float64, then rounded) for cosine. */
export function asStored(v: readonly number[], metric: MetricName): Float32Array {
  const out = Float32Array.from(v);
  if (metric !== 'cosine') return out;
  let s = 0;
  for (const x of out) s += x * x;
  if (s === 0) return out;
  const n = Math.sqrt(s);
  return Float32Array.from(out, (x) => x / n);
}

const cache = new WeakMap<readonly number[][], Map<MetricName, Float32Array[]>>();

/** The vectors as stored, computed once per array and metric (the arrays are not changed by tests). */
function storedCache(vectors: readonly number[][], metric: MetricName): Float32Array[] {
  let byMetric = cache.get(vectors);
  if (!byMetric) cache.set(vectors, (byMetric = new Map<MetricName, Float32Array[]>()));
  let stored = byMetric.get(metric);
  if (!stored || stored.length !== vectors.length) byMetric.set(metric, (stored = vectors.map((v) => asStored(v, metric))));
  return stored;
}

/** Every accepted vector ranked for the query, best first (ties: smaller index). */
export function rankAll(
  vectors: readonly number[][],
  query: readonly number[],
  metric: MetricName,
  accept: (i: number) => boolean = () => true,
): Ranked[] {
  const q = asStored(query, metric);
  const stored = storedCache(vectors, metric);
  const out: Ranked[] = [];
  vectors.forEach((_v, index) => {
    if (!accept(index)) return;
    const x = stored[index];
    let dot = 0;
    let d2 = 0;
    for (let j = 0; j < x.length; j++) {
      dot += q[j] * x[j];
      d2 += (q[j] - x[j]) ** 2;
    }
    if (metric === 'euclidean') out.push({ index, key: -d2, score: 1 / (1 + Math.sqrt(d2)) });
    else out.push({ index, key: dot, score: metric === 'cosine' ? Math.min(1, Math.max(0, dot)) : dot });
  });
  return out.sort((a, b) => b.key - a.key || a.index - b.index);
}

/** The k best indexes of rankAll (the same order), without ranking every row. */
export function topK(
  vectors: readonly number[][],
  query: readonly number[],
  k: number,
  metric: MetricName,
  accept: (i: number) => boolean = () => true,
): number[] {
  const q = asStored(query, metric);
  const stored = storedCache(vectors, metric);
  const best: Array<[number, number]> = []; // [key, index], best first
  stored.forEach((x, index) => {
    if (!accept(index)) return;
    let key = 0;
    for (let j = 0; j < x.length; j++) key += metric === 'euclidean' ? -((q[j] - x[j]) ** 2) : q[j] * x[j];
    if (best.length === k && key <= best[k - 1][0]) return; // ties keep the smaller index
    let at = best.length;
    while (at > 0 && best[at - 1][0] < key) at--;
    best.splice(at, 0, [key, index]);
    if (best.length > k) best.pop();
  });
  return best.map(([, index]) => index);
}

/**
 * Clustered vectors for recall tests; with `varyNorms` each is scaled by a factor in
 * [0.25, 4) (log-uniform), so a dot-product ranking differs from the cosine one.
 */
export function metricVectors(
  seed: number,
  count: number,
  dim: number,
  clusters: number,
  varyNorms: boolean,
  spread = 0.5,
): number[][] {
  const rand = mulberry32(seed);
  const gauss = (): number => Math.sqrt(-2 * Math.log(Math.max(rand(), 1e-12))) * Math.cos(2 * Math.PI * rand());
  const centres = Array.from({ length: clusters }, () => Array.from({ length: dim }, gauss));
  const out: number[][] = [];
  for (let i = 0; i < count; i++) {
    const centre = centres[Math.floor(rand() * clusters)];
    const scale = varyNorms ? 4 ** (2 * rand() - 1) : 1;
    out.push(centre.map((x) => (x + spread * gauss()) * scale));
  }
  return out;
}
