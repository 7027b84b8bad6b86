/**
 * Whether a parsed filter matches every possible row by its form, whatever the rows hold
 * (platform contract, third round: a delete by such a filter is 400 `filter_matches_all`).
 *
 * Sound: true only for filters that hold on every row, including rows without the field,
 * with a value of another type, null, an object or an array. It recognises
 * - `{}` and any `$and` of such filters (the parser leaves no clause: isMatchAll);
 * - `{"k": {"$nin": []}}`: nothing to exclude, a missing field matches too;
 * - an `$or` with an alternative that matches every row (the parser already drops such an
 *   `$or`), or whose alternatives include a condition and its complement on one field:
 *   `$exists: true` or any value ⊇ `$exists: false` or `$ne` / `$nin` of values that the
 *   `$eq` / `$in` alternatives all cover (`{"k": 1}` or `{"k": {"$ne": 1}}`), and
 *   `$isNull: true` with `$isNull: false`, `$isEmpty: true` with `$isEmpty: false`;
 * - `$not` of a filter that never matches (neverMatches: `$in: []`, `$hasId: []`, `$not`
 *   of a filter matching every row, an `$or` of such, a `$minShould` that too few of its
 *   filters can meet);
 * - `$minShould` with at least `count` filters matching every row.
 * Conditions combining several operators on one field are not analysed (taken as not
 * matching everything), so some contrived tautologies pass; the forms people write do not.
 */
import { type Clause, type Condition, type Filter, isAnyOf, isCondition, isHasId, isNot, type Scalar } from './filter';

/** The filter holds on every possible row. */
export function matchesEveryRow(filter: Filter): boolean {
  return filter.every(clauseHolds);
}

/** The filter holds on no row, by its form (conservative: false when unsure). */
export function neverMatches(filter: Filter): boolean {
  return filter.some(clauseNever);
}

function clauseNever(clause: Clause): boolean {
  if (isCondition(clause)) return clause.in !== undefined && clause.in.length === 0;
  if (isAnyOf(clause)) return clause.anyOf.every(neverMatches);
  if (isNot(clause)) return matchesEveryRow(clause.not);
  if (isHasId(clause)) return clause.hasId.length === 0;
  return clause.minShould.filter((f) => !neverMatches(f)).length < clause.count;
}

function clauseHolds(clause: Clause): boolean {
  if (isCondition(clause)) return conditionHolds(clause);
  if (isAnyOf(clause)) return clause.anyOf.some(matchesEveryRow) || complementsCover(clause.anyOf);
  if (isNot(clause)) return neverMatches(clause.not);
  if (isHasId(clause)) return false;
  return clause.minShould.filter(matchesEveryRow).length >= clause.count;
}

type Part = keyof Omit<Condition, 'key'>;

/** Parts of a condition besides its key. */
function partsOf(c: Condition): Part[] {
  return (['eq', 'in', 'nin', 'ne', 'range', 'exists', 'except', 'text', 'isNull', 'isEmpty'] as const).filter(
    (p) => c[p] !== undefined,
  );
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
 * `$exists: true`) together match every such row, the `$or` holds on every row. So do
 * `$isNull: true` and `$isNull: false` on one field (and `$isEmpty`), each the other's
 * negation.
 */
function complementsCover(alternatives: readonly Filter[]): boolean {
  const positives = new Map<string, Set<string> | 'all'>();
  const negatives = new Map<string, ValueSet[]>();
  const flags = new Set<string>();
  for (const alt of alternatives) {
    const only = alt.length === 1 ? alt[0] : undefined;
    if (only === undefined || !isCondition(only)) continue;
    const parts = partsOf(only);
    if (parts.length !== 1) continue;
    const part = parts[0];
    if (part === 'isNull' || part === 'isEmpty') {
      const flag = `${part}:${only[part] === true}:${only.key}`;
      const opposite = `${part}:${only[part] !== true}:${only.key}`;
      if (flags.has(opposite)) return true;
      flags.add(flag);
    } else if (part === 'eq' || part === 'in' || (part === 'exists' && only.exists === true)) {
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
