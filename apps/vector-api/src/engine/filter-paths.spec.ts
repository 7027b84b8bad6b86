import fc from 'fast-check';
import {
  compileFilter,
  type FilterRows,
  type IndexBudget,
  type Metadata,
  type MetadataValue,
  MetadataIndex,
  parseFilter,
  readField,
} from './filter';
import { checkFilterLimits } from './filter-limits';
import { matchesEveryRow } from './filter-matches-all';
import { RowCatalog } from './row-catalog';
import { anyElement, valuesAt } from '../../../../test/support/payload-reference';

/**
 * Issue 34: nested metadata, field paths and the operators the Qdrant-compatible API needs
 * ($except, $text, $isNull, $isEmpty, $not, $hasId, $minShould). Unit cases, then a property:
 * the inverted index (every key indexed, some scanned, all scanned), compileFilter and a
 * RowCatalog (metadata kept as JSON) select exactly what the small reference below selects.
 */

type Json = MetadataValue;
type Row = Metadata | undefined;

// ---------------------------------------------------------------------------------------
// The reference: written from Qdrant's documented semantics (payload paths, match value /
// any / except / text, range, is_null, is_empty, has_id, must / should / must_not /
// min_should), not from the engine's code. The payload is first flattened into every
// (dotted path, value) pair it holds; a field's values are the pairs of its path.
// ---------------------------------------------------------------------------------------

const same = (a: Json, b: Json): boolean => a === b;

function refCondition(values: Json[], cond: unknown): boolean {
  const present = values.length > 0;
  if (typeof cond !== 'object' || cond === null) return anyElement(values, (v) => same(v, cond as Json));
  return Object.entries(cond).every(([op, arg]) => {
    switch (op) {
      case '$eq':
        return anyElement(values, (v) => same(v, arg as Json));
      case '$in':
        return anyElement(values, (v) => (arg as Json[]).some((a) => same(v, a)));
      case '$nin':
        return !anyElement(values, (v) => (arg as Json[]).some((a) => same(v, a)));
      case '$ne':
        return !anyElement(values, (v) => same(v, arg as Json));
      case '$gt':
        return anyElement(values, (v) => typeof v === 'number' && v > (arg as number)) && rangeTogether(values, cond);
      case '$gte':
      case '$lt':
      case '$lte':
        return rangeTogether(values, cond);
      case '$exists':
        return present === arg;
      case '$except': // match.except: null never; another type, an object, a nested array always
        return anyElement(values, (v) => v !== null && !(arg as Json[]).some((a) => same(v, a)));
      case '$text':
        return anyElement(values, (v) => typeof v === 'string' && v.includes(arg as string));
      case '$isNull': // is_null: a value (not an element) is null
        return values.some((v) => v === null) === arg;
      case '$isEmpty': // is_empty: every value null or [] (no value: empty)
        return values.every((v) => v === null || (Array.isArray(v) && v.length === 0)) === arg;
      default:
        throw new Error(`reference: ${op}`);
    }
  });
}

/** Range bounds hold together on one element. */
function rangeTogether(values: Json[], cond: object): boolean {
  const bounds = Object.entries(cond).filter(([op]) => ['$gt', '$gte', '$lt', '$lte'].includes(op)) as Array<[string, number]>;
  return anyElement(
    values,
    (v) =>
      typeof v === 'number' &&
      bounds.every(([op, x]) => (op === '$gt' ? v > x : op === '$gte' ? v >= x : op === '$lt' ? v < x : v <= x)),
  );
}

function refMatches(payload: Row, id: string, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([key, arg]) => {
    if (key === '$and') return (arg as Array<Record<string, unknown>>).every((f) => refMatches(payload, id, f));
    if (key === '$or') return (arg as Array<Record<string, unknown>>).some((f) => refMatches(payload, id, f));
    if (key === '$not') return !refMatches(payload, id, arg as Record<string, unknown>);
    if (key === '$hasId') return (arg as string[]).includes(id);
    if (key === '$minShould') {
      const { filters, count } = arg as { filters: Array<Record<string, unknown>>; count: number };
      return filters.filter((f) => refMatches(payload, id, f)).length >= count;
    }
    return refCondition(valuesAt(payload, key), arg);
  });
}

// ---------------------------------------------------------------------------------------

const idOf = (label: number): string => `id-${label}`;

function rowsOf(metas: readonly Row[], gone: ReadonlySet<number> = new Set()): FilterRows {
  return {
    size: metas.length,
    isAlive: (label) => label < metas.length && !gone.has(label),
    metadata: (label) => (gone.has(label) ? undefined : metas[label]),
    labelOf: (id) => {
      const label = Number(id.slice(3));
      return id.startsWith('id-') && Number.isInteger(label) && label < metas.length ? label : undefined;
    },
  };
}

