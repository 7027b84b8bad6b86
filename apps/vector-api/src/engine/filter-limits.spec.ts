import { performance } from 'node:perf_hooks';
import { checkFilterLimits, FilterLimitError, MAX_FILTER } from './filter-limits';

const fields = (n: number, value: (i: number) => unknown = (i) => i): Record<string, unknown> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, value(i)]));

/** Arrays nested `levels` deep ([[… [1]]]). */
function arrays(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

/**
 * A filter of logical depth `depth` through `op` ({"$or": [{"$or": [… {"y": {"$in": [1]}}]}]}),
 * every level with a field condition beside it, built without recursion.
 */
function logical(depth: number, op: '$and' | '$or'): Record<string, unknown> {
  let f: Record<string, unknown> = { y: { $in: [1, 2] }, z: { $gte: 1, $lt: 3 } };
  for (let d = depth - 1; d >= 1; d--) f = { x: { $nin: ['a'] }, [op]: [f, { w: { $exists: true } }] };
  return f;
}

/** An object nested `levels` deep ({"a": {"a": … 1}}), built without recursion. */
function nested(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

describe('filter limits', () => {
  it.each<[string, unknown]>([
    ['keys', fields(MAX_FILTER.keys)],
    ['keys counting operators', fields(MAX_FILTER.keys / 2, () => ({ $gte: 1 }))],
    ['values of one array', { f: { $in: Array.from({ length: MAX_FILTER.valuesPerArray }, (_, i) => i) } }],
    ['values in all', fields(MAX_FILTER.values / 256, () => ({ $in: Array.from({ length: 256 }, (_, i) => i) }))],
    ['a string', { f: 'x'.repeat(MAX_FILTER.stringLength) }],
    ['a key', { ['k'.repeat(MAX_FILTER.stringLength)]: 1 }],
    ['nesting', nested(MAX_FILTER.nesting)],
    ['logical depth, with operator objects and $in lists at the bottom', logical(MAX_FILTER.depth, '$or')],
    ['logical depth through $and', logical(MAX_FILTER.depth, '$and')],
  ])('accepts a filter at the limit of %s', (_name, filter) => {
    expect(checkFilterLimits(filter)?.message).toBeUndefined();
  });

  it.each<[string, unknown, string]>([
    ['keys', fields(MAX_FILTER.keys + 1), 'filter'],
    ['keys counting operators', { ...fields(MAX_FILTER.keys / 2, () => ({ $gte: 1 })), one: 1 }, 'filter'],
    ['values of one array', { f: { $in: Array.from({ length: MAX_FILTER.valuesPerArray + 1 }, (_, i) => i) } }, 'filter.f.$in'],
    [
      'values in all',
      fields(Math.floor(MAX_FILTER.values / MAX_FILTER.valuesPerArray) + 1, () => ({
        $in: Array.from({ length: MAX_FILTER.valuesPerArray }, (_, i) => i),
      })),
      'filter',
    ],
    ['a string', { f: { $ne: 'x'.repeat(MAX_FILTER.stringLength + 1) } }, 'filter.f.$ne'],
    ['a key', { ['k'.repeat(MAX_FILTER.stringLength + 1)]: 1 }, `filter.${'k'.repeat(MAX_FILTER.stringLength + 1)}`],
    ['nesting', nested(MAX_FILTER.nesting + 1), `filter${'.a'.repeat(MAX_FILTER.nesting)}`],
    ['nesting through arrays', { f: { $in: arrays(MAX_FILTER.nesting) } }, `filter.f.$in${'[0]'.repeat(MAX_FILTER.nesting - 2)}`],
    ['size', fields(70, () => 'x'.repeat(1000)), 'filter'],
  ])('refuses a filter over the limit of %s', (_name, filter, path) => {
    const err = checkFilterLimits(filter);
    expect({ path: err?.path, tooLarge: err?.message.includes('is too large') }).toEqual({ path, tooLarge: true });
  });

  it.each<['$and' | '$or']>([['$and'], ['$or']])('refuses logical depth %s 9, naming the filter that is too deep', (op) => {
    const err = checkFilterLimits(logical(MAX_FILTER.depth + 1, op));
    expect(err).toBeInstanceOf(FilterLimitError);
    expect(err?.path).toBe(`filter${`.${op}[0]`.repeat(MAX_FILTER.depth)}`);
    expect(err?.message).toContain('at most 8 levels');
    // an element that is not an object is as deep
    let v: unknown = 1;
    for (let d = 0; d < MAX_FILTER.depth; d++) v = { [op]: [v] };
    expect(checkFilterLimits(v)?.path).toBe(`filter${`.${op}[0]`.repeat(MAX_FILTER.depth)}`);
  });

  it('stops at the first limit crossed, without recursion, whatever the size of the rest', () => {
    expect(checkFilterLimits(nested(1_000_000))?.path).toBe(`filter${'.a'.repeat(MAX_FILTER.nesting)}`);
    expect(checkFilterLimits(fields(200_000))?.path).toBe('filter');
    expect(checkFilterLimits({ f: { $in: new Array(10_000_000).fill(1) } })?.path).toBe('filter.f.$in');
  });

  it('refuses hostile $and / $or fast: 100,000 levels deep, 1,000,000 alternatives', () => {
    let deep: unknown = { a: 1 };
    for (let i = 0; i < 100_000; i++) deep = { $or: [deep, { b: 1 }] };
    let arrayDeep: unknown = { a: 1 };
    for (let i = 0; i < 100_000; i++) arrayDeep = { $and: [[arrayDeep]] };
    const wide = { $or: Array.from({ length: 1_000_000 }, (_, i) => ({ a: i })) };
    const manyEmpty = { $or: Array.from({ length: 1_000 }, () => ({ $and: Array.from({ length: 1_000 }, () => ({})) })) };
    const started = performance.now();
    expect(checkFilterLimits(deep)?.path).toBe(`filter${'.$or[0]'.repeat(MAX_FILTER.depth)}`);
    expect(checkFilterLimits(arrayDeep)).toBeInstanceOf(FilterLimitError);
    expect(checkFilterLimits(wide)?.path).toBe('filter.$or');
    expect(checkFilterLimits(manyEmpty)?.path).toBe('filter');
    expect(performance.now() - started).toBeLessThan(1000); // generous for a loaded CI machine; linear, ~ms in practice
  });

  it('leaves types to parseFilter', () => {
    expect(checkFilterLimits({ a: null, b: [1, 'x', true], c: { $lt: 3 } })).toBeUndefined();
    expect(checkFilterLimits('a string')).toBeUndefined();
  });
});
