import { checkFilterLimits, MAX_FILTER } from './filter-limits';

const fields = (n: number, value: (i: number) => unknown = (i) => i): Record<string, unknown> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, value(i)]));

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
    ['depth', nested(MAX_FILTER.depth)],
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
    ['depth', nested(MAX_FILTER.depth + 1), `filter${'.a'.repeat(MAX_FILTER.depth)}`],
    ['depth through arrays', { f: { $in: [[[[[[[[1]]]]]]]] } }, 'filter.f.$in[0][0][0][0][0][0]'],
    ['size', fields(70, () => 'x'.repeat(1000)), 'filter'],
  ])('refuses a filter over the limit of %s', (_name, filter, path) => {
    const err = checkFilterLimits(filter);
    expect({ path: err?.path, tooLarge: err?.message.includes('is too large') }).toEqual({ path, tooLarge: true });
  });

  it('stops at the first limit crossed, without recursion, whatever the size of the rest', () => {
    expect(checkFilterLimits(nested(1_000_000))?.path).toBe(`filter${'.a'.repeat(MAX_FILTER.depth)}`);
    expect(checkFilterLimits(fields(200_000))?.path).toBe('filter');
    expect(checkFilterLimits({ f: { $in: new Array(10_000_000).fill(1) } })?.path).toBe('filter.f.$in');
  });

  it('leaves types to parseFilter', () => {
    expect(checkFilterLimits({ a: null, b: [1, 'x', true], c: { $lt: 3 } })).toBeUndefined();
    expect(checkFilterLimits('a string')).toBeUndefined();
  });
});
