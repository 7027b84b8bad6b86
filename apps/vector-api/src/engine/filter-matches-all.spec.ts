import fc from 'fast-check';
import { compileFilter, type Metadata, parseFilter } from './filter';
import { matchesEveryRow } from './filter-matches-all';
import { checkFilterLimits } from './filter-limits';

const everyRow = (f: unknown): boolean => matchesEveryRow(parseFilter(f));

describe('matchesEveryRow (a delete by such a filter is 400 filter_matches_all)', () => {
  it.each([
    ['an empty filter', {}],
    ['an $and of empty filters', { $and: [{}] }],
    ['an $and of $and of empty filters', { $and: [{ $and: [{}, {}] }] }],
    ['an $or with an empty alternative', { $or: [{}, { k: 1 }] }],
    ['$nin: []', { k: { $nin: [] } }],
    ['$nin: [] beside an empty $and', { k: { $nin: [] }, $and: [{}] }],
    ['an $or with a $nin: [] alternative', { $or: [{ k: 1 }, { j: { $nin: [] } }] }],
    ['$exists: true or $exists: false', { $or: [{ k: { $exists: true } }, { k: { $exists: false } }] }],
    ['k: v or $ne: v', { $or: [{ k: 'v' }, { k: { $ne: 'v' } }] }],
    ['$in ⊇ $nin', { $or: [{ k: { $in: [1, 2, 3] } }, { k: { $nin: [2, 1] } }] }],
    ['$nin covered by several positives', { $or: [{ k: 1 }, { k: { $in: [2] } }, { k: { $nin: [1, 2] } }] }],
    ['$exists: true covers any $ne', { $or: [{ k: { $exists: true } }, { k: { $ne: 7 } }] }],
    ['a tautology inside an $and', { $and: [{ $or: [{ k: { $exists: true } }, { k: { $exists: false } }] }] }],
  ])('true for %s', (_, filter) => {
    expect(everyRow(filter)).toBe(true);
  });

  it.each([
    ['an equality', { k: 1 }],
    ['$nin of a value', { k: { $nin: [1] } }],
    ['$ne', { k: { $ne: 1 } }],
    ['$exists: true', { k: { $exists: true } }],
    ['$exists: false', { k: { $exists: false } }],
    ['$nin: [] beside a condition', { k: { $nin: [] }, j: 1 }],
    ['$nin: [] with another operator', { k: { $nin: [], $ne: 1 } }],
    ['complements on different fields', { $or: [{ k: 1 }, { j: { $ne: 1 } }] }],
    ['values of different types', { $or: [{ k: 1 }, { k: { $ne: '1' } }] }],
    ['$in not covering $nin', { $or: [{ k: { $in: [1] } }, { k: { $nin: [1, 2] } }] }],
    ['two negatives (an array can contain both)', { $or: [{ k: { $ne: 1 } }, { k: { $ne: 2 } }] }],
    ['ranges that look complementary (a missing field, a string)', { $or: [{ k: { $gt: 5 } }, { k: { $lte: 5 } }] }],
    ['$exists: false or an equality', { $or: [{ k: { $exists: false } }, { k: 1 }] }],
  ])('false for %s', (_, filter) => {
    expect(everyRow(filter)).toBe(false);
  });

  it('is sound: whenever it says true, every row matches (property, against the engine)', () => {
    const scalar = fc.oneof(fc.constantFrom('a', 'b'), fc.integer({ min: 0, max: 2 }), fc.boolean());
    const element = fc.oneof(scalar, fc.constant(null), fc.constant({ z: 1 }));
    const value = fc.oneof(scalar, fc.constant(null), fc.array(element, { maxLength: 3 }));
    const meta = fc.option(fc.dictionary(fc.constantFrom('x', 'y'), value, { maxKeys: 2 }), { nil: undefined });
    const cond = fc.oneof(
      scalar,
      fc.record({ $in: fc.array(scalar, { maxLength: 3 }) }),
      fc.record({ $nin: fc.array(scalar, { maxLength: 2 }) }),
      fc.record({ $ne: scalar }),
      fc.record({ $exists: fc.boolean() }),
      fc.record({ $gt: fc.integer({ min: -1, max: 3 }) }),
      fc.record({ $isNull: fc.boolean() }),
      fc.record({ $isEmpty: fc.boolean() }),
      fc.record({ $except: fc.array(scalar, { maxLength: 2 }) }),
    );
    const leaf = fc.dictionary(fc.constantFrom('x', 'y'), cond, { minKeys: 1, maxKeys: 2 });
    const filter = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.constant({}),
        fc.record({ $or: fc.array(tie('node'), { minLength: 1, maxLength: 4 }) }),
        fc.record({ $and: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
        fc.record({ $not: tie('node') }),
        fc.record({ $hasId: fc.array(fc.constantFrom('r0', 'r1'), { maxLength: 2 }) }),
        fc
          .tuple(fc.array(tie('node'), { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 3 }))
          .map(([filters, count]) => ({ $minShould: { filters, count } })),
      ),
    })).node;
    let tautologies = 0;
    fc.assert(
      fc.property(filter, fc.array(meta, { maxLength: 40 }), (f, metas) => {
        fc.pre(checkFilterLimits(f) === undefined); // the generator may nest past the logical depth
        const parsed = parseFilter(f);
        if (!matchesEveryRow(parsed)) return;
        tautologies++;
        const test = compileFilter(parsed);
        metas.forEach((m, i) => expect(test(m as Metadata | undefined, `r${i}`)).toBe(true));
      }),
      { numRuns: 3000 },
    );
    expect(tautologies).toBeGreaterThan(50); // the property did look at filters it flags
  });
});
