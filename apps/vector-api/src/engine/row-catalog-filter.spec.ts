import fc from 'fast-check';
import { matchesFilter } from '../../../../test/support/search-reference';
import { type FilterRows, type IndexBudget, type Metadata, MetadataIndex, parseFilter } from './filter';
import { checkFilterLimits } from './filter-limits';
import { RowCatalog } from './row-catalog';

/**
 * Filters over rows whose metadata lives as JSON in a RowCatalog (issue 32): a scanned key
 * is read with `field` (the value found in the row's JSON without parsing the rest), a
 * selective part's rows are checked field by field. Answers must equal the brute-force
 * reference over the metadata objects, with budgets small enough that keys are scanned.
 */

type Row = Metadata | undefined;

const scalar = fc.oneof(
  fc.constantFrom('a', 'b', 'ü', 'x"y', 'back\\slash', '', '12', 'd1234567890'),
  fc.integer({ min: -3, max: 9 }),
  fc.constantFrom(0.5, -2.25, 1e21, 3e-7),
  fc.boolean(),
);
const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }));
const meta: fc.Arbitrary<Row> = fc.option(fc.dictionary(fc.constantFrom('x', 'y', 'z', 'w', 'wx', 'ÿ'), value, { maxKeys: 5 }), {
  freq: 10,
  nil: undefined,
});
const bound = fc.integer({ min: -1, max: 10 });
const cond = fc.oneof(
  scalar,
  fc.record({ $in: fc.array(scalar, { maxLength: 4 }) }),
  fc.record({ $nin: fc.array(scalar, { maxLength: 4 }) }),
  fc.record({ $ne: scalar }),
  fc.record({ $exists: fc.boolean() }),
  fc.record({ $gt: bound, $lte: bound }, { requiredKeys: [] }).filter((o) => Object.keys(o).length > 0),
);
const fields = fc.dictionary(fc.constantFrom('x', 'y', 'z', 'w', 'wx', 'ÿ'), cond, { maxKeys: 3 });
const filter: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fields,
  fc.tuple(fields, fc.array(fields, { minLength: 1, maxLength: 3 })).map(([f, parts]) => ({ ...f, $or: parts })),
);
const step: fc.Arbitrary<{ remove?: number; update?: number; meta?: Row }> = fc.oneof(
  fc.record({ remove: fc.nat(59) }),
  fc.record({ update: fc.nat(59), meta }),
);

describe('filters over a RowCatalog (metadata kept as JSON)', () => {
  const budgets: Array<[string, IndexBudget]> = [
    ['every key scanned', { distinctValuesPerKey: 1, distinctValuesPerTable: 1 }],
    ['some keys scanned', { distinctValuesPerKey: 3, distinctValuesPerTable: 1000 }],
  ];
  it.each(budgets)('%s: equal the reference after inserts, deletes and updates', (_name, budget) => {
    fc.assert(
      fc.property(fc.array(meta, { maxLength: 60 }), fc.array(step, { maxLength: 10 }), filter, (metas, steps, f) => {
        fc.pre(checkFilterLimits(f) === undefined);
        const index = new MetadataIndex(budget);
        const catalog = new RowCatalog({ background: false });
        const rows: Row[] = [];
        metas.forEach((m, label) => {
          catalog.set(label, `id-${label}`, m);
          index.add(label, m);
          rows.push(m);
        });
        for (const s of steps) {
          const label = s.remove ?? s.update ?? 0;
          if (label >= rows.length || !catalog.has(label)) continue;
          index.remove(label, catalog.metadata(label));
          if (s.remove !== undefined) {
            catalog.delete(label);
          } else {
            catalog.set(label, `id-${label}`, s.meta);
            index.add(label, s.meta);
            rows[label] = s.meta;
          }
        }
        const filterRows: FilterRows = {
          size: rows.length,
          isAlive: (label) => catalog.has(label),
          metadata: (label) => catalog.metadata(label),
          field: (label, key) => catalog.field(label, key),
        };
        const expected = rows.map((_, l) => l).filter((l) => catalog.has(l) && matchesFilter(rows[l], f));
        expect(index.evaluate(parseFilter(f), filterRows)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
