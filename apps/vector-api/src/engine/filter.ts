/**
 * Metadata and the filter language (platform contract, "Vector service decisions", "Vector
 * API, more" and issue 34).
 *
 * Metadata values are strings, finite numbers, booleans, arrays of values and objects of
 * values (objects nest at most METADATA_MAX_DEPTH deep, the metadata object being 1); null
 * only when the caller allows it (the Qdrant-compatible API). Values are the same when of
 * the same type and equal (`1` and `"1"` differ, `-0` is `0`); strings compare exactly.
 *
 * Field paths: a filter's field key is keys joined by dots (`a.b`), `[]` after a segment
 * ignored (Qdrant's `a[].b`). The field `a.b` of a row is every value reached by walking `a`
 * then `b`, an array met on the way flattened (each element walked further); a literal key
 * `"a.b"` reaches the same field as `{"a": {"b": …}}` (both contribute). The value reached
 * at the end is kept as it is (an array there is one value whose elements the operators
 * test, as Qdrant's payload paths do). A row *has* the field when the walk reaches anything.
 *
 * A filter is an object; every key of it must hold (AND). A key is a field path with a
 * condition, or one of:
 * - `{"$and": [f1, f2, …]}`: every fi holds; `{"$or": [f1, f2, …]}`: at least one does;
 * - `{"$not": f}`: f does not hold;
 * - `{"$hasId": ["id", …]}`: the row's id is one of these;
 * - `{"$minShould": {"filters": [f1, …], "count": k}}`: at least k of the fi hold.
 * Any other `$`-key at this level is refused.
 * A field's condition is a scalar (equality) or an operator object whose operators all hold;
 * "an element" below is a reached value, or an element of a reached array:
 *   - `$eq` (a scalar): an element is it (the bare value's meaning);
 *   - `$in` (array of scalars): an element is one of them (`[]` matches nothing);
 *   - `$nin` / `$ne`: no element is one of them / it (a missing field matches);
 *   - `$gt`, `$gte`, `$lt`, `$lte` (numbers): one element is a number satisfying every bound;
 *   - `$exists` (boolean): the row has the field (`true`) or not;
 *   - `$except` (array of scalars): an element is not null and none of them (an object or
 *     a nested array counts, as Qdrant's `match.except`; a missing field does not match);
 *   - `$text` (string): an element is a string containing it (case-sensitive, no tokenizer);
 *   - `$isNull` (boolean): `true` a reached value is null (`[null]` is not: Qdrant's
 *     `is_null`); `false` the negation;
 *   - `$isEmpty` (boolean): `true` the field is missing or every reached value is null or
 *     `[]` (Qdrant's `is_empty`); `false` the negation.
 * - Logical depth: the filter is depth 1; each element of `$and` / `$or` / `$minShould`'s
 *   filters and the filter of `$not` one deeper than the filter holding it; at most
 *   MAX_FILTER.depth (8). Deeper is FilterLimitError, as are the size limits of
 *   filter-limits.ts (checked first, without recursion).
 * - `{}` matches every row, as an element of `$and` too; as an element of `$or` it makes
 *   the `$or` match every row.
 *
 * Errors (FilterError, FilterLimitError) name the offending part as a path with indexes:
 * `filter.$or[1].year.$gt`.
 *
 * A parsed Filter is a list of clauses, all of which must hold: conditions on one field,
 * `anyOf` groups (an `$or`), `not`, `hasId` and `minShould`. `$and` is flattened into the
 * list holding it, an `$or` of one filter too, and an `$or` of an `$or` into one group; an
 * empty list matches every row (isMatchAll).
 */
import { runToEnd, type Steps } from './background';
import { checkFilterLimits, filterTooDeep, MAX_FILTER } from './filter-limits';

export type Scalar = string | number | boolean;
export type MetadataValue = Scalar | null | MetadataValue[] | { [key: string]: MetadataValue };
export type Metadata = Record<string, MetadataValue>;

/** Objects nest at most this deep in metadata (the metadata object is 1). */
export const METADATA_MAX_DEPTH = 8;
/** Objects and arrays nest at most this deep in metadata (arrays of arrays bounded too). */
export const METADATA_MAX_NESTING = 2 * METADATA_MAX_DEPTH;

