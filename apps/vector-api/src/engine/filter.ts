/**
 * Metadata and the filter language (platform contract, "Vector service decisions" and
 * "Vector API, more").
 *
 * Metadata values are strings, numbers, booleans or arrays of those. Values are the same
 * when of the same type and equal (`1` and `"1"` differ, `-0` is `0`); strings compare
 * exactly.
 *
 * A filter is an object; every key of it must hold (AND). A key is either a field name with
 * a condition, or `$and` / `$or` with a non-empty array of filters:
 * - `{"$and": [f1, f2, …]}`: every fi holds; `{"$or": [f1, f2, …]}`: at least one does.
 *   They stand beside field keys (`{"genre": "jazz", "$or": [..]}`: both must hold). Any
 *   other `$`-key at this level is refused.
 * - a field's condition is a scalar (equality; for an array field: the array contains it)
 *   or an operator object whose operators must all hold:
 *   - `$eq` (a scalar): the same as the bare value (Pinecone's spelling);
 *   - `$in` (array of scalars): the field equals one of them (array field: contains one;
 *     `[]` matches nothing);
 *   - `$nin` (array of scalars): the field equals none of them (array field: contains none;
 *     a missing field matches; `[]` matches every row);
 *   - `$ne` (scalar): the field does not equal it (array field: does not contain it; a
 *     missing field matches, as MongoDB);
 *   - `$gt`, `$gte`, `$lt`, `$lte` (numbers only): the field is a number in range (array
 *     field: one element satisfies every bound of the object);
 *   - `$exists` (boolean): `true` the field is present, whatever its value (`[]` too);
 *     `false` it is absent.
 * - A missing field matches only `$ne`, `$nin` and `$exists: false`.
 * - Logical depth: the filter is depth 1, each element of `$and` / `$or` one deeper than the
 *   filter holding it; at most MAX_FILTER.depth (8). Deeper is FilterLimitError, as are the
 *   size limits of filter-limits.ts (checked first, without recursion).
 * - `{}` matches every row, as an element of `$and` too; as an element of `$or` it makes
 *   the `$or` match every row.
 *
 * Errors (FilterError, FilterLimitError) name the offending part as a path with indexes:
 * `filter.$or[1].year.$gt`.
 *
 * A parsed Filter is a list of clauses, all of which must hold: conditions on one field, and
 * `anyOf` groups (an `$or`: one of its filters must hold). `$and` is flattened into the
 * list holding it, an `$or` of one filter too, and an `$or` of an `$or` into one group; an
 * empty list matches every row (isMatchAll).
 */
import { runToEnd, type Steps } from './background';
import { checkFilterLimits, filterTooDeep, MAX_FILTER } from './filter-limits';

export type Scalar = string | number | boolean;
export type MetadataValue = Scalar | Scalar[];
export type Metadata = Record<string, MetadataValue>;

export type RangeOp = '$gt' | '$gte' | '$lt' | '$lte';
/** One field's condition: every part given must hold. */
export interface Condition {
  readonly key: string;
  readonly eq?: Scalar;
  readonly in?: readonly Scalar[];
  readonly nin?: readonly Scalar[];
  readonly ne?: Scalar;
  readonly range?: ReadonlyArray<readonly [RangeOp, number]>;
  readonly exists?: boolean;
}
/** An `$or`: at least one of the filters holds (at least two of them, each not matching all). */
export interface AnyOf {
  readonly anyOf: readonly Filter[];
}
export type Clause = Condition | AnyOf;
/** Every clause must hold; `[]` matches every row. */
export type Filter = readonly Clause[];

export const isAnyOf = (c: Clause): c is AnyOf => 'anyOf' in c;

/** The filter matches every row (`{}`, or only `$and` / `$or` of such). */
export const isMatchAll = (filter: Filter): boolean => filter.length === 0;

/** The filter has no `$or` (a list of conditions only). */
const isFlat = (filter: Filter): filter is readonly Condition[] => filter.every((c) => !isAnyOf(c));

/** A filter or metadata that breaks the rules; `path` names the offending part. */
export class FilterError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'FilterError';
  }
}

const isScalar = (v: unknown): v is Scalar =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const RANGE_OPS: readonly RangeOp[] = ['$gt', '$gte', '$lt', '$lte'];
const OPERATORS = new Set(['$eq', '$in', '$nin', '$ne', ...RANGE_OPS, '$exists']);
const OPERATOR_LIST = '$eq, $in, $nin, $ne, $gt, $gte, $lt, $lte or $exists';

/** Checks a metadata object (from the API) and returns it typed. */
export function parseMetadata(value: unknown, path: string): Metadata {
  if (!isPlainObject(value)) throw new FilterError(path, `${path} must be an object`);
  for (const [key, v] of Object.entries(value)) {
    if (isScalar(v)) continue;
    if (Array.isArray(v) && v.every(isScalar)) continue;
    throw new FilterError(`${path}.${key}`, `${path}.${key} must be a string, a finite number, a boolean or an array of those`);
  }
  return value as Metadata;
}

