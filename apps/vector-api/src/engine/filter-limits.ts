/**
 * Size limits of a query filter (docs/vector.md, "Filters"), checked on the raw JSON value
 * before anything else walks it: class-transformer's copy of an object costs O(keys²)
 * (it de-duplicates keys with indexOf), so a 100,000-key filter took 5 s of one event loop
 * just to be refused. The limits are generous for real filters (a handful of fields, an
 * `$in` list of ids) and of the order other vector databases set (Pinecone: 40 KB of
 * metadata per record, 1,000 records per upsert).
 */
export const MAX_FILTER = {
  /**
   * Logical depth: the filter is depth 1, each element of an `$and` / `$or` array or of
   * `$minShould`'s filters, and the filter of `$not`, one deeper than the filter holding it.
   */
  depth: 8,
  /**
   * Nesting of objects and arrays; the filter object itself is level 1 (`{"k": {"$in": [..]}}`
   * is 3). The deepest step from a filter to one a logical level deeper is `$minShould`'s
   * (`{"$minShould": {"filters": [{…}]}}`: 3 levels), so a filter at logical depth d is at
   * level ≤ 3d - 2, its field's operator object at 3d - 1 and an `$in` list at 3d: every
   * valid depth-8 filter fits in 3·8 + 3.
   */
  nesting: 3 * 8 + 3,
  /** Object keys at every level in all: field names and operators. */
  keys: 128,
  /** Elements of one array (an `$in` list). */
  valuesPerArray: 1000,
  /** Array elements in all. */
  values: 4096,
  /** Characters of one string, key or value. */
  stringLength: 1024,
  /** Characters of the filter as compact JSON (an escape sequence counts as one). */
  size: 65_536,
} as const;

/**
 * The filter breaks one of MAX_FILTER's limits. `path` names the offending string, array or
 * object for a limit of one part (length, nesting, logical depth), the filter itself for a
 * total.
 */
export class FilterLimitError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'FilterLimitError';
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Where a value sits, for the logical depth: `filter` is a position where a filter object
 * is expected (the root, an element of `$and` / `$or` / `$minShould`'s filters, the value
 * of `$not`), `list` the array of an `$and` / `$or` key of such a filter (or `filters` of
 * its `$minShould`), `minShould` the object of a `$minShould` key, `data` anything else.
 */
type Role = 'filter' | 'list' | 'minShould' | 'data';

interface Pending {
  readonly value: unknown;
  readonly path: string;
  readonly depth: number;
  readonly role: Role;
  /** Logical depth of the filter (role `filter`) or of the filter holding the list (role `list`). */
  readonly logical: number;
}

const LOGICAL_KEYS = new Set(['$and', '$or']);

function childPath(parent: string, key: string): string {
  return `${parent}.${key}`;
}

/** The error for a filter (in `$and` / `$or` / `$not` / `$minShould`) past MAX_FILTER.depth; parseFilter uses it too. */
export function filterTooDeep(path: string): FilterLimitError {
  return new FilterLimitError(
    path,
    `${path} is too deeply nested: $and, $or, $not and $minShould may nest filters at most ${MAX_FILTER.depth} levels deep, the filter being level 1 (docs/vector.md, "Filters").`,
  );
}

/**
 * Checks MAX_FILTER in one iterative pass that stops at the first limit crossed: every
 * node is visited at most once and nothing is pushed before the counts that admit it are
 * checked, so the work is linear in what is admitted (≤ keys + values nodes), not in the
 * input. The logical depth is checked on the way (an element of an `$and` / `$or` array of
 * a filter at MAX_FILTER.depth is refused), so parseFilter's recursion is bounded by it.
 * Types and operators are parseFilter's business; this only bounds the size.
 */
export function checkFilterLimits(value: unknown, root = 'filter'): FilterLimitError | undefined {
  let keys = 0;
  let values = 0;
  let size = 0;
  const over = (path: string, what: string): FilterLimitError =>
    new FilterLimitError(path, `${path} is too large: ${what} (docs/vector.md, "Filters").`);
  const overall = (what: string): FilterLimitError => over(root, what);
  const nesting = `objects and arrays may nest at most ${MAX_FILTER.nesting} levels`;
  const stack: Pending[] = [{ value, path: root, depth: 1, role: 'filter', logical: 1 }];
  while (stack.length > 0) {
    const { value: v, path, depth, role, logical } = stack.pop() as Pending;
    if (typeof v === 'string') {
      if (v.length > MAX_FILTER.stringLength)
        return over(path, `a string may have at most ${MAX_FILTER.stringLength} characters`);
      size += v.length + 2;
    } else if (typeof v === 'number') {
      size += String(v).length;
    } else if (typeof v === 'boolean') {
      size += v ? 4 : 5;
    } else if (Array.isArray(v)) {
      if (depth > MAX_FILTER.nesting) return over(path, nesting);
      if (role === 'list' && v.length > 0 && logical + 1 > MAX_FILTER.depth) return filterTooDeep(`${path}[0]`);
      if (v.length > MAX_FILTER.valuesPerArray)
        return over(path, `an array may have at most ${MAX_FILTER.valuesPerArray} values`);
      values += v.length;
      if (values > MAX_FILTER.values) return overall(`a filter may have at most ${MAX_FILTER.values} array values in all`);
      size += 2 + Math.max(0, v.length - 1);
      const child: Role = role === 'list' ? 'filter' : 'data';
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ value: v[i], path: `${path}[${i}]`, depth: depth + 1, role: child, logical: logical + 1 });
    } else if (isPlainObject(v)) {
      if (depth > MAX_FILTER.nesting) return over(path, nesting);
      const own = Object.keys(v);
      keys += own.length;
      if (keys > MAX_FILTER.keys) return overall(`a filter may have at most ${MAX_FILTER.keys} keys in all`);
      size += 2 + Math.max(0, own.length - 1);
      for (let i = own.length - 1; i >= 0; i--) {
        const key = own[i];
        const p = childPath(path, key);
        if (key.length > MAX_FILTER.stringLength) return over(p, `a key may have at most ${MAX_FILTER.stringLength} characters`);
        size += key.length + 3;
        if (role === 'filter' && key === '$not') {
          if (logical + 1 > MAX_FILTER.depth) return filterTooDeep(p);
          stack.push({ value: v[key], path: p, depth: depth + 1, role: 'filter', logical: logical + 1 });
          continue;
        }
        const child: Role =
          (role === 'filter' && LOGICAL_KEYS.has(key)) || (role === 'minShould' && key === 'filters')
            ? 'list'
            : role === 'filter' && key === '$minShould'
              ? 'minShould'
              : 'data';
        stack.push({ value: v[key], path: p, depth: depth + 1, role: child, logical });
      }
    } else {
      size += 4; // null (and anything JSON cannot carry, which parseFilter refuses)
    }
    if (size > MAX_FILTER.size) return overall(`a filter may have at most ${MAX_FILTER.size} characters as JSON`);
  }
  return undefined;
}
