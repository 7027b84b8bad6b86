/**
 * Slow, obviously correct references that engine tests compare the vector engine with.
 * They share no code with apps/vector-api/src/engine, so a bug there cannot hide in both.
 */
import type { Filter, Metadata, RangeOp, Scalar } from '../../apps/vector-api/src/engine/filter';

/** Brute-force cosine top-k in float64 over raw vectors: indexes best first (ties: smaller index). */
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

/** The share of `expected` found in `actual` (1 when nothing is expected). */
export function recallAt<T>(expected: readonly T[], actual: readonly T[]): number {
  const set = new Set(actual);
  return expected.length === 0 ? 1 : expected.filter((x) => set.has(x)).length / expected.length;
}

function satisfies(v: Scalar, op: RangeOp, x: number): boolean {
  if (typeof v !== 'number') return false;
  switch (op) {
    case '$gt':
      return v > x;
    case '$gte':
      return v >= x;
    case '$lt':
      return v < x;
    case '$lte':
      return v <= x;
  }
}

/**
 * The filter semantics of the contract, one row at a time: does this row's metadata match?
 * A scalar condition on an array field means "contains"; `$ne` holds when the field is
 * missing; a range holds when one element satisfies every bound.
 */
export function matchesFilter(metadata: Metadata | undefined, filter: Filter): boolean {
  return filter.every((c) => {
    const field = metadata?.[c.key];
    const values: readonly Scalar[] = field === undefined ? [] : Array.isArray(field) ? field : [field];
    if (c.eq !== undefined && !values.includes(c.eq)) return false;
    if (c.in !== undefined && !values.some((v) => c.in?.includes(v))) return false;
    if (c.ne !== undefined && values.includes(c.ne)) return false;
    const range = c.range;
    if (range !== undefined && !values.some((v) => range.every(([op, x]) => satisfies(v, op, x)))) return false;
    return true;
  });
}