/**
 * Parses the API's filter object into clauses. A filter over MAX_FILTER (size, nesting,
 * logical depth) throws FilterLimitError, checked first in one pass without recursion; any
 * other mistake throws FilterError naming its path.
 */
export function parseFilter(value: unknown, path = 'filter'): Filter {
  const tooLarge = checkFilterLimits(value, path);
  if (tooLarge) throw tooLarge;
  return parseNode(value, path, 1);
}

/** One filter object at logical depth `depth` (≤ MAX_FILTER.depth, which bounds the recursion). */
function parseNode(value: unknown, path: string, depth: number): Clause[] {
  if (depth > MAX_FILTER.depth) throw filterTooDeep(path);
  if (!isPlainObject(value)) throw new FilterError(path, `${path} must be an object`);
  const clauses: Clause[] = [];
  for (const [key, raw] of Object.entries(value)) {
    const p = `${path}.${key}`;
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(raw) || raw.length === 0) throw new FilterError(p, `${p} must be a non-empty array of filter objects`);
      const parts = raw.map((f, i) => parseNode(f, `${p}[${i}]`, depth + 1));
      if (key === '$and') {
        for (const part of parts) clauses.push(...part);
      } else {
        // An alternative matching every row makes the `$or` match every row; an alternative
        // that is itself only an `$or` joins this one.
        if (parts.some(isMatchAll)) continue;
        const alternatives: Filter[] = [];
        for (const part of parts) {
          const only = part.length === 1 ? part[0] : undefined;
          if (only !== undefined && isAnyOf(only)) alternatives.push(...only.anyOf);
          else alternatives.push(part);
        }
        if (alternatives.length === 1) clauses.push(...alternatives[0]);
        else clauses.push({ anyOf: alternatives });
      }
      continue;
    }
    if (key.startsWith('$'))
      throw new FilterError(
        p,
        `${p}: unknown logical operator; a filter takes $and and $or, other operators go inside a field's condition, e.g. {"price": {"$lt": 10}}`,
      );
    clauses.push(...parseCondition(key, raw, p));
  }
  return clauses;
}

/** A field's condition; `$eq` (the bare value's equality, as Pinecone writes it) is a condition of its own. */
function parseCondition(key: string, raw: unknown, p: string): Condition[] {
  if (isScalar(raw)) return [{ key, eq: raw }];
  if (!isPlainObject(raw)) throw new FilterError(p, `${p} must be a string, number, boolean or an operator object`);
  const ops = Object.entries(raw);
  if (ops.length === 0) throw new FilterError(p, `${p} must not be an empty object`);
  const range: Array<[RangeOp, number]> = [];
  const equal: Condition[] = [];
  let cond: { key: string; in?: Scalar[]; nin?: Scalar[]; ne?: Scalar; exists?: boolean } = { key };
  for (const [op, arg] of ops) {
    const po = `${p}.${op}`;
    if (!OPERATORS.has(op))
      throw new FilterError(
        po,
        `${po}: unknown operator; use ${OPERATOR_LIST} (and $and / $or beside field names, to combine filters)`,
      );
    if (op === '$eq') {
      if (!isScalar(arg)) throw new FilterError(po, `${po} must be a string, number or boolean`);
      equal.push({ key, eq: arg });
    } else if (op === '$in' || op === '$nin') {
      if (!Array.isArray(arg) || !arg.every(isScalar))
        throw new FilterError(po, `${po} must be an array of strings, numbers or booleans`);
      cond = op === '$in' ? { ...cond, in: arg } : { ...cond, nin: arg };
    } else if (op === '$ne') {
      if (!isScalar(arg)) throw new FilterError(po, `${po} must be a string, number or boolean`);
      cond = { ...cond, ne: arg };
    } else if (op === '$exists') {
      if (typeof arg !== 'boolean') throw new FilterError(po, `${po} must be true or false`);
      cond = { ...cond, exists: arg };
    } else {
      if (typeof arg !== 'number' || !Number.isFinite(arg)) throw new FilterError(po, `${po} must be a finite number`);
      range.push([op as RangeOp, arg]);
    }
  }
  const rest = range.length > 0 ? { ...cond, range } : cond;
  return Object.keys(rest).length > 1 ? [...equal, rest] : equal;
}

function inRange(v: Scalar, range: ReadonlyArray<readonly [RangeOp, number]>): boolean {
  if (typeof v !== 'number') return false;
  for (const [op, x] of range) {
    if (op === '$gt' && !(v > x)) return false;
    if (op === '$gte' && !(v >= x)) return false;
    if (op === '$lt' && !(v < x)) return false;
    if (op === '$lte' && !(v <= x)) return false;
  }
  return true;
}