/**
 * Several values reached by one field path (a walk through arrays or through a literal
 * dotted key besides the nested one). One value is carried as itself.
 */
export class FieldValues {
  constructor(readonly values: readonly MetadataValue[]) {}
}
/** A row's field as the filter reads it: undefined (missing), one reached value, or several. */
export type Field = MetadataValue | FieldValues | undefined;

export type RangeOp = '$gt' | '$gte' | '$lt' | '$lte';
/** One field's condition: every part given must hold. `key` is the field path, `[]` removed. */
export interface Condition {
  readonly key: string;
  readonly eq?: Scalar;
  readonly in?: readonly Scalar[];
  readonly nin?: readonly Scalar[];
  readonly ne?: Scalar;
  readonly range?: ReadonlyArray<readonly [RangeOp, number]>;
  readonly exists?: boolean;
  readonly except?: readonly Scalar[];
  readonly text?: string;
  readonly isNull?: boolean;
  readonly isEmpty?: boolean;
}
/** An `$or`: at least one of the filters holds (at least two of them, each not matching all). */
export interface AnyOf {
  readonly anyOf: readonly Filter[];
}
/** `$not`: the filter does not hold. */
export interface Not {
  readonly not: Filter;
}
/** `$hasId`: the row's id is one of these. */
export interface HasId {
  readonly hasId: readonly string[];
}
/** `$minShould`: at least `count` of the filters hold. */
export interface MinShould {
  readonly minShould: readonly Filter[];
  readonly count: number;
}
export type Clause = Condition | AnyOf | Not | HasId | MinShould;
/** Every clause must hold; `[]` matches every row. */
export type Filter = readonly Clause[];

export const isAnyOf = (c: Clause): c is AnyOf => 'anyOf' in c;
export const isCondition = (c: Clause): c is Condition => 'key' in c;
export const isNot = (c: Clause): c is Not => 'not' in c;
export const isHasId = (c: Clause): c is HasId => 'hasId' in c;
export const isMinShould = (c: Clause): c is MinShould => 'minShould' in c;

/** The filter matches every row (`{}`, or only `$and` / `$or` of such). */
export const isMatchAll = (filter: Filter): boolean => filter.length === 0;

/** A condition the flat evaluation answers (the operators that existed before field paths' new ones). */
const isPlainCondition = (c: Clause): c is Condition =>
  isCondition(c) && c.except === undefined && c.text === undefined && c.isNull === undefined && c.isEmpty === undefined;

/** The filter is a list of plain conditions only. */
const isFlat = (filter: Filter): filter is readonly Condition[] => filter.every(isPlainCondition);

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
const OPERATORS = new Set(['$eq', '$in', '$nin', '$ne', ...RANGE_OPS, '$exists', '$except', '$text', '$isNull', '$isEmpty']);
const OPERATOR_LIST = '$eq, $in, $nin, $ne, $gt, $gte, $lt, $lte, $exists, $except, $text, $isNull or $isEmpty';
const FILTER_KEYS = '$and, $or, $not, $hasId and $minShould';
const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

export interface MetadataOptions {
  /** null is a value (the Qdrant-compatible API); otherwise refused. */
  readonly allowNull?: boolean;
}

const valueRule = (allowNull: boolean | undefined): string =>
  `must be a string, a finite number, a boolean${allowNull ? ', null' : ''}, or an array or object of those`;

/**
 * Checks a value of metadata at `path` whose enclosing object is at object depth `depth`
 * (the metadata object is 1), without recursion: objects nest at most METADATA_MAX_DEPTH
 * deep, objects and arrays together METADATA_MAX_NESTING. The work is one visit per node
 * (the caller bounds the tree first: measureJson's byte and key limits).
 */
