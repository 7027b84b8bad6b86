import fc from 'fast-check';
import { matchesFilter } from '../../../../test/support/search-reference';
import { compileFilter, type FilterRows, type IndexBudget, type Metadata, MetadataIndex, parseFilter } from './filter';
import { checkFilterLimits } from './filter-limits';

/**
 * Issue 31: past a budget of distinct values a key leaves the inverted index and its
 * conditions read the rows instead (decision 153). Answers must not change: every filter
 * is checked against the brute-force reference with budgets small enough that some keys
 * are scanned, after inserts, deletes and updates (a row's metadata replaced), and with the
 * default budget (every key indexed) for comparison.
 */

type Row = Metadata | undefined;

/** A table as the engine sees it: rows by label, some deleted. */
class Table {
  readonly metas: Row[] = [];
  readonly gone = new Set<number>();
  constructor(readonly index: MetadataIndex) {}

  add(m: Row): void {
    this.index.add(this.metas.length, m);
    this.metas.push(m);
  }

  remove(label: number): void {
    if (label >= this.metas.length || this.gone.has(label)) return;
    this.index.remove(label, this.metas[label]);
    this.gone.add(label);
  }

  /** The row keeps its label and gets new metadata (what the collection does on an update). */
  update(label: number, m: Row): void {
    if (label >= this.metas.length || this.gone.has(label)) return;
    this.index.remove(label, this.metas[label]);
    this.metas[label] = m;
    this.index.add(label, m);
  }

  get rows(): FilterRows {
    const { metas, gone } = this;
    return {
      size: metas.length,
      isAlive: (label) => label < metas.length && !gone.has(label),
      metadata: (label) => (gone.has(label) ? undefined : metas[label]),
    };
  }

  expected(f: Record<string, unknown>): number[] {
    return this.metas.map((_, l) => l).filter((l) => !this.gone.has(l) && matchesFilter(this.metas[l], f));
  }
}

const scalar = fc.oneof(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), fc.integer({ min: 0, max: 9 }), fc.boolean());
const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }));
const meta: fc.Arbitrary<Row> = fc.option(fc.dictionary(fc.constantFrom('x', 'y', 'z', 'w'), value, { maxKeys: 4 }), {
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
  fc.record({ $gt: bound, $gte: bound, $lt: bound, $lte: bound }, { requiredKeys: [] }).filter((o) => Object.keys(o).length > 0),
);
const fields = fc.dictionary(fc.constantFrom('x', 'y', 'z', 'w', 'v'), cond, { maxKeys: 3 });
const filter: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fields,
  fc.tuple(fields, fc.constantFrom('$and', '$or'), fc.array(fields, { minLength: 1, maxLength: 3 })).map(([f, op, parts]) => ({
    ...f,
    [op]: parts,
  })),
  fc
    .tuple(fields, fc.array(fields, { minLength: 2, maxLength: 3 }), fc.array(fields, { minLength: 1, maxLength: 2 }))
    .map(([f, or, and]) => ({ ...f, $or: [...or, { $and: and }] })),
);
/** A step after the rows are in: delete a label, or give it new metadata. */
const step = fc.oneof(fc.record({ remove: fc.nat(399) }), fc.record({ update: fc.nat(399), meta }), fc.record({ add: meta }));

function check(
  budget: IndexBudget | undefined,
  metas: Row[],
  steps: ReadonlyArray<Record<string, unknown>>,
  f: Record<string, unknown>,
) {
  fc.pre(checkFilterLimits(f) === undefined);
  const table = new Table(new MetadataIndex(budget));
  for (const m of metas) table.add(m);
  for (const s of steps) {
    if (typeof s.remove === 'number') table.remove(s.remove);
    else if (typeof s.update === 'number') table.update(s.update, s.meta as Row);
    else table.add(s.add as Row);
  }
  const parsed = parseFilter(f);
  const expected = table.expected(f);
  expect(table.index.evaluate(parsed, table.rows)).toEqual(expected);
  const predicate = compileFilter(parsed);
  expect(expected.every((l) => predicate(table.metas[l]))).toBe(true);
}