function indexOf(metas: readonly Row[], budget?: IndexBudget): MetadataIndex {
  const index = new MetadataIndex(budget);
  metas.forEach((m, label) => index.add(label, m));
  return index;
}

describe('field paths', () => {
  const meta: Metadata = {
    content: 'text',
    metadata: { source: 'a.pdf', page: 3, authors: [{ name: 'ann' }, { name: 'bob' }] },
    'metadata.source': 'b.pdf',
    tags: ['x', null],
  };

  it.each<[string, unknown]>([
    ['content', 'text'],
    ['metadata.page', 3],
    ['metadata.authors.name', undefined], // several values: checked below
    ['metadata.nothing', undefined],
    ['tags', ['x', null]],
    ['content.length', undefined],
  ])('reads %s', (key, expected) => {
    const field = readField(meta, key);
    if (key === 'metadata.authors.name') expect(field).toMatchObject({ values: ['ann', 'bob'] });
    else expect(field).toEqual(expected);
  });

  it('a literal dotted key and the nested key both reach the path', () => {
    expect(readField(meta, 'metadata.source')).toMatchObject({ values: expect.arrayContaining(['a.pdf', 'b.pdf']) as unknown });
  });

  it('is found by the index, compileFilter and a RowCatalog alike', () => {
    const rows: Row[] = [
      meta,
      { metadata: { source: 'c.pdf', authors: [] } },
      { 'metadata.authors.name': 'ann' },
      { metadata: [{ authors: { name: ['bob', 'cy'] } }] },
      undefined,
    ];
    const catalog = new RowCatalog({ background: false });
    rows.forEach((m, label) => catalog.set(label, idOf(label), m));
    const catalogRows: FilterRows = {
      size: rows.length,
      isAlive: (label) => catalog.has(label),
      metadata: (label) => catalog.metadata(label),
      field: (label, key) => catalog.field(label, key),
      labelOf: (id) => catalog.labelOf(id),
    };
    const cases: Array<[unknown, number[]]> = [
      [{ 'metadata.source': 'a.pdf' }, [0]],
      [{ 'metadata.source': 'b.pdf' }, [0]],
      [{ 'metadata.authors.name': 'ann' }, [0, 2]],
      [{ 'metadata[].authors[].name': 'bob' }, [0, 3]],
      [{ 'metadata.authors': { $isEmpty: true } }, [1, 2, 4]],
      [{ 'metadata.authors.name': { $exists: false } }, [1, 4]],
      [{ tags: { $isNull: true } }, []],
      [{ tags: 'x' }, [0]],
      [{ metadata: { $exists: true } }, [0, 1, 3]],
    ];
    const index = indexOf(rows);
    for (const [f, expected] of cases) {
      const filter = parseFilter(f);
      expect([f, index.evaluate(filter, rowsOf(rows))]).toEqual([f, expected]);
      expect([f, indexOf(rows, { distinctValuesPerKey: 1, distinctValuesPerTable: 1 }).evaluate(filter, catalogRows)]).toEqual([
        f,
        expected,
      ]);
      const test = compileFilter(filter);
      expect([f, rows.map((_, l) => l).filter((l) => test(rows[l], idOf(l)))]).toEqual([f, expected]);
    }
  });
});