export function checkMetadataValue(value: unknown, path: string, depth: number, options: MetadataOptions = {}): void {
  const stack: Array<{ v: unknown; path: string; depth: number; nesting: number }> = [{ v: value, path, depth, nesting: depth }];
  while (stack.length > 0) {
    const { v, path: p, depth: d, nesting } = stack.pop() as { v: unknown; path: string; depth: number; nesting: number };
    if (isScalar(v) || (v === null && options.allowNull)) continue;
    if (Array.isArray(v)) {
      if (nesting + 1 > METADATA_MAX_NESTING)
        throw new FilterError(p, `${p} nests too deeply: objects and arrays may nest at most ${METADATA_MAX_NESTING} levels`);
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${p}[${i}]`, depth: d, nesting: nesting + 1 });
      continue;
    }
    if (isPlainObject(v)) {
      if (d + 1 > METADATA_MAX_DEPTH || nesting + 1 > METADATA_MAX_NESTING)
        throw new FilterError(
          p,
          `${p} nests too deeply: objects may nest at most ${METADATA_MAX_DEPTH} levels, the metadata object being level 1`,
        );
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--)
        stack.push({ v: v[keys[i]], path: `${p}.${keys[i]}`, depth: d + 1, nesting: nesting + 1 });
      continue;
    }
    throw new FilterError(p, `${p} ${valueRule(options.allowNull)}`);
  }
}

/** Checks a metadata object (from the API) and returns it typed. */
export function parseMetadata(value: unknown, path: string, options: MetadataOptions = {}): Metadata {
  if (!isPlainObject(value)) throw new FilterError(path, `${path} must be an object`);
  for (const key of Object.keys(value)) checkMetadataValue(value[key], `${path}.${key}`, 1, options);
  return value as Metadata;
}

/** A filter key as a field path: `[]` after a segment dropped (`a[].b` is `a.b`). */
export function fieldPath(key: string): string {
  if (!key.includes('[]')) return key;
  return key
    .split('.')
    .map((s) => s.replace(/(\[\])+$/, ''))
    .join('.');
}

/**
 * The field `path` of a metadata object (module comment): one own lookup for a path
 * without a dot; otherwise a walk matching the object's keys against the path (a key
 * `"a.b"` matches two segments), flattening arrays met on the way. The walk visits each
 * node of the metadata once at most (its position fixes where in the path it is), so its
 * work is bounded by the metadata's size, whatever the path.
 */
export function readField(metadata: Metadata | undefined, path: string): Field {
  if (metadata === undefined) return undefined;
  if (!path.includes('.')) return hasOwn(metadata, path) ? metadata[path] : undefined;
  return walkField(metadata, path);
}

/**
 * readField specialised for one path (what a compiled filter reads row after row): a key
 * without a dot that Object.prototype does not have is a plain property read.
 */
function fieldReader(path: string): (metadata: Metadata | undefined) => Field {
  if (path.includes('.')) return (metadata) => (metadata === undefined ? undefined : walkField(metadata, path));
  if (path in Object.prototype) return (metadata) => readField(metadata, path);
  return (metadata) => metadata?.[path];
}

function walkField(metadata: Metadata, path: string): Field {
  const out: MetadataValue[] = [];
  walkPath(metadata, path, 0, out);
  return out.length === 0 ? undefined : out.length === 1 ? out[0] : new FieldValues(out);
}

/** Values reached from `value` by the rest of the path, `path.slice(start)`. */
function walkPath(value: MetadataValue, path: string, start: number, out: MetadataValue[]): void {
  if (Array.isArray(value)) {
    for (const element of value) walkPath(element, path, start, out);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (path.indexOf('.', start) === -1) {
    const key = start === 0 ? path : path.slice(start);
    if (hasOwn(value, key)) out.push(value[key]);
    return;
  }
  for (const key of Object.keys(value)) {
    if (!path.startsWith(key, start)) continue;
    const end = start + key.length;
    if (end === path.length) out.push(value[key]);
    else if (path.charCodeAt(end) === 46 /* . */) walkPath(value[key], path, end + 1, out);
  }
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

/** A non-empty array of filter objects at logical depth `depth`. */
function parseFilterList(raw: unknown, p: string, depth: number): Filter[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new FilterError(p, `${p} must be a non-empty array of filter objects`);
  return raw.map((f, i) => parseNode(f, `${p}[${i}]`, depth));
}

/** One filter object at logical depth `depth` (≤ MAX_FILTER.depth, which bounds the recursion). */
function parseNode(value: unknown, path: string, depth: number): Clause[] {
  if (depth > MAX_FILTER.depth) throw filterTooDeep(path);
  if (!isPlainObject(value)) throw new FilterError(path, `${path} must be an object`);
  const clauses: Clause[] = [];
  for (const [key, raw] of Object.entries(value)) {
    const p = `${path}.${key}`;
    if (key === '$and' || key === '$or') {
      const parts = parseFilterList(raw, p, depth + 1);
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
    if (key === '$not') {
      clauses.push({ not: parseNode(raw, p, depth + 1) });
      continue;
    }
    if (key === '$hasId') {
      if (!Array.isArray(raw) || !raw.every((id) => typeof id === 'string'))
        throw new FilterError(p, `${p} must be an array of id strings`);
      clauses.push({ hasId: raw });
      continue;
    }
    if (key === '$minShould') {
      if (!isPlainObject(raw)) throw new FilterError(p, `${p} must be an object {"filters": [..], "count": k}`);
      for (const k of Object.keys(raw))
        if (k !== 'filters' && k !== 'count') throw new FilterError(`${p}.${k}`, `${p}.${k}: unknown key; use filters and count`);
      const count = raw.count;
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1)
        throw new FilterError(`${p}.count`, `${p}.count must be an integer ≥ 1`);
      clauses.push({ minShould: parseFilterList(raw.filters, `${p}.filters`, depth + 1), count });
      continue;
    }
    if (key.startsWith('$'))
      throw new FilterError(
        p,
        `${p}: unknown logical operator; a filter takes ${FILTER_KEYS}, other operators go inside a field's condition, e.g. {"price": {"$lt": 10}}`,
      );
    clauses.push(...parseCondition(fieldPath(key), raw, p));
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
  let cond: {
    key: string;
    in?: Scalar[];
    nin?: Scalar[];
    ne?: Scalar;
    exists?: boolean;
    except?: Scalar[];
    text?: string;
    isNull?: boolean;
    isEmpty?: boolean;
  } = { key };
  for (const [op, arg] of ops) {
    const po = `${p}.${op}`;
    if (!OPERATORS.has(op))
      throw new FilterError(po, `${po}: unknown operator; use ${OPERATOR_LIST} (and ${FILTER_KEYS} beside field names)`);
    if (op === '$eq') {
      if (!isScalar(arg)) throw new FilterError(po, `${po} must be a string, number or boolean`);
      equal.push({ key, eq: arg });
    } else if (op === '$in' || op === '$nin' || op === '$except') {
      if (!Array.isArray(arg) || !arg.every(isScalar))
        throw new FilterError(po, `${po} must be an array of strings, numbers or booleans`);
      cond = op === '$in' ? { ...cond, in: arg } : op === '$nin' ? { ...cond, nin: arg } : { ...cond, except: arg };
    } else if (op === '$ne') {
      if (!isScalar(arg)) throw new FilterError(po, `${po} must be a string, number or boolean`);
      cond = { ...cond, ne: arg };
    } else if (op === '$exists' || op === '$isNull' || op === '$isEmpty') {
      if (typeof arg !== 'boolean') throw new FilterError(po, `${po} must be true or false`);
      cond =
        op === '$exists' ? { ...cond, exists: arg } : op === '$isNull' ? { ...cond, isNull: arg } : { ...cond, isEmpty: arg };
    } else if (op === '$text') {
      if (typeof arg !== 'string') throw new FilterError(po, `${po} must be a string`);
      cond = { ...cond, text: arg };
    } else {
      if (typeof arg !== 'number' || !Number.isFinite(arg)) throw new FilterError(po, `${po} must be a finite number`);
      range.push([op as RangeOp, arg]);
    }
  }
  const rest = range.length > 0 ? { ...cond, range } : cond;
  return Object.keys(rest).length > 1 ? [...equal, rest] : equal;
}

function inRange(v: MetadataValue, range: ReadonlyArray<readonly [RangeOp, number]>): boolean {
  if (typeof v !== 'number') return false;
  for (const [op, x] of range) {
    if (op === '$gt' && !(v > x)) return false;
    if (op === '$gte' && !(v >= x)) return false;
    if (op === '$lt' && !(v < x)) return false;
    if (op === '$lte' && !(v <= x)) return false;
  }
  return true;
}

/** Some element of one reached value passes: the value, or an element of it when an array. */
function elementMatch(value: MetadataValue, test: (v: MetadataValue) => boolean): boolean {
  if (!Array.isArray(value)) return test(value);
  for (let i = 0; i < value.length; i++) if (test(value[i])) return true;
  return false;
}

/** Some element of a present field passes (module comment, "an element"). */
function containsMatch(field: MetadataValue | FieldValues, test: (v: MetadataValue) => boolean): boolean {
  if (!(field instanceof FieldValues)) return elementMatch(field, test);
  for (const value of field.values) if (elementMatch(value, test)) return true;
  return false;
}

/** Some reached value (not element) passes. */
function someValue(field: MetadataValue | FieldValues, test: (v: MetadataValue) => boolean): boolean {
  return field instanceof FieldValues ? field.values.some(test) : test(field);
}

const isNullValue = (v: MetadataValue): boolean => v === null;
const isContainer = (v: MetadataValue): boolean => v !== null && typeof v === 'object';
const isEmptyValue = (v: MetadataValue): boolean => v === null || (Array.isArray(v) && v.length === 0);
/** Qdrant's is_null over a present field. */
const hasNull = (field: MetadataValue | FieldValues): boolean => someValue(field, isNullValue);
/** Qdrant's is_empty over a present field: every reached value is null or `[]`. */
const allEmpty = (field: MetadataValue | FieldValues): boolean =>
  field instanceof FieldValues ? field.values.every(isEmptyValue) : isEmptyValue(field);

/**
 * One condition as a test of a row's field, with the semantics of the module comment.
 * Values are the same when of the same type and equal (`1` and `"1"` differ), as a Set's
 * SameValueZero compares them.
 */
function compileCondition(c: Condition): (field: Field) => boolean {
  const eq = c.eq;
  if (eq !== undefined) {
    const isEq = (x: MetadataValue): boolean => x === eq;
    // A scalar field (the common case) without a call; arrays and several values element by element.
    return (field) => field === eq || (typeof field === 'object' && field !== null && containsMatch(field, isEq));
  }
  const wanted = c.in === undefined ? undefined : new Set<MetadataValue>(c.in);
  const unwanted = c.nin === undefined || c.nin.length === 0 ? undefined : new Set<MetadataValue>(c.nin);
  const excepted = c.except === undefined ? undefined : new Set<MetadataValue>(c.except);
  const { ne, range, exists, text, isNull, isEmpty } = c;
  const isWanted = (v: MetadataValue): boolean => (wanted as Set<MetadataValue>).has(v);
  const isUnwanted = (v: MetadataValue): boolean => (unwanted as Set<MetadataValue>).has(v);
  const isExcepted = (v: MetadataValue): boolean => v !== null && !(excepted as Set<MetadataValue>).has(v);
  const hasText = (v: MetadataValue): boolean => typeof v === 'string' && v.includes(text as string);
  const inRangeTest = (v: MetadataValue): boolean => inRange(v, range as ReadonlyArray<readonly [RangeOp, number]>);
  const isNe = (v: MetadataValue): boolean => v === ne;
  // A missing field holds for `$ne`, `$nin`, `$exists: false`, `$isNull: false` and `$isEmpty: true` only.
  const missing =
    wanted === undefined &&
    range === undefined &&
    exists !== true &&
    excepted === undefined &&
    text === undefined &&
    isNull !== true &&
    isEmpty !== false;
  return (field) => {
    if (field === undefined) return missing;
    if (exists === false) return false;
    if (wanted !== undefined && !containsMatch(field, isWanted)) return false;
    if (ne !== undefined && containsMatch(field, isNe)) return false;
    if (unwanted !== undefined && containsMatch(field, isUnwanted)) return false;
    if (range !== undefined && !containsMatch(field, inRangeTest)) return false;
    if (excepted !== undefined && !containsMatch(field, isExcepted)) return false;
    if (text !== undefined && !containsMatch(field, hasText)) return false;
    if (isNull !== undefined && hasNull(field) !== isNull) return false;
    if (isEmpty !== undefined && allEmpty(field) !== isEmpty) return false;
    return true;
  };
}

/**
 * A filter as a predicate over rows of any form R: `read` gives a row's field, `idTest` a
 * test of a `$hasId` list. Every clause must hold.
 */
function compileWith<R>(
  filter: Filter,
  reader: (key: string) => (row: R) => Field,
  idTest: (ids: readonly string[]) => (row: R) => boolean,
): (row: R) => boolean {
  const tests = filter.map((c): ((row: R) => boolean) => {
    if (isCondition(c)) {
      const test = compileCondition(c);
      const read = reader(c.key);
      return (row) => test(read(row));
    }
    if (isAnyOf(c)) {
      const alternatives = c.anyOf.map((f) => compileWith(f, reader, idTest));
      return (row) => alternatives.some((test) => test(row));
    }
    if (isNot(c)) {
      const inner = compileWith(c.not, reader, idTest);
      return (row) => !inner(row);
    }
    if (isHasId(c)) return idTest(c.hasId);
    const filters = c.minShould.map((f) => compileWith(f, reader, idTest));
    const count = c.count;
    return (row) => {
      let held = 0;
      for (let i = 0; i < filters.length && held < count; i++) if (filters[i](row)) held++;
      return held >= count;
    };
  });
  return (row) => {
    for (let i = 0; i < tests.length; i++) if (!tests[i](row)) return false;
    return true;
  };
}

/**
 * One predicate over a row's metadata (and id, for `$hasId`: without one, a `$hasId`
 * clause does not hold) for the whole filter.
 */
export function compileFilter(filter: Filter): (metadata: Metadata | undefined, id?: string) => boolean {
  let currentId: string | undefined;
  const test = compileWith<Metadata | undefined>(filter, fieldReader, (ids) => {
    const wanted = new Set(ids);
    return () => currentId !== undefined && wanted.has(currentId);
  });
  return (metadata, id) => {
    currentId = id;
    return test(metadata);
  };
}

/** Conditions in the filter, nested filters included: the cost of checking a row against it. */
export function filterCost(filter: Filter): number {
  let cost = 0;
  for (const c of filter) {
    if (isAnyOf(c)) cost += c.anyOf.reduce((sum, f) => sum + filterCost(f), 0);
    else if (isNot(c)) cost += Math.max(1, filterCost(c.not));
    else if (isMinShould(c)) cost += c.minShould.reduce((sum, f) => sum + filterCost(f), 0);
    else cost += 1;
  }
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
   * One field (path) of the row's metadata, as readField(metadata(label), key) gives it; a
   * table whose metadata is kept as JSON finds a top-level key without parsing the rest
   * (row-catalog.ts). Without it, filters read `metadata(label)`.
   */
  field?(label: number, key: string): Field;
  /** The live row's label for an id (`$hasId`); a filter with `$hasId` needs it. */
  labelOf?(id: string): number | undefined;
}

/** The labels of live rows with these ids. */
function labelsOf(rows: FilterRows, ids: readonly string[]): number[] {
  if (!rows.labelOf) throw new Error('$hasId needs FilterRows.labelOf');
  const out: number[] = [];
  const seen = new Set<number>();
  for (const id of ids) {
    const label = rows.labelOf(id);
    if (label === undefined || label >= rows.size || seen.has(label) || !rows.isAlive(label)) continue;
    seen.add(label);
    out.push(label);
  }
  return out;
}

/** A row's field through FilterRows. */
function rowField(rows: FilterRows, label: number, key: string): Field {
  return rows.field ? rows.field(label, key) : readField(rows.metadata(label), key);
}

/** compileFilter over the rows of a FilterRows, by label: reads only the fields the filter names. */
function compileRowFilter(filter: Filter, rows: FilterRows): (label: number) => boolean {
  let read: (label: number, key: string) => Field;
  let last = -1;
  let metadata: Metadata | undefined;
  if (rows.field) {
    read = (label, key) => (rows.field as (label: number, key: string) => Field)(label, key);
  } else {
    // metadata(label) may parse: once per row.
    read = (label, key) => {
      if (label !== last) {
        last = label;
        metadata = rows.metadata(label);
      }
      return readField(metadata, key);
    };
  }
  const test = compileWith<number>(
    filter,
    (key) => (label) => read(label, key),
    (ids) => {
      const wanted = new Set(labelsOf(rows, ids));
      return (label) => wanted.has(label);
    },
  );
  if (rows.field) return test;
  return (label) => {
    last = -1; // a row may be written again between two calls (a sliced evaluation)
    return test(label);
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
 * exact set of matching rows (evaluateSteps). A key is a field path: every path of a row's
 * metadata (nested objects, arrays of objects, literal dotted keys; eachPath) is indexed
 * with the scalar elements it reaches. Evaluation is a generator that yields at
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
 * from the index has every live row holding it in its posting lists or otherValues.
 */
export class MetadataIndex {
  private readonly postings = new Map<string, Map<Scalar, Set<number>>>();
  /**
   * path → the rows where the path reaches something no posting list holds: null, `[]`, an
   * object, an array holding one of those (present, for `$exists`).
   */
  private readonly otherValues = new Map<string, Set<number>>();
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
    return !this.full || this.postings.has(key) || this.otherValues.has(key);
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
    this.otherValues.delete(key);
    this.scanned.add(key);
  }

  /**
   * Calls `visit(path, value)` for every field path of the metadata and the value it reaches
   * there (module comment: keys joined by dots, arrays met on the way flattened), with an
   * explicit stack. A path longer than a filter key may be is skipped (never asked for).
   */
  private static eachPath(metadata: Metadata, visit: (path: string, value: MetadataValue) => void): void {
    const stack: Array<[MetadataValue, string | undefined]> = [[metadata, undefined]];
    while (stack.length > 0) {
      const [value, prefix] = stack.pop() as [MetadataValue, string | undefined];
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) {
          const element = value[i];
          if (element !== null && typeof element === 'object') stack.push([element, prefix]);
        }
        continue;
      }
      if (value === null || typeof value !== 'object') continue;
      for (const key of Object.keys(value)) {
        const path = prefix === undefined ? key : `${prefix}.${key}`;
        if (path.length > MAX_FILTER.stringLength) continue;
        const child = value[key];
        visit(path, child);
        if (child !== null && typeof child === 'object' && (!Array.isArray(child) || child.some(isContainer)))
          stack.push([child, path]);
      }
    }
  }

  add(label: number, metadata: Metadata | undefined): void {
    if (!metadata) return;
    MetadataIndex.eachPath(metadata, (key, field) => {
      // A filter names keys and strings of at most MAX_FILTER.stringLength characters: a
      // longer key is never asked for, a longer string never equals a filter's value.
      if (!this.isIndexed(key)) return;
      const values = Array.isArray(field) ? field : [field];
      let other = values.length === 0;
      let byValue = this.postings.get(key);
      for (const v of values) {
        if (v === null || typeof v === 'object') {
          other = true; // null, an object, a nested array: present, in no posting list
          continue;
        }
        // V8 hashes a string past 16,383 characters by its length alone, so long unique values
        // (LangChain's `content`) collide in a Map: a key holding one is scanned instead.
        if (typeof v === 'string' && v.length > MAX_FILTER.stringLength) {
          this.scan(key);
          return;
        }
        if (!byValue) this.postings.set(key, (byValue = new Map<Scalar, Set<number>>()));
        let labels = byValue.get(v);
        if (!labels) {
          if (byValue.size >= this.budget.distinctValuesPerKey || this.distinct >= this.budget.distinctValuesPerTable) {
            if (this.distinct >= this.budget.distinctValuesPerTable) this.full = true;
            this.scan(key); // the rows already added under this key leave with it
            return;
          }
          byValue.set(v, (labels = new Set()));
          this.distinct++;
        }
        labels.add(label);
      }
      if (other) {
        let set = this.otherValues.get(key);
        if (!set) this.otherValues.set(key, (set = new Set()));
        set.add(label);
      }
    });
  }

  remove(label: number, metadata: Metadata | undefined): void {
    if (!metadata) return;
    MetadataIndex.eachPath(metadata, (key, field) => {
      const other = this.otherValues.get(key);
      if (other?.delete(label) && other.size === 0) this.otherValues.delete(key);
      const byValue = this.postings.get(key);
      if (!byValue) return;
      for (const v of Array.isArray(field) ? field : [field]) {
        if (v === null || typeof v === 'object') continue;
        const labels = byValue.get(v);
        if (!labels) continue;
        labels.delete(label);
        if (labels.size === 0) {
          byValue.delete(v);
          this.distinct--;
        }
      }
      if (byValue.size === 0) this.postings.delete(key);
    });
  }

  /**
   * The live rows whose `key` field passes `test`, read from their metadata: how a scanned
   * key answers (one walk of the table, yielding at checkpoints).
   */
  private *scanAtom(key: string, rows: FilterRows, test: (field: MetadataValue | FieldValues) => boolean): Steps<Atom> {
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
      const wanted = new Set<MetadataValue>(values);
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

  /** `$text` walks its key's distinct values (strings containing the text), like a range. */
  private *textAtom(key: string, text: string, rows: FilterRows): Steps<Atom> {
    const contains = (x: MetadataValue): boolean => typeof x === 'string' && x.includes(text);
    if (!this.isIndexed(key)) return yield* this.scanAtom(key, rows, (field) => containsMatch(field, contains));
    const sets: Array<ReadonlySet<number>> = [];
    let size = 0;
    let examined = 0;
    for (const [value, labels] of this.postings.get(key) ?? []) {
      if (contains(value)) {
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
    const empty = this.otherValues.get(key);
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
    const conditions = filter.filter(isCondition);
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
    // The `$or`, `$not`, `$hasId` and `$minShould` parts first: one that holds for few rows
    // is checked like a selective part.
    for (const c of filter) {
      if (isCondition(c)) continue;
      const set = yield* this.clauseSet(c, ctx);
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
      // `$except`, `$isNull` and `$isEmpty` are answered by a scan of the rows' field (sliced).
      if (c.except !== undefined) {
        const excepted = new Set<MetadataValue>(c.except);
        const test = (x: MetadataValue): boolean => x !== null && !excepted.has(x);
        parts.push([yield* this.scanAtom(c.key, ctx.rows, (field) => containsMatch(field, test)), true]);
      }
      if (c.text !== undefined) parts.push([yield* this.textAtom(c.key, c.text, ctx.rows), true]);
      if (c.isNull !== undefined) parts.push([yield* this.scanAtom(c.key, ctx.rows, hasNull), c.isNull]);
      if (c.isEmpty !== undefined) parts.push([yield* this.scanAtom(c.key, ctx.rows, (f) => !allEmpty(f)), !c.isEmpty]);
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

  /** The rows a clause other than a condition holds for. */
  private *clauseSet(c: AnyOf | Not | HasId | MinShould, ctx: TreeContext): Steps<LabelSet> {
    if (isAnyOf(c)) return yield* this.anyOf(c, ctx);
    if (isNot(c)) {
      const inner = yield* this.allOf(c.not, ctx);
      return { negated: !inner.negated, labels: inner.labels };
    }
    if (isHasId(c)) {
      ctx.work += c.hasId.length;
      // Rows stored after the evaluation began are left out, as everywhere.
      return { negated: false, labels: labelsOf(ctx.rows, c.hasId).filter((label) => label < ctx.size) };
    }
    return yield* this.minShould(c, ctx);
  }

  /**
   * Rows where at least `count` filters hold: each filter's set, counted per row (+1 for a
   * set of labels, -1 for a negated set's labels on top of the number of negated sets), so
   * the work is the sets' labels, not the table.
   */
  private *minShould(c: MinShould, ctx: TreeContext): Steps<LabelSet> {
    const sets: LabelSet[] = [];
    for (const f of c.minShould) sets.push(yield* this.allOf(f, ctx));
    const negatedCount = sets.filter((s) => s.negated).length;
    const counts = new Int16Array(ctx.size);
    const touched: number[] = [];
    const seen = new Uint8Array(ctx.size);
    for (const set of sets) {
      const step = set.negated ? -1 : 1;
      for (const label of set.labels) {
        if (label >= ctx.size) continue;
        counts[label] += step;
        if (seen[label] === 0) {
          seen[label] = 1;
          touched.push(label);
        }
        if (tick(ctx)) yield;
      }
    }
    const labels: number[] = [];
    if (negatedCount >= c.count) {
      // Untouched rows hold: the set is every row but the touched ones short of the count.
      for (const label of touched) if (counts[label] + negatedCount < c.count) labels.push(label);
      return { negated: true, labels };
    }
    for (const label of touched) if (counts[label] + negatedCount >= c.count) labels.push(label);
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