/** A row's field as the filter sees it: a scalar, an array of scalars, or undefined (missing). */
function fieldOf(metadata: Metadata | undefined, key: string): MetadataValue | undefined {
  const field = metadata?.[key];
  // Only own data is metadata: an inherited Object.prototype member (a function) is not a field.
  return typeof field === 'function' || (typeof field === 'object' && !Array.isArray(field)) ? undefined : field;
}

function containsMatch(field: MetadataValue, test: (v: Scalar) => boolean): boolean {
  if (!Array.isArray(field)) return test(field);
  for (let i = 0; i < field.length; i++) if (test(field[i])) return true;
  return false;
}

/**
 * One condition as a test of a row's field, with the semantics of the module comment:
 * equality and `$in` hold when the field (an element of an array field) is the value;
 * `$ne` and `$nin` when no element is; a range when one element satisfies every bound;
 * `$exists` on whether the field is there. Values are the same when of the same type and
 * equal (`1` and `"1"` differ), as a Set's SameValueZero compares them.
 */
function compileCondition(c: Condition): (field: MetadataValue | undefined) => boolean {
  const eq = c.eq;
  if (eq !== undefined) return (field) => field !== undefined && (Array.isArray(field) ? field.includes(eq) : field === eq);
  const wanted = c.in === undefined ? undefined : new Set<Scalar>(c.in);
  const unwanted = c.nin === undefined || c.nin.length === 0 ? undefined : new Set<Scalar>(c.nin);
  const ne = c.ne;
  const range = c.range;
  const exists = c.exists;
  const isWanted = (v: Scalar): boolean => (wanted as Set<Scalar>).has(v);
  const isUnwanted = (v: Scalar): boolean => (unwanted as Set<Scalar>).has(v);
  const inRangeTest = (v: Scalar): boolean => inRange(v, range as ReadonlyArray<readonly [RangeOp, number]>);
  // A missing field holds for `$ne`, `$nin` and `$exists: false` only.
  const missing = wanted === undefined && range === undefined && exists !== true;
  return (field) => {
    if (field === undefined) return missing;
    if (exists === false) return false;
    if (wanted !== undefined && !containsMatch(field, isWanted)) return false;
    if (ne !== undefined && (Array.isArray(field) ? field.includes(ne) : field === ne)) return false;
    if (unwanted !== undefined && containsMatch(field, isUnwanted)) return false;
    if (range !== undefined && !containsMatch(field, inRangeTest)) return false;
    return true;
  };
}

/** One predicate over a row's metadata for the whole filter (every clause must hold). */
export function compileFilter(filter: Filter): (metadata: Metadata | undefined) => boolean {
  if (isFlat(filter)) {
    const keys = filter.map((c) => c.key);
    const tests = filter.map(compileCondition);
    return (metadata) => {
      for (let i = 0; i < tests.length; i++) if (!tests[i](fieldOf(metadata, keys[i]))) return false;
      return true;
    };
  }
  const tests = filter.map((c): ((metadata: Metadata | undefined) => boolean) => {
    if (isAnyOf(c)) {
      const alternatives = c.anyOf.map(compileFilter);
      return (metadata) => alternatives.some((test) => test(metadata));
    }
    const test = compileCondition(c);
    return (metadata) => test(fieldOf(metadata, c.key));
  });
  return (metadata) => tests.every((test) => test(metadata));
}

/** Conditions in the filter, `$or` alternatives included: the cost of checking a row against it. */
export function filterCost(filter: Filter): number {
  let cost = 0;
  for (const c of filter) cost += isAnyOf(c) ? c.anyOf.reduce((sum, f) => sum + filterCost(f), 0) : 1;
  return cost;
}

/** What the filter evaluation reads of the table besides the inverted index. */
export interface FilterRows {
  /** One past the largest label ever stored. */
  readonly size: number;
  isAlive(label: number): boolean;
  /** The row's metadata (may be a fresh object per call: read it once per row). */
  metadata(label: number): Metadata | undefined;
  /**
   * One field of the row's metadata, as `metadata(label)` holds it (undefined for a missing
   * field or an object); a table whose metadata is kept as JSON finds it without parsing
   * the rest (row-catalog.ts). Without it, filters read `metadata(label)`.
   */
  field?(label: number, key: string): MetadataValue | undefined;
}

/** A row's field through FilterRows. */
function rowField(rows: FilterRows, label: number, key: string): MetadataValue | undefined {
  return rows.field ? rows.field(label, key) : fieldOf(rows.metadata(label), key);
}

/** compileFilter over the rows of a FilterRows, by label: reads only the fields the filter names. */
function compileRowFilter(filter: Filter, rows: FilterRows): (label: number) => boolean {
  if (!rows.field) {
    const matches = compileFilter(filter);
    return (label) => matches(rows.metadata(label));
  }
  const tests = filter.map((c): ((label: number) => boolean) => {
    if (isAnyOf(c)) {
      const alternatives = c.anyOf.map((f) => compileRowFilter(f, rows));
      return (label) => alternatives.some((test) => test(label));
    }
    const test = compileCondition(c);
    const key = c.key;
    return (label) => test(rowField(rows, label, key));
  });
  return (label) => {
    for (let i = 0; i < tests.length; i++) if (!tests[i](label)) return false;
    return true;
  };
}