describe('the new operators', () => {
  const rows: Row[] = [
    { color: 'red', n: 1, note: 'hello world' },
    { color: ['blue', 'red'], n: 2.5 },
    { color: null, n: [3, 4] },
    { color: [], note: 'Hello' },
    { color: [null], n: { x: 1 } },
    { color: true },
    undefined,
  ];
  const index = indexOf(rows);
  const run = (f: unknown): number[] => index.evaluate(parseFilter(f), rowsOf(rows));

  it.each<[string, unknown, number[]]>([
    ['$except: an element none of them', { color: { $except: ['red'] } }, [1, 5]],
    ['$except: [] is any non-null element', { color: { $except: [] } }, [0, 1, 5]],
    ['$except over an object value', { n: { $except: [1] } }, [1, 2, 4]],
    ['$text: a substring, case-sensitive', { note: { $text: 'ello' } }, [0, 3]],
    ['$text: case matters', { note: { $text: 'Hello' } }, [3]],
    ['$isNull: true (a null value; [null] is not)', { color: { $isNull: true } }, [2]],
    ['$isNull: false', { color: { $isNull: false } }, [0, 1, 3, 4, 5, 6]],
    ['$isEmpty: true (missing, null or [])', { color: { $isEmpty: true } }, [2, 3, 6]],
    ['$isEmpty: false', { color: { $isEmpty: false } }, [0, 1, 4, 5]],
    ['$not', { $not: { color: 'red' } }, [2, 3, 4, 5, 6]],
    ['$not of $not', { $not: { $not: { color: 'red' } } }, [0, 1]],
    ['$hasId', { $hasId: ['id-1', 'id-5', 'nope'] }, [1, 5]],
    ['$hasId with a condition', { $hasId: ['id-1', 'id-5'], color: 'red' }, [1]],
    [
      '$minShould',
      { $minShould: { filters: [{ color: 'red' }, { n: { $gte: 2 } }, { note: { $exists: true } }], count: 2 } },
      [0, 1],
    ],
    [
      '$minShould with negations',
      { $minShould: { filters: [{ $not: { color: 'red' } }, { n: { $exists: false } }], count: 2 } },
      [3, 5, 6],
    ],
    ['$minShould count above the filters', { $minShould: { filters: [{ color: 'red' }], count: 2 } }, []],
  ])('%s', (_name, f, expected) => {
    expect(run(f)).toEqual(expected);
    const test = compileFilter(parseFilter(f));
    expect(rows.map((_, l) => l).filter((l) => test(rows[l], idOf(l)))).toEqual(expected);
    expect(rows.map((_, l) => l).filter((l) => refMatches(rows[l], idOf(l), f as Record<string, unknown>))).toEqual(expected);
  });

  it.each<[unknown, string]>([
    [{ a: { $except: 'x' } }, 'filter.a.$except'],
    [{ a: { $text: 1 } }, 'filter.a.$text'],
    [{ a: { $isNull: 'yes' } }, 'filter.a.$isNull'],
    [{ a: { $isEmpty: 1 } }, 'filter.a.$isEmpty'],
    [{ $not: [] }, 'filter.$not'],
    [{ $hasId: 'id-1' }, 'filter.$hasId'],
    [{ $hasId: [1] }, 'filter.$hasId'],
    [{ $minShould: { filters: [], count: 1 } }, 'filter.$minShould.filters'],
    [{ $minShould: { filters: [{}], count: 0 } }, 'filter.$minShould.count'],
    [{ $minShould: { filters: [{}], count: 1, extra: 1 } }, 'filter.$minShould.extra'],
    [{ $nor: [] }, 'filter.$nor'],
  ])('refuses %j naming %s', (f, path) => {
    expect(() => parseFilter(f)).toThrow(expect.objectContaining({ path }) as Error);
  });

  it('counts $not and $minShould as logical levels', () => {
    let f: unknown = { a: 1 };
    for (let d = 1; d < 8; d++) f = d % 2 === 0 ? { $not: f } : { $minShould: { filters: [f], count: 1 } };
    expect(() => parseFilter(f)).not.toThrow();
    expect(checkFilterLimits(f)).toBeUndefined();
    const deepest = `filter${'.$not.$minShould.filters[0]'.repeat(4)}`;
    expect(() => parseFilter({ $not: f })).toThrow(expect.objectContaining({ path: deepest }) as Error);
    expect(checkFilterLimits({ $not: f })?.path).toBe(deepest);
  });

  it('matchesEveryRow knows the new forms (conservatively)', () => {
    const every = (f: unknown): boolean => matchesEveryRow(parseFilter(f));
    expect(every({ $not: { a: { $in: [] } } })).toBe(true);
    expect(every({ $not: { $not: {} } })).toBe(true);
    expect(every({ $not: { $hasId: [] } })).toBe(true);
    expect(every({ $or: [{ a: { $isEmpty: true } }, { a: { $isEmpty: false } }] })).toBe(true);
    expect(every({ $or: [{ a: { $isNull: false } }, { a: { $isNull: true } }] })).toBe(true);
    expect(every({ $minShould: { filters: [{}, { a: 1 }], count: 1 } })).toBe(true);
    expect(every({ $not: { $minShould: { filters: [{ a: { $in: [] } }, { a: 1 }], count: 2 } } })).toBe(true);
    expect(every({ $not: { a: 1 } })).toBe(false);
    expect(every({ $hasId: ['x'] })).toBe(false);
    expect(every({ a: { $isEmpty: true } })).toBe(false);
    expect(every({ $or: [{ a: { $isEmpty: true } }, { b: { $isEmpty: false } }] })).toBe(false);
    expect(every({ $minShould: { filters: [{}, { a: 1 }], count: 2 } })).toBe(false);
    expect(every({ $not: { $not: { a: 1 } } })).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------
// The property.
// ---------------------------------------------------------------------------------------

const scalar = fc.oneof(fc.constantFrom('a', 'b', 'ab', ''), fc.integer({ min: 0, max: 4 }), fc.boolean());
const key = fc.constantFrom('p', 'q', 'p.q', 'r');
const leaf: fc.Arbitrary<Json> = fc.oneof({ weight: 6, arbitrary: scalar }, { weight: 1, arbitrary: fc.constant(null) });
const { json } = fc.letrec<{ json: Json }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: leaf },
    { weight: 2, arbitrary: fc.array(fc.oneof(leaf, tie('json')), { maxLength: 3 }) },
    // arrays of objects: paths walk through them
    {
      weight: 2,
      arbitrary: fc.array(fc.dictionary(key, tie('json'), { minKeys: 1, maxKeys: 2 }), { minLength: 1, maxLength: 3 }),
    },
    { weight: 2, arbitrary: fc.dictionary(key, tie('json'), { maxKeys: 3 }) },
  ),
}));
const payload: fc.Arbitrary<Row> = fc.option(fc.dictionary(key, json, { maxKeys: 4 }), {
  freq: 12,
  nil: undefined,
});

