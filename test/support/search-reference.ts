/**
 * Slow, obviously correct references that engine tests compare the vector engine with.
 * They share no code with apps/vector-api/src/engine, so a bug there cannot hide in both.
 */
import type { Metadata, Scalar } from '../../apps/vector-api/src/engine/filter';

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

function satisfies(v: Scalar, op: string, x: unknown): boolean {
  if (typeof v !== 'number' || typeof x !== 'number') return false;
  switch (op) {
    case '$gt':
      return v > x;
    case '$gte':
      return v >= x;
    case '$lt':
      return v < x;
    case '$lte':
      return v <= x;
    default:
      throw new Error(`not a range operator: ${op}`);
  }
}

/** One field's condition (the raw JSON) against the field's values ([] when missing). */
function conditionHolds(values: readonly Scalar[], present: boolean, condition: unknown): boolean {
  if (typeof condition !== 'object' || condition === null) return values.includes(condition as Scalar);
  const ops = Object.entries(condition);
  const bounds = ops.filter(([op]) => op.startsWith('$g') || op.startsWith('$l'));
  if (bounds.length > 0 && !values.some((v) => bounds.every(([op, x]) => satisfies(v, op, x)))) return false;
  for (const [op, arg] of ops) {
    if (op === '$eq' && !values.includes(arg as Scalar)) return false;
    if (op === '$in' && !values.some((v) => (arg as Scalar[]).includes(v))) return false;
    if (op === '$nin' && values.some((v) => (arg as Scalar[]).includes(v))) return false;
    if (op === '$ne' && values.includes(arg as Scalar)) return false;
    if (op === '$exists' && present !== arg) return false;
  }
  return true;
}

/**
 * The filter semantics of the contract, one row at a time, read straight from the filter's
 * JSON (valid per parseFilter): does this row's metadata match? Every key must hold;
 * `$and` / `$or` combine filters; a scalar condition on an array field means "contains";
 * `$ne` and `$nin` hold when the field is missing; a range holds when one element satisfies
 * every bound; `$exists` tests presence.
 */
export function matchesFilter(metadata: Metadata | undefined, filter: unknown): boolean {
  return Object.entries(filter as Record<string, unknown>).every(([key, condition]) => {
    if (key === '$and') return (condition as unknown[]).every((f) => matchesFilter(metadata, f));
    if (key === '$or') return (condition as unknown[]).some((f) => matchesFilter(metadata, f));
    const present = metadata !== undefined && Object.prototype.hasOwnProperty.call(metadata, key);
    const field = present ? metadata[key] : undefined;
    const values = (field === undefined ? [] : Array.isArray(field) ? field : [field]) as readonly Scalar[]; // flat metadata only
    return conditionHolds(values, present, condition);
  });
}
