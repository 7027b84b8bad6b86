/**
 * Metadata and the filter language (platform contract, "Vector service decisions").
 *
 * Metadata values are strings, numbers, booleans or arrays of those. A filter is an object
 * of key → condition; every key must match. A condition is either a scalar (equality; for
 * an array field: the array contains it) or an operator object with any of `$in` (array
 * of scalars: equals one of them), `$ne` (not equal: true when the field is missing, and
 * for an array field when it does not contain the value, as MongoDB), `$gt`, `$gte`, `$lt`,
 * `$lte` (numbers only; an array field matches when one element does). Several operators
 * in one object must all hold.
 */
import { runToEnd, type Steps } from './background';
import { checkFilterLimits } from './filter-limits';

export type Scalar = string | number | boolean;
export type MetadataValue = Scalar | Scalar[];
export type Metadata = Record<string, MetadataValue>;

export type RangeOp = '$gt' | '$gte' | '$lt' | '$lte';
export interface Condition {
  readonly key: string;
  readonly eq?: Scalar;
  readonly in?: readonly Scalar[];
  readonly ne?: Scalar;
  readonly range?: ReadonlyArray<readonly [RangeOp, number]>;
}
export type Filter = readonly Condition[];

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
const OPERATORS = new Set(['$in', '$ne', ...RANGE_OPS]);

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

