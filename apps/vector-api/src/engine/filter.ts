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

/** Parses the API's filter object into conditions. */
export function parseFilter(value: unknown, path = 'filter'): Filter {
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

const valueKey = (v: Scalar): string => `${typeof v}:${String(v)}`;

interface Posting {
  readonly value: Scalar;
  readonly labels: Set<number>;
}

/**
 * Inverted index of metadata values: key → value → labels. Answers a filter with the exact
 * set of matching labels; range conditions walk the key's distinct values, not the rows.
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

  private union(key: string, pred: (v: Scalar) => boolean): Set<number> {
    const out = new Set<number>();
    const byValue = this.postings.get(key);
    if (!byValue) return out;
    for (const posting of byValue.values()) if (pred(posting.value)) for (const l of posting.labels) out.add(l);
    return out;
  }

  private equal(key: string, v: Scalar): Set<number> {
    return this.postings.get(key)?.get(valueKey(v))?.labels ?? new Set<number>();
  }

  /**
   * Labels of the rows matching `filter`, ascending. `allLabels` supplies the universe for
   * a filter made only of `$ne` conditions.
   */
  evaluate(filter: Filter, allLabels: () => number[]): number[] {
    const positive: Array<Set<number>> = [];
    const negative: Array<Set<number>> = [];
    for (const c of filter) {
      if (c.eq !== undefined) positive.push(this.equal(c.key, c.eq));
      if (c.in !== undefined) {
        const wanted = new Set(c.in.map(valueKey));
        positive.push(this.union(c.key, (v) => wanted.has(valueKey(v))));
      }
      if (c.range !== undefined) {
        const range = c.range;
        positive.push(this.union(c.key, (v) => inRange(v, range)));
      }
      if (c.ne !== undefined) negative.push(this.equal(c.key, c.ne));
    }
    let result: number[];
    if (positive.length === 0) {
      result = allLabels();
    } else {
      positive.sort((a, b) => a.size - b.size);
      const [smallest, ...rest] = positive as [Set<number>, ...Array<Set<number>>];
      result = [];
      for (const l of smallest) if (rest.every((s) => s.has(l))) result.push(l);
      result.sort((a, b) => a - b);
    }
    return negative.length === 0 ? result : result.filter((l) => !negative.some((s) => s.has(l)));
  }
}
