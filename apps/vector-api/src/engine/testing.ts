/** Seeded data for engine tests and the benchmark (never used by the service). */
export function mulberry32(seed: number): () => number {
  let st = seed >>> 0;
  return () => {
    st = (st + 0x6d2b79f5) | 0;
    let t = Math.imul(st ^ (st >>> 15), 1 | st);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function gaussian(rand: () => number): number {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

/** `count` vectors around `clusters` random centres (spread `spread`), plus each one's cluster. */
export function clusteredVectors(
  seed: number,
  count: number,
  dim: number,
  clusters: number,
  spread = 0.35,
): { vectors: number[][]; cluster: number[]; centres: number[][] } {
  const rand = mulberry32(seed);
  const centres = Array.from({ length: clusters }, () => Array.from({ length: dim }, () => gaussian(rand)));
  const vectors: number[][] = [];
  const cluster: number[] = [];
  for (let i = 0; i < count; i++) {
    const c = Math.floor(rand() * clusters);
    const centre = centres[c];
    vectors.push(centre.map((x) => x + spread * gaussian(rand) * Math.sqrt(dim) * 0.2));
    cluster.push(c);
  }
  return { vectors, cluster, centres };
}

/** Brute-force cosine top-k reference in float64 over raw vectors: ids best first (ties: smaller index). */
export function bruteForce(
  vectors: readonly number[][],
  query: readonly number[],
  k: number,
  accept: (i: number) => boolean = () => true,
): number[] {
  const norm = (v: readonly number[]): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  const qn = norm(query);
  const scored: Array<[number, number]> = [];
  vectors.forEach((v, i) => {
    if (!accept(i)) return;
    let d = 0;
    for (let j = 0; j < v.length; j++) d += v[j] * query[j];
    scored.push([i, d / (norm(v) * qn)]);
  });
  scored.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return scored.slice(0, k).map(([i]) => i);
}

export function recallAt<T>(expected: readonly T[], actual: readonly T[]): number {
  const set = new Set(actual);
  return expected.length === 0 ? 1 : expected.filter((x) => set.has(x)).length / expected.length;
}