describe('metadata index past its distinct-value budget (issue 31)', () => {
  const budgets: Array<[string, IndexBudget | undefined]> = [
    ['default budget (every key indexed)', undefined],
    ['3 values per key (most keys scanned)', { distinctValuesPerKey: 3, distinctValuesPerTable: 1000 }],
    [
      '8 values per key, 12 per table (keys scanned, later keys not indexed)',
      { distinctValuesPerKey: 8, distinctValuesPerTable: 12 },
    ],
    ['1 value per table (everything scanned)', { distinctValuesPerKey: 1, distinctValuesPerTable: 1 }],
  ];

  it.each(budgets)('%s: small tables, with deletes and updates, equal the reference', (_name, budget) => {
    fc.assert(
      fc.property(fc.array(meta, { maxLength: 40 }), fc.array(step, { maxLength: 10 }), filter, (metas, steps, f) =>
        check(budget, metas, steps, f),
      ),
      { numRuns: 600 },
    );
  });

  it.each(budgets)('%s: larger tables (set algebra paths) equal the reference', (_name, budget) => {
    fc.assert(
      fc.property(
        fc.array(meta, { minLength: 150, maxLength: 400 }),
        fc.array(step, { maxLength: 60 }),
        filter,
        (metas, steps, f) => check(budget, metas, steps, f),
      ),
      { numRuns: 120 },
    );
  });

  it('a key unique on every row (LangChain `content`) stops growing the index; its filters stay exact', () => {
    const budget = { distinctValuesPerKey: 100, distinctValuesPerTable: 1000 };
    const table = new Table(new MetadataIndex(budget));
    for (let i = 0; i < 5000; i++) table.add({ content: `chunk text ${i}`, source: `doc${i % 7}`, page: i % 50 });
    const stats = table.index.stats();
    expect(stats.scannedKeys).toBe(1); // content
    expect(stats.distinctValues).toBe(7 + 50); // source and page stay indexed
    expect(table.index.isIndexed('content')).toBe(false);
    expect(table.index.isIndexed('source')).toBe(true);
    table.remove(42);
    table.update(43, { content: 'chunk text 42', source: 'doc0', page: 1 });
    for (const f of [
      { content: 'chunk text 42' },
      { content: { $in: ['chunk text 7', 'chunk text 4999', 'nope'] } },
      { content: { $ne: 'chunk text 1' }, source: 'doc3' },
      { $or: [{ content: 'chunk text 9' }, { page: 49, source: 'doc0' }] },
      { content: { $exists: false } },
    ]) {
      expect(table.index.evaluate(parseFilter(f), table.rows)).toEqual(table.expected(f));
    }
  });

  it('many distinct keys (64 new keys per row) stop at the table budget', () => {
    const budget = { distinctValuesPerKey: 100, distinctValuesPerTable: 500 };
    const table = new Table(new MetadataIndex(budget));
    for (let i = 0; i < 200; i++) {
      const m: Metadata = { kind: i % 3 };
      for (let k = 0; k < 63; k++) m[`k_${i}_${k}`] = k;
      table.add(m);
    }
    const stats = table.index.stats();
    expect(stats.full).toBe(true);
    expect(stats.distinctValues).toBeLessThanOrEqual(500);
    expect(stats.keys).toBeLessThanOrEqual(500);
    for (const f of [
      { kind: 1 },
      { k_150_3: 3 },
      { k_2_5: 5, kind: 2 },
      { k_199_62: { $exists: true } },
      { k_0_0: { $exists: false } },
    ]) {
      expect(table.index.evaluate(parseFilter(f), table.rows)).toEqual(table.expected(f));
    }
  });

  it('a key holding a string longer than a filter may name is scanned (long strings collide in V8 maps); long keys are not indexed', () => {
    const table = new Table(new MetadataIndex());
    const long = (i: number): string => `${'x'.repeat(20_000)}${i}`; // V8 hashes these by length alone
    for (let i = 0; i < 3000; i++)
      table.add({ content: long(i), [`k${'y'.repeat(2000)}`]: i, tag: i % 4, short: i % 2 === 0 ? 'a' : long(i) });
    expect(table.index.isIndexed('content')).toBe(false);
    expect(table.index.isIndexed('short')).toBe(false);
    expect(table.index.isIndexed('tag')).toBe(true);
    expect(table.index.stats()).toMatchObject({ keys: 1, distinctValues: 4, scannedKeys: 2 });
    table.remove(2);
    for (const f of [
      { short: 'a' },
      { short: { $ne: 'a' }, tag: 1 },
      { content: { $exists: true }, tag: 3 },
      { short: { $in: ['a', 'b'] } },
    ]) {
      expect(table.index.evaluate(parseFilter(f), table.rows)).toEqual(table.expected(f));
    }
  });
});