const fieldKey = fc.constantFrom('p', 'q', 'p.q', 'p[].q', 'q.p', 'p.q.r', 'r', 'p.p');
const list = fc.array(scalar, { maxLength: 3 });
const bound = fc.integer({ min: -1, max: 5 });
const condition = fc.oneof(
  scalar,
  fc.record({ $eq: scalar }),
  fc.record({ $in: list }),
  fc.record({ $nin: list }),
  fc.record({ $ne: scalar }),
  fc.record({ $exists: fc.boolean() }),
  fc.record({ $gte: bound, $lt: bound }, { requiredKeys: [] }).filter((o) => Object.keys(o).length > 0),
  fc.record({ $except: list }),
  fc.record({ $text: fc.constantFrom('a', 'b', '') }),
  fc.record({ $isNull: fc.boolean() }),
  fc.record({ $isEmpty: fc.boolean() }),
  fc.record({ $in: list, $isEmpty: fc.boolean() }),
);
const { filter } = fc.letrec<{ filter: Record<string, unknown> }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 5, arbitrary: fc.dictionary(fieldKey, condition, { maxKeys: 2 }) },
    { weight: 1, arbitrary: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }).map((fs) => ({ $or: fs })) },
    { weight: 1, arbitrary: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }).map((fs) => ({ $and: fs })) },
    { weight: 1, arbitrary: tie('filter').map((f) => ({ $not: f })) },
    { weight: 1, arbitrary: fc.array(fc.nat(30).map(idOf), { maxLength: 4 }).map((ids) => ({ $hasId: ids })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.array(tie('filter'), { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 3 }))
        .map(([filters, count]) => ({ $minShould: { filters, count } })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.dictionary(fieldKey, condition, { maxKeys: 1 }), tie('filter')).map(([f, g]) => ({ ...f, $not: g })),
    },
  ),
}));

describe('the filter engine agrees with the reference (property)', () => {
  const budgets: Array<[string, IndexBudget | undefined]> = [
    ['every key indexed', undefined],
    ['some keys scanned', { distinctValuesPerKey: 3, distinctValuesPerTable: 1000 }],
    ['every key scanned', { distinctValuesPerKey: 1, distinctValuesPerTable: 1 }],
  ];

  it('over metadata objects: the index, compileFilter, and a RowCatalog', () => {
    fc.assert(
      fc.property(fc.array(payload, { maxLength: 30 }), fc.array(fc.nat(29), { maxLength: 4 }), filter, (metas, removed, f) => {
        fc.pre(checkFilterLimits(f) === undefined);
        const parsed = parseFilter(f);
        const gone = new Set(removed.filter((l) => l < metas.length));
        const expected = metas.map((_, l) => l).filter((l) => !gone.has(l) && refMatches(metas[l], idOf(l), f));
        const test = compileFilter(parsed);
        expect(metas.map((_, l) => l).filter((l) => !gone.has(l) && test(metas[l], idOf(l)))).toEqual(expected);
        for (const [, budget] of budgets) {
          const index = indexOf(metas, budget);
          for (const l of gone) index.remove(l, metas[l]);
          expect(index.evaluate(parsed, rowsOf(metas, gone))).toEqual(expected);
        }
        const catalog = new RowCatalog({ background: false });
        metas.forEach((m, label) => catalog.set(label, idOf(label), m));
        for (const l of gone) catalog.delete(l);
        const catalogRows: FilterRows = {
          size: metas.length,
          isAlive: (label) => catalog.has(label),
          metadata: (label) => catalog.metadata(label),
          field: (label, k) => catalog.field(label, k),
          labelOf: (id) => catalog.labelOf(id),
        };
        for (const [, budget] of budgets.slice(1)) {
          const index = indexOf(metas, budget);
          for (const l of gone) index.remove(l, metas[l]);
          expect(index.evaluate(parsed, catalogRows)).toEqual(expected);
        }
      }),
      { numRuns: 1500 },
    );
  });
});