/**
 * Work between two checkpoints of a sliced evaluation, in condition tests (a row checked
 * against a 64-condition filter is 64): well under a millisecond.
 */
const TESTS_PER_STEP = 8192;

/** One part of a condition as the inverted index answers it: the posting lists of the rows it holds for. */
interface Atom {
  readonly sets: ReadonlyArray<Iterable<number>>;
  /** Sum of the lists' sizes (a row in two lists counts twice). */
  readonly size: number;
}

/**
 * A set of rows as the evaluation of a filter with `$or` carries it: `labels` (distinct,
 * below the table's size at the start, in no order) or, `negated`, every live row except
 * those. So a negation (`$ne`, `$nin`, `$exists: false`) costs its postings, not the table.
 */
interface LabelSet {
  readonly negated: boolean;
  readonly labels: number[];
}

/** State of one evaluation of a filter with `$or`. */
interface TreeContext {
  readonly rows: FilterRows;
  readonly size: number;
  /** marks[label] === epoch: the label is in the set marked last under that epoch. */
  readonly marks: Uint32Array;
  epoch: number;
  /** Work since the last checkpoint. */
  work: number;
}

const EVERY_ROW: LabelSet = { negated: true, labels: [] };
const NO_ROW: LabelSet = { negated: false, labels: [] };

/**
 * How many distinct values the inverted index keeps (docs/vector.md, "Filters: indexed and
 * scanned keys"; decision 153). Past either budget a key is no longer indexed: conditions on
 * it are answered by reading the rows' metadata instead (exact, slower: a walk of the table).
 */
export interface IndexBudget {
  /** Distinct values of one key (VECTOR_INDEX_MAX_DISTINCT_VALUES_PER_KEY). */
  readonly distinctValuesPerKey: number;
  /** Distinct (key, value) pairs of the whole table (VECTOR_INDEX_MAX_DISTINCT_VALUES_PER_TABLE). */
  readonly distinctValuesPerTable: number;
}

export const DEFAULT_INDEX_BUDGET: IndexBudget = { distinctValuesPerKey: 10_000, distinctValuesPerTable: 100_000 };

/**
 * Inverted index of metadata values: key → value → labels, answering a filter with the
 * exact set of matching rows (evaluateSteps). Evaluation is a generator that yields at
 * checkpoints, so a caller can slice it between event-loop turns (see background.ts).
 *
 * Values are the posting maps' keys themselves (a Map compares by SameValueZero: `1` and
 * `"1"` differ, `-0` is `0`, the filter's equality), so a string value is shared with the
 * row's metadata, never copied. The index is bounded by IndexBudget: a key whose distinct
 * values would pass `distinctValuesPerKey`, or whose new value would pass the table's
 * `distinctValuesPerTable`, or which holds a string longer than any a filter may name, is
 * dropped from the index and becomes *scanned*, and once the
 * table's budget was reached no new key is indexed. A scanned key stays scanned while the
 * table is in memory (until the service reloads it); an insert is never refused for it.
 * Invariant: a key that is neither scanned nor (after the table budget was reached) absent
 * from the index has every live row holding it in its posting lists or empty arrays.
 */
export class MetadataIndex {
  private readonly postings = new Map<string, Map<Scalar, Set<number>>>();
  /** key → the rows whose field is an empty array (present, but in no posting list). */
  private readonly emptyArrays = new Map<string, Set<number>>();
  /** Keys dropped from the index for passing a budget. */
  private readonly scanned = new Set<string>();
  /** The table's budget was reached: keys not in the index now are scanned. */
  private full = false;
  /** Distinct (key, value) pairs held, over every key. */
  private distinct = 0;

  constructor(private readonly budget: IndexBudget = DEFAULT_INDEX_BUDGET) {}

  /** Whether conditions on `key` are answered from the index (else by reading each row's metadata). */
  isIndexed(key: string): boolean {
    if (this.scanned.has(key)) return false;
    return !this.full || this.postings.has(key) || this.emptyArrays.has(key);
  }

  /** What the index holds (metrics, tests). */
  stats(): { readonly keys: number; readonly distinctValues: number; readonly scannedKeys: number; readonly full: boolean } {
    return { keys: this.postings.size, distinctValues: this.distinct, scannedKeys: this.scanned.size, full: this.full };
  }

  /** Drops a key from the index: from now on its conditions read the rows. */
  private scan(key: string): void {
    const byValue = this.postings.get(key);
    if (byValue) this.distinct -= byValue.size;
    this.postings.delete(key);
    this.emptyArrays.delete(key);
    this.scanned.add(key);
  }

