/**
 * Whether a parsed filter matches every possible row by its form, whatever the rows hold
 * (platform contract, third round: a delete by such a filter is 400 `filter_matches_all`).
 *
 * Sound: true only for filters that hold on every row, including rows without the field,
 * with a value of another type, or with an array. It recognises
 * - `{}` and any `$and` of such filters (the parser leaves no clause: isMatchAll);
 * - `{"k": {"$nin": []}}`: nothing to exclude, a missing field matches too;
 * - an `$or` with an alternative that matches every row (the parser already drops such an
 *   `$or`), or whose alternatives include a condition and its complement on one field:
 *   `$exists: true` or any value ⊇ `$exists: false` or `$ne` / `$nin` of values that the
 *   `$eq` / `$in` alternatives all cover (`{"k": 1}` or `{"k": {"$ne": 1}}`).
 * Conditions combining several operators on one field are not analysed (taken as not
 * matching everything), so some contrived tautologies pass; the forms people write do not.
 */
import { type Clause, type Condition, type Filter, isAnyOf, type Scalar } from './filter';

/** The filter holds on every possible row. */
export function matchesEveryRow(filter: Filter): boolean {
  return filter.every(clauseHolds);
}

function clauseHolds(clause: Clause): boolean {
  if (!isAnyOf(clause)) return conditionHolds(clause);
  return clause.anyOf.some(matchesEveryRow) || complementsCover(clause.anyOf);
}

/** Parts of a condition besides its key. */
function partsOf(c: Condition): Array<keyof Omit<Condition, 'key'>> {
  return (['eq', 'in', 'nin', 'ne', 'range', 'exists'] as const).filter((p) => c[p] !== undefined);
}

/** Every part must hold on every row: only an empty `$nin` does. */
function conditionHolds(c: Condition): boolean {
  const parts = partsOf(c);
  return parts.length > 0 && parts.every((p) => p === 'nin' && c.nin?.length === 0);
}

/** Values are the same when of the same type and equal (`1` and `"1"` differ; -0 is 0). */
const valueKey = (v: Scalar): string => `${typeof v}:${String(v)}`;

/** Every present value (`all`), or the values a field equals or contains. */
type ValueSet = 'all' | ReadonlySet<string>;

const within = (inner: ValueSet, outer: ValueSet): boolean =>
  outer === 'all' || (inner !== 'all' && [...inner].every((v) => outer.has(v)));

/**
 * An `$or` whose single-condition alternatives on one field cover every row: a "negative"
 * (`$ne: v`, `$nin: [..]`, `$exists: false`, which also match rows without the field)
 * excludes only rows whose field equals or contains one of a set of values (every present
 * value, for `$exists: false`); when the "positive" alternatives (`k: v`, `$in`,
 * `$exists: true`) together match every such row, the `$or` holds on every row.
 */
function complementsCover(alternatives: readonly Filter[]): boolean {
  const positives = new Map<string, Set<string> | 'all'>();
  const negatives = new Map<string, ValueSet[]>();
  for (const alt of alternatives) {
    const only = alt.length === 1 ? alt[0] : undefined;
    if (only === undefined || isAnyOf(only)) continue;
    const parts = partsOf(only);
    if (parts.length !== 1) continue;
    const part = parts[0];
    if (part === 'eq' || part === 'in' || (part === 'exists' && only.exists === true)) {
      const values: ValueSet =
        part === 'exists' ? 'all' : new Set((part === 'eq' ? [only.eq as Scalar] : (only.in ?? [])).map(valueKey));
      const known = positives.get(only.key);
      if (known === 'all' || values === 'all') positives.set(only.key, 'all');
      else positives.set(only.key, new Set([...(known ?? []), ...values]));
    } else if (part === 'ne' || part === 'nin' || (part === 'exists' && only.exists === false)) {
      const excluded: ValueSet =
        part === 'exists' ? 'all' : new Set((part === 'ne' ? [only.ne as Scalar] : (only.nin ?? [])).map(valueKey));
      negatives.set(only.key, [...(negatives.get(only.key) ?? []), excluded]);
    }
  }
  for (const [key, excludedSets] of negatives) {
    const covered = positives.get(key);
    if (covered !== undefined && excludedSets.some((excluded) => within(excluded, covered))) return true;
  }
  return false;
}
