/**
 * Seeded randomness for tests and benchmarks: the same seed gives the same numbers on every
 * run and machine. (engine/ivf-train.ts keeps its own inline copy of mulberry32: it runs in
 * a worker thread from its source text and may reference nothing outside itself.)
 */

/** mulberry32: a small, fast 32-bit generator of uniform numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let st = seed >>> 0;
  return () => {
    st = (st + 0x6d2b79f5) | 0;
    let t = Math.imul(st ^ (st >>> 15), 1 | st);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal number (Box–Muller) from a uniform generator. */
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