  add(label: number, metadata: Metadata | undefined): void {
    if (!metadata) return;
    for (const [key, field] of Object.entries(metadata)) {
      // A filter names keys and strings of at most MAX_FILTER.stringLength characters: a
      // longer key is never asked for, a longer string never equals a filter's value.
      if (key.length > MAX_FILTER.stringLength || !this.isIndexed(key)) continue;
      if (Array.isArray(field) && field.length === 0) {
        let empty = this.emptyArrays.get(key);
        if (!empty) this.emptyArrays.set(key, (empty = new Set()));
        empty.add(label);
        continue;
      }
      let byValue = this.postings.get(key);
      if (!byValue) this.postings.set(key, (byValue = new Map<Scalar, Set<number>>()));
      for (const v of Array.isArray(field) ? field : [field]) {
        // V8 hashes a string past 16,383 characters by its length alone, so long unique values
        // (LangChain's `content`) collide in a Map: a key holding one is scanned instead.
        if (typeof v === 'string' && v.length > MAX_FILTER.stringLength) {
          this.scan(key);
          break;
        }
        let labels = byValue.get(v);
        if (!labels) {
          if (byValue.size >= this.budget.distinctValuesPerKey || this.distinct >= this.budget.distinctValuesPerTable) {
            if (this.distinct >= this.budget.distinctValuesPerTable) this.full = true;
            this.scan(key); // the rows already added under this key leave with it
            break;
          }
          byValue.set(v, (labels = new Set()));
          this.distinct++;
        }
        labels.add(label);
      }
    }
  }

  remove(label: number, metadata: Metadata | undefined): void {
    if (!metadata) return;
    for (const [key, field] of Object.entries(metadata)) {
      if (Array.isArray(field) && field.length === 0) {
        const empty = this.emptyArrays.get(key);
        empty?.delete(label);
        if (empty?.size === 0) this.emptyArrays.delete(key);
        continue;
      }
      const byValue = this.postings.get(key);
      if (!byValue) continue;
      for (const v of Array.isArray(field) ? field : [field]) {
        const labels = byValue.get(v);
        if (!labels) continue;
        labels.delete(label);
        if (labels.size === 0) {
          byValue.delete(v);
          this.distinct--;
        }
      }
      if (byValue.size === 0) this.postings.delete(key);
    }
  }

  /**
   * The live rows whose `key` field passes `test`, read from their metadata: how a scanned
   * key answers (one walk of the table, yielding at checkpoints).
   */
  private *scanAtom(key: string, rows: FilterRows, test: (field: MetadataValue) => boolean): Steps<Atom> {
    const labels: number[] = [];
    const size = rows.size;
    for (let label = 0; label < size; label++) {
      if (rows.isAlive(label)) {
        const field = rowField(rows, label, key);
        if (field !== undefined && test(field)) labels.push(label);
      }
      if ((label + 1) % TESTS_PER_STEP === 0) yield;
    }
    return { sets: [labels], size: labels.length };
  }

  private *equalAtom(key: string, v: Scalar, rows: FilterRows): Steps<Atom> {
    if (!this.isIndexed(key)) return yield* this.scanAtom(key, rows, (field) => containsMatch(field, (x) => x === v));
    const labels = this.postings.get(key)?.get(v);
    return labels ? { sets: [labels], size: labels.size } : { sets: [], size: 0 };
  }

  /** `$in` (and `$nin`): the lists of the distinct values. */
  private *inAtom(key: string, values: readonly Scalar[], rows: FilterRows): Steps<Atom> {
    if (!this.isIndexed(key)) {
      const wanted = new Set<Scalar>(values);
      return yield* this.scanAtom(key, rows, (field) => containsMatch(field, (x) => wanted.has(x)));
    }
    const sets: Array<ReadonlySet<number>> = [];
    const seen = new Set<Scalar>();
    const byValue = this.postings.get(key);
    let size = 0;
    for (const v of values) {
      if (seen.has(v)) continue;
      seen.add(v);
      const labels = byValue?.get(v);
      if (labels) {
        sets.push(labels);
        size += labels.size;
      }
    }
    return { sets, size };
  }

  /** A range walks its key's distinct values (not its rows). */
  private *rangeAtom(key: string, range: ReadonlyArray<readonly [RangeOp, number]>, rows: FilterRows): Steps<Atom> {
    if (!this.isIndexed(key)) return yield* this.scanAtom(key, rows, (field) => containsMatch(field, (x) => inRange(x, range)));
    const sets: Array<ReadonlySet<number>> = [];
    let size = 0;
    let examined = 0;
    for (const [value, labels] of this.postings.get(key) ?? []) {
      if (inRange(value, range)) {
        sets.push(labels);
        size += labels.size;
      }
      if (++examined % TESTS_PER_STEP === 0) yield;
    }
    return { sets, size };
  }