/** Parses the API's filter object into conditions; a filter over MAX_FILTER throws FilterLimitError. */
export function parseFilter(value: unknown, path = 'filter'): Filter {
  const tooLarge = checkFilterLimits(value, path);
  if (tooLarge) throw tooLarge;
  if (!isPlainObject(value)) throw new FilterError(path, `${path} must be an object`);
  const conditions: Condition[] = [];
  for (const [key, raw] of Object.entries(value)) {
    const p = `${path}.${key}`;
    if (key.startsWith('$'))
      throw new FilterError(p, `${p}: operators go inside a field's condition, e.g. {"price": {"$lt": 10}}`);
    if (isScalar(raw)) {
      conditions.push({ key, eq: raw });
      continue;
    }
    if (!isPlainObject(raw)) throw new FilterError(p, `${p} must be a string, number, boolean or an operator object`);
    const ops = Object.entries(raw);
    if (ops.length === 0) throw new FilterError(p, `${p} must not be an empty object`);
    const range: Array<[RangeOp, number]> = [];
    let cond: { key: string; in?: Scalar[]; ne?: Scalar } = { key };
    for (const [op, arg] of ops) {
      const po = `${p}.${op}`;
      if (!OPERATORS.has(op)) throw new FilterError(po, `${po}: unknown operator; use $in, $ne, $gt, $gte, $lt or $lte`);
      if (op === '$in') {
        if (!Array.isArray(arg) || !arg.every(isScalar))
          throw new FilterError(po, `${po} must be an array of strings, numbers or booleans`);
        cond = { ...cond, in: arg };
      } else if (op === '$ne') {
        if (!isScalar(arg)) throw new FilterError(po, `${po} must be a string, number or boolean`);
        cond = { ...cond, ne: arg };
      } else {
        if (typeof arg !== 'number' || !Number.isFinite(arg)) throw new FilterError(po, `${po} must be a finite number`);
        range.push([op as RangeOp, arg]);
      }
    }
    conditions.push(range.length > 0 ? { ...cond, range } : cond);
  }
  return conditions;
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

/**
 * The same value for the filter language: same type and equal (`1` and `"1"` differ; `-0`
 * is `0`), i.e. what `valueKey` identifies and what a Set's SameValueZero compares.
 */
const valueKey = (v: Scalar): string => `${typeof v}:${String(v)}`;

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
 * `$ne` when no element is; a range when one element satisfies every bound. Values are the
 * same when of the same type and equal (`1` and `"1"` differ), as `valueKey` identifies them.
 */
function compileCondition(c: Condition): (field: MetadataValue | undefined) => boolean {
  const eq = c.eq;
  if (eq !== undefined) return (field) => field !== undefined && (Array.isArray(field) ? field.includes(eq) : field === eq);
  const wanted = c.in === undefined ? undefined : new Set<Scalar>(c.in);
  const ne = c.ne;
  const range = c.range;
  const isWanted = (v: Scalar): boolean => (wanted as Set<Scalar>).has(v);
  const inRangeTest = (v: Scalar): boolean => inRange(v, range as ReadonlyArray<readonly [RangeOp, number]>);
  return (field) => {
    if (field === undefined) return wanted === undefined && range === undefined; // only $ne: a missing field matches
    if (wanted !== undefined && !containsMatch(field, isWanted)) return false;
    if (ne !== undefined && (Array.isArray(field) ? field.includes(ne) : field === ne)) return false;
    if (range !== undefined && !containsMatch(field, inRangeTest)) return false;
    return true;
  };
}

/** One predicate over a row's metadata for the whole filter (every condition must hold). */
export function compileFilter(filter: Filter): (metadata: Metadata | undefined) => boolean {
  const keys = filter.map((c) => c.key);
  const tests = filter.map(compileCondition);
  return (metadata) => {
    for (let i = 0; i < tests.length; i++) if (!tests[i](fieldOf(metadata, keys[i]))) return false;
    return true;
  };
}

/** What the filter evaluation reads of the table besides the inverted index. */
export interface FilterRows {
  /** One past the largest label ever stored. */
  readonly size: number;
  isAlive(label: number): boolean;
  metadata(label: number): Metadata | undefined;
}

/**
 * Work between two checkpoints of a sliced evaluation, in condition tests (a row checked
 * against a 64-condition filter is 64): well under a millisecond.
 */
const TESTS_PER_STEP = 8192;

interface Posting {
  readonly value: Scalar;
  readonly labels: Set<number>;
}

/** One part of a condition as the inverted index answers it: the posting lists of the rows it holds for. */
interface Atom {
  readonly sets: Array<ReadonlySet<number>>;
  /** Sum of the lists' sizes (a row in two lists counts twice). */
  readonly size: number;
}

/**
 * Inverted index of metadata values: key → value → labels, answering a filter with the
 * exact set of matching rows (evaluateSteps). Evaluation is a generator that yields at
 * checkpoints, so a caller can slice it between event-loop turns (see background.ts).
 */
export class MetadataIndex {
  private readonly postings = new Map<string, Map<string, Posting>>();

  add(label: number, metadata: Metadata | undefined): void {
    if (!metadata) return;
    for (const [key, field] of Object.entries(metadata)) {
      let byValue = this.postings.get(key);
      if (!byValue) this.postings.set(key, (byValue = new Map<string, Posting>()));
      for (const v of Array.isArray(field) ? field : [field]) {
        const vk = valueKey(v);
        let posting = byValue.get(vk);
        if (!posting) byValue.set(vk, (posting = { value: v, labels: new Set() }));
        posting.labels.add(label);
      }
    }
  }

  remove(label: number, metadata: Metadata | undefined): void {
    if (!metadata) return;
    for (const [key, field] of Object.entries(metadata)) {
      const byValue = this.postings.get(key);
      if (!byValue) continue;
      for (const v of Array.isArray(field) ? field : [field]) {
        const vk = valueKey(v);
        const posting = byValue.get(vk);
        if (!posting) continue;
        posting.labels.delete(label);
        if (posting.labels.size === 0) byValue.delete(vk);
      }
      if (byValue.size === 0) this.postings.delete(key);
    }
  }

  private posting(key: string, v: Scalar): Posting | undefined {
    return this.postings.get(key)?.get(valueKey(v));
  }

  private equalAtom(key: string, v: Scalar): Atom {
    const posting = this.posting(key, v);
    return posting ? { sets: [posting.labels], size: posting.labels.size } : { sets: [], size: 0 };
  }

  private inAtom(key: string, values: readonly Scalar[]): Atom {
    const sets: Array<ReadonlySet<number>> = [];
    const seen = new Set<Scalar>();
    let size = 0;
    for (const v of values) {
      if (seen.has(v)) continue;
      seen.add(v);
      const posting = this.posting(key, v);
      if (posting) {
        sets.push(posting.labels);
        size += posting.labels.size;
      }
    }
    return { sets, size };
  }

  /** A range walks its key's distinct values (not its rows). */
  private *rangeAtom(key: string, range: ReadonlyArray<readonly [RangeOp, number]>): Steps<Atom> {
    const sets: Array<ReadonlySet<number>> = [];
    let size = 0;
    let examined = 0;
    for (const posting of this.postings.get(key)?.values() ?? []) {
      if (inRange(posting.value, range)) {
        sets.push(posting.labels);
        size += posting.labels.size;
      }
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
   * TESTS_PER_STEP units of work. Each condition splits into parts the index answers: `=`,
   * `$in` and a range hold for the rows of some posting lists, `$ne` for the rows outside
   * one. Two ways to combine them, whichever costs less:
   * - one part is selective (its rows × the conditions ≤ the table): each of its rows is
   *   checked against the whole filter (compileFilter);
   * - otherwise every part's posting lists are walked once, counting per row (a byte per
   *   row) how many parts hold; the rows where all do, minus the `$ne` exclusions, match.
   * So the work is O(table + the postings the filter touches), never rows × conditions
   * of Set operations. Rows stored after the evaluation began are left out (as a scan
   * leaves them out); a row deleted while a sliced evaluation waited is not returned.
   */
  *evaluateSteps(filter: Filter, rows: FilterRows): Steps<number[]> {
    const size = rows.size;
    let work = 0;
    // `$ne` parts: the rows holding the value are out.
    let excluded: Uint8Array | undefined;
    for (const c of filter) {
      if (c.ne === undefined) continue;
      const posting = this.posting(c.key, c.ne);
      if (!posting) continue;
      excluded ??= new Uint8Array(size);
      for (const label of posting.labels) {
        if (label < size) excluded[label] = 1;
        if (++work % TESTS_PER_STEP === 0) yield;
      }
    }
    const kept = (label: number): boolean => rows.isAlive(label) && (excluded === undefined || excluded[label] !== 1);

    const positives: Atom[] = [];
    for (const c of filter) {
      if (c.eq !== undefined) positives.push(this.equalAtom(c.key, c.eq));
      if (c.in !== undefined) positives.push(this.inAtom(c.key, c.in));
    }
    positives.sort((a, b) => a.size - b.size);
    const smallest = positives[0];
    if (smallest !== undefined && smallest.size === 0) return [];

    const out: number[] = [];
    if (smallest !== undefined && (smallest.size * filter.length <= size || positives.length >= 255)) {
      // Check the selective part's rows against the whole filter.
      const matches = compileFilter(filter);
      const seen = smallest.sets.length > 1 ? new Uint8Array(size) : undefined;
      for (const set of smallest.sets) {
        for (const label of set) {
          if (label >= size) continue;
          if (seen) {
            if (seen[label] === 1) continue;
            seen[label] = 1; // a row can be in several lists (an array field, several `$in` values)
          }
          if (kept(label) && matches(rows.metadata(label))) out.push(label);
          work += filter.length;
          if (work >= TESTS_PER_STEP) {
            work = 0;
            yield;
          }
        }
      }
      if (out.length > 1) {
        const sorted = Float64Array.from(out).sort(); // numeric, without a comparator call per pair
        for (let i = 0; i < sorted.length; i++) out[i] = sorted[i];
      }
      return out;
    }

    for (const c of filter) if (c.range !== undefined) positives.push(yield* this.rangeAtom(c.key, c.range));
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
}