  /**
   * The rows having the field (`$exists`): every list of its key's values, and its empty
   * arrays; or, when the key is scanned or has so many distinct values that walking their
   * lists costs more (one list per row, an id-like field), a scan of the table's metadata.
   */
  private *existsAtom(key: string, rows: FilterRows): Steps<Atom> {
    const byValue = this.postings.get(key);
    if (!this.isIndexed(key) || (byValue !== undefined && byValue.size * 4 > rows.size)) {
      return yield* this.scanAtom(key, rows, () => true);
    }
    const sets: Array<Iterable<number>> = [];
    let size = 0;
    let examined = 0;
    const empty = this.emptyArrays.get(key);
    if (empty) {
      sets.push(empty);
      size += empty.size;
    }
    for (const labels of byValue?.values() ?? []) {
      sets.push(labels);
      size += labels.size;
      if (++examined % TESTS_PER_STEP === 0) yield;
    }
    return { sets, size };
  }

  /** Labels of the live rows matching `filter`, ascending, in one go. */
  evaluate(filter: Filter, rows: FilterRows): number[] {
    return runToEnd(this.evaluateSteps(filter, rows));
  }

  /**
   * Labels of the live rows matching `filter`, ascending, yielding about every
   * TESTS_PER_STEP units of work. A filter without `$or` runs as `evaluateFlat`, one with
   * `$or` as `evaluateTree`; both do O(table + the postings the filter touches) work, never
   * rows × conditions of Set operations. Rows stored after the evaluation began are left
   * out (as a scan leaves them out); a row deleted while a sliced evaluation waited is not
   * returned.
   */
  *evaluateSteps(filter: Filter, rows: FilterRows): Steps<number[]> {
    return isFlat(filter) ? yield* this.evaluateFlat(filter, rows) : yield* this.evaluateTree(filter, rows);
  }

  /**
   * A list of conditions. Each condition splits into parts the index answers: `=`, `$in`,
   * a range and `$exists: true` hold for the rows of some posting lists, `$ne`, `$nin` and
   * `$exists: false` for the rows outside some. Two ways to combine them, whichever costs
   * less:
   * - one `=` or `$in` part is selective (its rows × the conditions ≤ the table): each of
   *   its rows is checked against the whole filter (compileFilter);
   * - otherwise every part's posting lists are walked once, counting per row (a byte per
   *   row) how many parts hold; the rows where all do, minus the exclusions, match.
   */
  private *evaluateFlat(filter: readonly Condition[], rows: FilterRows): Steps<number[]> {
    const size = rows.size;
    let work = 0;
    // `$ne`, `$nin`, `$exists: false` parts: the rows of their lists are out.
    let excluded: Uint8Array | undefined;
    for (const c of filter) {
      const sets: Array<Iterable<number>> = [];
      if (c.ne !== undefined) sets.push(...(yield* this.equalAtom(c.key, c.ne, rows)).sets);
      if (c.nin !== undefined) sets.push(...(yield* this.inAtom(c.key, c.nin, rows)).sets);
      if (c.exists === false) sets.push(...(yield* this.existsAtom(c.key, rows)).sets);
      for (const set of sets) {
        excluded ??= new Uint8Array(size);
        for (const label of set) {
          if (label < size) excluded[label] = 1;
          if (++work % TESTS_PER_STEP === 0) yield;
        }
      }
    }
    const kept = (label: number): boolean => rows.isAlive(label) && (excluded === undefined || excluded[label] !== 1);

    const positives: Atom[] = [];
    for (const c of filter) {
      if (c.eq !== undefined) positives.push(yield* this.equalAtom(c.key, c.eq, rows));
      if (c.in !== undefined) positives.push(yield* this.inAtom(c.key, c.in, rows));
    }
    positives.sort((a, b) => a.size - b.size);
    const smallest = positives[0];
    if (smallest !== undefined && smallest.size === 0) return [];

    const out: number[] = [];
    if (smallest !== undefined && (smallest.size * filter.length <= size || positives.length >= 255)) {
      // Check the selective part's rows against the whole filter.
      const matches = compileRowFilter(filter, rows);
      const seen = smallest.sets.length > 1 ? new Uint8Array(size) : undefined;
      for (const set of smallest.sets) {
        for (const label of set) {
          if (label >= size) continue;
          if (seen) {
            if (seen[label] === 1) continue;
            seen[label] = 1; // a row can be in several lists (an array field, several `$in` values)
          }
          if (kept(label) && matches(label)) out.push(label);
          work += filter.length;
          if (work >= TESTS_PER_STEP) {
            work = 0;
            yield;
          }
        }
      }
      sortLabels(out);
      return out;
    }

    for (const c of filter) {
      if (c.range !== undefined) positives.push(yield* this.rangeAtom(c.key, c.range, rows));
      if (c.exists === true) positives.push(yield* this.existsAtom(c.key, rows));
    }
    positives.sort((a, b) => a.size - b.size);
    if (positives.length >= 255) throw new RangeError('too many filter conditions to count in a byte'); // MAX_FILTER keeps them ≤ 128
    // counts[label] = how many parts, in order, hold for the row: a part only counts a row
    // all the previous ones hold for (so a row in two lists of one part counts once).
    const counts = positives.length > 0 ? new Uint8Array(size) : undefined;
    for (let p = 0; p < positives.length && counts; p++) {
      let reached = 0;
      for (const set of positives[p].sets) {
        for (const label of set) {
          if (label < size && counts[label] === p) {
            counts[label] = p + 1;
            reached++;
          }
          if (++work % TESTS_PER_STEP === 0) yield;
        }
      }
      if (reached === 0) return [];
    }
    const all = positives.length;
    for (let label = 0; label < size; label++) {
      if ((counts === undefined || counts[label] === all) && kept(label)) out.push(label);
      if (++work % TESTS_PER_STEP === 0) yield;
    }
    return out;
  }

  /**
   * A filter with `$or`, as set algebra over the posting lists, each intermediate set held
   * as its labels or, negated, as the labels it leaves out (LabelSet): a list of clauses is
   * the intersection of its parts' sets (smallest first) minus the negated ones, an `$or`
   * the union of its alternatives' sets (allOf, anyOf). A list with a selective `=` or `$in`
   * part checks that part's rows against the list instead, as evaluateFlat does. So the
   * work is the postings the filter touches, plus one walk of the table at the end when the
   * answer is negated (every live row but some).
   */
  private *evaluateTree(filter: Filter, rows: FilterRows): Steps<number[]> {
    const size = rows.size;
    const ctx: TreeContext = { rows, size, marks: new Uint32Array(size), epoch: 0, work: 0 };
    const result = yield* this.allOf(filter, ctx);
    const out: number[] = [];
    if (!result.negated && result.labels.length * 16 < size) {
      for (const label of result.labels) {
        if (rows.isAlive(label)) out.push(label);
        if (tick(ctx)) yield;
      }
      sortLabels(out);
      return out;
    }
    // Negated, or many labels: one walk of the table puts them in order (cheaper than a sort).
    const epoch = mark(ctx, result.labels);
    const wanted = !result.negated;
    for (let label = 0; label < size; label++) {
      if ((ctx.marks[label] === epoch) === wanted && rows.isAlive(label)) out.push(label);
      if (tick(ctx)) yield;
    }
    return out;
  }

  /** The distinct labels (below the size) of some posting lists. */
  private *collect(atom: Atom, ctx: TreeContext): Steps<number[]> {
    const out: number[] = [];
    const epoch = atom.sets.length > 1 ? ++ctx.epoch : 0;
    for (const set of atom.sets) {
      for (const label of set) {
        if (label < ctx.size && (epoch === 0 || ctx.marks[label] !== epoch)) {
          if (epoch !== 0) ctx.marks[label] = epoch;
          out.push(label);
        }
        if (tick(ctx)) yield;
      }
    }
    return out;
  }

  /** Rows where every clause holds. */
  private *allOf(filter: Filter, ctx: TreeContext): Steps<LabelSet> {
    if (filter.length === 0) return EVERY_ROW;
    const conditions = filter.filter((c): c is Condition => !isAnyOf(c));
    // A selective `=` or `$in` part: check its rows against the whole list.
    let smallest: Atom | undefined;
    // Computed once per condition (a scanned key's atom is a walk of the table).
    const equalAtoms = new Map<Condition, Atom>();
    const inAtoms = new Map<Condition, Atom>();
    for (const c of conditions) {
      let atom: Atom | undefined;
      if (c.eq !== undefined) equalAtoms.set(c, (atom = yield* this.equalAtom(c.key, c.eq, ctx.rows)));
      if (c.in !== undefined) {
        const inAtom = yield* this.inAtom(c.key, c.in, ctx.rows);
        inAtoms.set(c, inAtom);
        atom ??= inAtom;
      }
      if (atom !== undefined && (smallest === undefined || atom.size < smallest.size)) smallest = atom;
    }
    if (smallest !== undefined && smallest.size === 0) return NO_ROW;
    const cost = filterCost(filter);
    if (smallest !== undefined && smallest.size * cost <= ctx.size) {
      const matches = compileRowFilter(filter, ctx.rows);
      const labels: number[] = [];
      for (const label of yield* this.collect(smallest, ctx)) {
        if (ctx.rows.isAlive(label) && matches(label)) labels.push(label);
        ctx.work += cost;
        if (tick(ctx)) yield;
      }
      return { negated: false, labels };
    }

    const included: number[][] = [];
    const excluded: number[][] = [];
    // The `$or` parts first: one that holds for few rows is checked like a selective part.
    for (const c of filter) {
      if (!isAnyOf(c)) continue;
      const set = yield* this.anyOf(c, ctx);
      if (!set.negated && set.labels.length === 0) return NO_ROW;
      if (set.labels.length > 0) (set.negated ? excluded : included).push(set.labels);
    }
    const fewest = included.reduce<number[] | undefined>((a, b) => (a === undefined || b.length < a.length ? b : a), undefined);
    if (fewest !== undefined && fewest.length * cost <= ctx.size) {
      const matches = compileRowFilter(filter, ctx.rows);
      const labels: number[] = [];
      for (const label of fewest) {
        if (ctx.rows.isAlive(label) && matches(label)) labels.push(label);
        ctx.work += cost;
        if (tick(ctx)) yield;
      }
      return { negated: false, labels };
    }
    for (const c of conditions) {
      const parts: Array<[Atom, boolean]> = [];
      const eqAtom = equalAtoms.get(c);
      const inAtom = inAtoms.get(c);
      if (eqAtom !== undefined) parts.push([eqAtom, true]);
      if (inAtom !== undefined) parts.push([inAtom, true]);
      if (c.range !== undefined) parts.push([yield* this.rangeAtom(c.key, c.range, ctx.rows), true]);
      if (c.exists !== undefined) parts.push([yield* this.existsAtom(c.key, ctx.rows), c.exists]);
      if (c.ne !== undefined) parts.push([yield* this.equalAtom(c.key, c.ne, ctx.rows), false]);
      if (c.nin !== undefined) parts.push([yield* this.inAtom(c.key, c.nin, ctx.rows), false]);
      for (const [atom, holds] of parts) {
        if (holds && atom.size === 0) return NO_ROW;
        if (atom.size > 0) (holds ? included : excluded).push(yield* this.collect(atom, ctx));
      }
    }
    if (included.length === 0) return { negated: true, labels: yield* union(excluded, ctx) };
    included.sort((a, b) => a.length - b.length);
    let labels = included[0];
    for (let i = 1; i < included.length && labels.length > 0; i++) labels = yield* keep(labels, included[i], true, ctx);
    if (excluded.length > 0 && labels.length > 0) labels = yield* keep(labels, yield* union(excluded, ctx), false, ctx);
    return { negated: false, labels };
  }

  /** Rows where at least one alternative holds. */
  private *anyOf(group: AnyOf, ctx: TreeContext): Steps<LabelSet> {
    const included: number[][] = [];
    const negated: number[][] = [];
    for (const alternative of group.anyOf) {
      const set = yield* this.allOf(alternative, ctx);
      if (set.negated && set.labels.length === 0) return EVERY_ROW;
      if (set.labels.length > 0) (set.negated ? negated : included).push(set.labels);
    }
    if (negated.length === 0) return { negated: false, labels: yield* union(included, ctx) };
    // Every row but those all the negated alternatives leave out and no other holds for.
    negated.sort((a, b) => a.length - b.length);
    let labels = negated[0];
    for (let i = 1; i < negated.length && labels.length > 0; i++) labels = yield* keep(labels, negated[i], true, ctx);
    if (included.length > 0 && labels.length > 0) labels = yield* keep(labels, yield* union(included, ctx), false, ctx);
    return { negated: true, labels };
  }
}

/** Counts one unit of work; true at a checkpoint (time to yield). */
function tick(ctx: TreeContext): boolean {
  if (++ctx.work < TESTS_PER_STEP) return false;
  ctx.work = 0;
  return true;
}

/** Marks the labels under a new epoch, returned. */
function mark(ctx: TreeContext, labels: readonly number[]): number {
  const epoch = ++ctx.epoch;
  for (const label of labels) ctx.marks[label] = epoch;
  ctx.work += labels.length >> 3; // a store is cheaper than a test
  return epoch;
}

/** The labels of `from` that are (`inOther`) or are not in `other`. */
function* keep(from: readonly number[], other: readonly number[], inOther: boolean, ctx: TreeContext): Steps<number[]> {
  const epoch = mark(ctx, other);
  const out: number[] = [];
  for (const label of from) {
    if ((ctx.marks[label] === epoch) === inOther) out.push(label);
    if (tick(ctx)) yield;
  }
  return out;
}

/** The distinct labels of some lists (each distinct already): the longest copied whole, the others added. */
function* union(lists: readonly number[][], ctx: TreeContext): Steps<number[]> {
  if (lists.length === 0) return [];
  if (lists.length === 1) return lists[0];
  let longest = 0;
  for (let i = 1; i < lists.length; i++) if (lists[i].length > lists[longest].length) longest = i;
  const epoch = mark(ctx, lists[longest]);
  const out = lists[longest].slice();
  for (let i = 0; i < lists.length; i++) {
    if (i === longest) continue;
    for (const label of lists[i]) {
      if (ctx.marks[label] !== epoch) {
        ctx.marks[label] = epoch;
        out.push(label);
      }
      if (tick(ctx)) yield;
    }
  }
  return out;
}

/** Sorts labels ascending in place (numeric, without a comparator call per pair). */
function sortLabels(labels: number[]): void {
  if (labels.length < 2) return;
  const sorted = Float64Array.from(labels).sort();
  for (let i = 0; i < sorted.length; i++) labels[i] = sorted[i];
}
