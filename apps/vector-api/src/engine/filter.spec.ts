import fc from 'fast-check';
import { matchesFilter } from '../../../../test/support/search-reference';
import {
  compileFilter,
  FilterError,
  type FilterRows,
  isMatchAll,
  type Metadata,
  MetadataIndex,
  parseFilter,
  parseMetadata,
} from './filter';
import { checkFilterLimits, FilterLimitError, MAX_FILTER } from './filter-limits';

/** The rows of `metas` (label = index) minus the `gone` ones, as the filter evaluation reads them. */
function rowsOf(metas: ReadonlyArray<Metadata | undefined>, gone: ReadonlySet<number> = new Set()): FilterRows {
  return {
    size: metas.length,
    isAlive: (label) => label < metas.length && !gone.has(label),
    metadata: (label) => (gone.has(label) ? undefined : metas[label]),
  };
}

describe('filter language', () => {
  const rows: Metadata[] = [
    { genre: 'jazz', year: 1959, tags: ['live', 'mono'], ok: true },
    { genre: 'rock', year: 1969, tags: ['studio'] },
    { genre: 'jazz', year: 1970, ok: false },
    { year: 2001 },
  ];
  const index = new MetadataIndex();
  rows.forEach((m, label) => index.add(label, m));
  const all = (): number[] => rows.map((_, i) => i);
  const run = (f: unknown): number[] => index.evaluate(parseFilter(f), rowsOf(rows));

  it.each<[string, unknown, number[]]>([
    ['equality', { genre: 'jazz' }, [0, 2]],
    ['$eq, as the bare value', { genre: { $eq: 'jazz' } }, [0, 2]],
    ['$eq on an array field: contains', { tags: { $eq: 'mono' } }, [0]],
    ['$eq with other operators: all hold', { year: { $eq: 1970, $gte: 1960 } }, [2]],
    ['$eq with a bound it misses', { year: { $eq: 1959, $gte: 1960 } }, []],
    ['array contains', { tags: 'studio' }, [1]],
    ['boolean', { ok: true }, [0]],
    ['several keys (and)', { genre: 'jazz', year: 1970 }, [2]],
    ['$in', { genre: { $in: ['rock', 'pop'] } }, [1]],
    ['$in over an array field', { tags: { $in: ['mono', 'x'] } }, [0]],
    ['$ne (missing field matches)', { genre: { $ne: 'jazz' } }, [1, 3]],
    ['$ne over an array field', { tags: { $ne: 'live' } }, [1, 2, 3]],
    ['range', { year: { $gte: 1960, $lt: 2000 } }, [1, 2]],
    ['$gt and $lte', { year: { $gt: 1959, $lte: 1969 } }, [1]],
    ['no match', { genre: 'blues' }, []],
    ['empty filter', {}, [0, 1, 2, 3]],
    ['$nin (missing field matches)', { genre: { $nin: ['jazz', 'pop'] } }, [1, 3]],
    ['$nin over an array field', { tags: { $nin: ['mono', 'studio'] } }, [2, 3]],
    ['$nin []', { genre: { $nin: [] } }, [0, 1, 2, 3]],
    ['$exists: true', { ok: { $exists: true } }, [0, 2]],
    ['$exists: false', { tags: { $exists: false } }, [2, 3]],
    ['$exists beside another operator', { genre: { $exists: true, $ne: 'rock' } }, [0, 2]],
    ['$and', { $and: [{ genre: 'jazz' }, { year: { $gt: 1960 } }] }, [2]],
    ['$or', { $or: [{ genre: 'rock' }, { year: { $gt: 2000 } }] }, [1, 3]],
    ['$or beside a field (and)', { year: { $lt: 2000 }, $or: [{ tags: 'live' }, { ok: false }] }, [0, 2]],
    ['$or of negations', { $or: [{ genre: { $ne: 'jazz' } }, { ok: { $exists: false } }] }, [1, 3]],
    ['$or with a positive and a negation', { $or: [{ tags: 'studio' }, { genre: { $nin: ['rock'] } }] }, [0, 1, 2, 3]],
    ['$or with a match-all filter', { $or: [{}, { genre: 'blues' }] }, [0, 1, 2, 3]],
    ['$and of nothing but {}', { $and: [{}, {}] }, [0, 1, 2, 3]],
    ['$or of $or', { $or: [{ $or: [{ year: 1959 }, { year: 1969 }] }, { year: 2001 }] }, [0, 1, 3]],
    [
      'nested $and / $or',
      {
        $or: [
          { $and: [{ genre: 'jazz' }, { $or: [{ ok: true }, { year: 1970 }] }] },
          { tags: { $exists: false }, year: { $gte: 2000 } },
        ],
      },
      [0, 2, 3],
    ],
    ['$or nothing matches', { $or: [{ genre: 'blues' }, { year: 1800 }] }, []],
  ])('%s', (_name, filter, expected) => {
    expect(run(filter)).toEqual(expected);
    expect(all().filter((i) => matchesFilter(rows[i], filter))).toEqual(expected);
  });

  it.each<[unknown, string]>([
    [[], 'filter'],
    [{ a: null }, 'filter.a'],
    [{ a: [1, 2] }, 'filter.a'],
    [{ a: {} }, 'filter.a'],
    [{ a: { $regex: 'x' } }, 'filter.a.$regex'],
    [{ a: { $in: 'x' } }, 'filter.a.$in'],
    [{ a: { $gt: 'x' } }, 'filter.a.$gt'],
    [{ $or: [] }, 'filter.$or'],
    [{ $and: [] }, 'filter.$and'],
    [{ $or: { a: 1 } }, 'filter.$or'],
    [{ $and: [{ a: 1 }, 'x'] }, 'filter.$and[1]'],
    [{ $or: [{ a: 1 }, null] }, 'filter.$or[1]'],
    [{ $or: [{ a: 1 }, { year: { $gt: 'x' } }] }, 'filter.$or[1].year.$gt'],
    [{ $or: [{ a: 1 }, { $and: [{ b: { $exists: 1 } }] }] }, 'filter.$or[1].$and[0].b.$exists'],
    [{ a: { $nin: 'x' } }, 'filter.a.$nin'],
    [{ a: { $nin: [1, null] } }, 'filter.a.$nin'],
    [{ a: { $exists: 'yes' } }, 'filter.a.$exists'],
    [{ a: { $or: [{ b: 1 }] } }, 'filter.a.$or'],
    [{ $nor: [{ a: 1 }] }, 'filter.$nor'],
    [{ $in: [1] }, 'filter.$in'],
    [{ $and: [{ $nor: { a: 1 } }] }, 'filter.$and[0].$nor'],
  ])('rejects %j naming %s', (filter, path) => {
    expect(() => parseFilter(filter)).toThrow(FilterError);
    try {
      parseFilter(filter);
    } catch (err) {
      expect((err as FilterError).path).toBe(path);
    }
  });

  it('lists every operator when one is unknown', () => {
    expect(() => parseFilter({ a: { $regex: 'x' } })).toThrow(
      '$in, $nin, $ne, $gt, $gte, $lt, $lte, $exists, $except, $text, $isNull or $isEmpty',
    );
  });

  it('accepts logical depth 8 and refuses 9 with filter_too_complex naming where', () => {
    const chain = (depth: number, op: '$and' | '$or'): unknown => {
      let f: unknown = { year: { $in: [1959, 1970], $gte: 1900 } };
      for (let d = 1; d < depth; d++) f = { [op]: [f, { genre: { $exists: true } }] };
      return f;
    };
    for (const op of ['$and', '$or'] as const) {
      expect(run(chain(MAX_FILTER.depth, op))).toEqual(op === '$and' ? [0, 2] : [0, 1, 2]);
      const deeper = chain(MAX_FILTER.depth + 1, op);
      expect(() => parseFilter(deeper)).toThrow(FilterLimitError);
      try {
        parseFilter(deeper);
      } catch (err) {
        expect((err as FilterLimitError).path).toBe(`filter${`.${op}[0]`.repeat(MAX_FILTER.depth)}`);
      }
    }
  });

  it('normalises: $and flattens, an $or of one filter or with a match-all filter disappears', () => {
    expect(parseFilter({ $and: [{ a: 1 }, { $and: [{ b: 2 }] }] })).toEqual([
      { key: 'a', eq: 1 },
      { key: 'b', eq: 2 },
    ]);
    expect(parseFilter({ $or: [{ a: 1 }] })).toEqual([{ key: 'a', eq: 1 }]);
    expect(isMatchAll(parseFilter({ $or: [{ a: 1 }, {}] }))).toBe(true);
    expect(isMatchAll(parseFilter({ $and: [{}] }))).toBe(true);
    expect(isMatchAll(parseFilter({ a: { $nin: [] } }))).toBe(false);
    expect(parseFilter({ $or: [{ $or: [{ a: 1 }, { b: 1 }] }, { c: 1 }] })).toEqual([
      { anyOf: [[{ key: 'a', eq: 1 }], [{ key: 'b', eq: 1 }], [{ key: 'c', eq: 1 }]] },
    ]);
  });

  it('accepts nested metadata, refuses null unless allowed, and objects deeper than 8 naming the path', () => {
    expect(parseMetadata({ a: { b: [1, { c: 'x' }] }, d: [1, [2]] }, 'm')).toEqual({ a: { b: [1, { c: 'x' }] }, d: [1, [2]] });
    expect(() => parseMetadata({ a: { b: null } }, 'rows[0].metadata')).toThrow('rows[0].metadata.a.b');
    expect(parseMetadata({ a: { b: null }, c: [null] }, 'm', { allowNull: true })).toEqual({ a: { b: null }, c: [null] });
    expect(() => parseMetadata({ a: Number.NaN }, 'm')).toThrow(FilterError);
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let d = 0; d < 7; d++) deep = { o: deep }; // 8 objects: depth 8
    expect(() => parseMetadata(deep, 'm')).not.toThrow();
    try {
      parseMetadata({ o: deep }, 'm');
      throw new Error('not refused');
    } catch (err) {
      expect(err).toBeInstanceOf(FilterError);
      expect((err as FilterError).path).toBe(`m${'.o'.repeat(8)}`);
    }
  });

  it('the inverted index agrees with the reference semantics (property), also after removals', () => {
    const scalar = fc.oneof(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 5 }), fc.boolean());
    const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }));
    const meta = fc.dictionary(fc.constantFrom('x', 'y', 'z'), value, { maxKeys: 3 });
    const bound = fc.integer({ min: -1, max: 6 });
    const cond = fc.oneof(
      scalar,
      fc.record({ $in: fc.array(scalar, { maxLength: 4 }) }),
      fc.record({ $ne: scalar }),
      fc
        .record({ $gt: bound, $gte: bound, $lt: bound, $lte: bound }, { requiredKeys: [] })
        .filter((o) => Object.keys(o).length > 0),
      // several operators in one condition: each part must hold
      fc.record({ $in: fc.array(scalar, { minLength: 1, maxLength: 4 }), $ne: scalar, $gte: bound }, { requiredKeys: ['$in'] }),
    );
    const filter = fc.dictionary(fc.constantFrom('x', 'y', 'z', 'w'), cond, { maxKeys: 4 });
    fc.assert(
      fc.property(fc.array(meta, { maxLength: 30 }), filter, fc.array(fc.nat(29), { maxLength: 5 }), (metas, f, removed) => {
        const idx = new MetadataIndex();
        metas.forEach((m, l) => idx.add(l, m));
        const gone = new Set(removed.filter((l) => l < metas.length));
        for (const l of gone) idx.remove(l, metas[l]);
        const alive = metas.map((_, l) => l).filter((l) => !gone.has(l));
        const parsed = parseFilter(f);
        expect(idx.evaluate(parsed, rowsOf(metas, gone))).toEqual(alive.filter((l) => matchesFilter(metas[l], f)));
      }),
      { numRuns: 1000 },
    );
  });

  describe('nested filters (property, against the reference one row at a time)', () => {
    const scalar = fc.oneof(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 5 }), fc.boolean());
    const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 })); // [] too: present, but in no posting list
    const meta = fc.option(fc.dictionary(fc.constantFrom('x', 'y', 'z'), value, { maxKeys: 3 }), { freq: 10, nil: undefined });
    const bound = fc.integer({ min: -1, max: 6 });
    const cond = fc.oneof(
      scalar,
      fc.record({ $in: fc.array(scalar, { maxLength: 4 }) }),
      fc.record({ $nin: fc.array(scalar, { maxLength: 4 }) }),
      fc.record({ $ne: scalar }),
      fc.record({ $exists: fc.boolean() }),
      fc
        .record({ $gt: bound, $gte: bound, $lt: bound, $lte: bound }, { requiredKeys: [] })
        .filter((o) => Object.keys(o).length > 0),
      fc
        .record(
          {
            $in: fc.array(scalar, { minLength: 1, maxLength: 4 }),
            $nin: fc.array(scalar, { maxLength: 2 }),
            $exists: fc.boolean(),
            $lte: bound,
          },
          { requiredKeys: [] },
        )
        .filter((o) => Object.keys(o).length > 0), // several operators in one object
    );
    const fields = fc.dictionary(fc.constantFrom('x', 'y', 'z', 'w'), cond, { maxKeys: 2 });
    /** Filters of logical depth ≤ 8 - depth + 1 from here; `spine` forces one branch to the bottom. */
    const filterFrom = (depth: number, spine: boolean): fc.Arbitrary<Record<string, unknown>> => {
      if (depth === MAX_FILTER.depth) return fields;
      const child = filterFrom(depth + 1, false);
      const list = (forced: boolean): fc.Arbitrary<Array<Record<string, unknown>>> =>
        forced
          ? fc.tuple(filterFrom(depth + 1, true), fc.array(child, { maxLength: 1 })).map(([deep, rest]) => [deep, ...rest])
          : fc.array(child, { minLength: 1, maxLength: 2 });
      const logical = fc.constantFrom('$and', '$or');
      return fc
        .tuple(
          fields,
          logical,
          spine ? list(true) : fc.option(list(false), { freq: 2, nil: undefined }),
          fc.option(fc.constant(true)),
        )
        .map(([f, op, children, both]) => {
          if (children === undefined) return f;
          const out: Record<string, unknown> = { ...f, [op]: children };
          if (both && children.length > 1) {
            // both $and and $or in one object
            out[op === '$and' ? '$or' : '$and'] = children.slice(1);
            out[op] = children.slice(0, 1);
          }
          return out;
        });
    };
    const filter = fc.oneof(filterFrom(1, false), filterFrom(1, true));

    function check(metas: Array<Metadata | undefined>, f: Record<string, unknown>, removed: number[]): void {
      const idx = new MetadataIndex();
      metas.forEach((m, l) => idx.add(l, m));
      const gone = new Set(removed.filter((l) => l < metas.length));
      for (const l of gone) idx.remove(l, metas[l]);
      const alive = metas.map((_, l) => l).filter((l) => !gone.has(l));
      fc.pre(checkFilterLimits(f) === undefined); // a rare sample past 128 keys
      const parsed = parseFilter(f);
      const expected = alive.filter((l) => matchesFilter(metas[l], f));
      expect(idx.evaluate(parsed, rowsOf(metas, gone))).toEqual(expected);
      const predicate = compileFilter(parsed);
      expect(alive.filter((l) => predicate(metas[l]))).toEqual(expected);
    }

    it('small tables (selective paths): evaluate equals the reference', () => {
      fc.assert(fc.property(fc.array(meta, { maxLength: 30 }), filter, fc.array(fc.nat(29), { maxLength: 5 }), check), {
        numRuns: 1500,
      });
    });

    it('larger tables (set algebra over the postings): evaluate equals the reference', () => {
      fc.assert(
        fc.property(fc.array(meta, { minLength: 100, maxLength: 400 }), filter, fc.array(fc.nat(399), { maxLength: 40 }), check),
        { numRuns: 300 },
      );
    });

    it('$exists on a key of one value per row (answered by a scan) and of few values (by the postings)', () => {
      const metas = Array.from({ length: 2000 }, (_, i): Metadata =>
        i % 5 === 0 ? { few: i % 3 } : i % 7 === 0 ? { uid: [], few: [] } : { uid: `u${i}`, few: [i % 3, 'x'] },
      );
      for (const f of [
        { uid: { $exists: true } },
        { uid: { $exists: false } },
        { few: { $exists: false }, uid: { $exists: true } },
        { $or: [{ uid: { $exists: false } }, { few: 2 }] },
        { $or: [{ uid: { $exists: true } }, { few: { $exists: false } }] },
      ])
        check(metas, f, [3, 10, 14, 500, 1999]);
    });

    it('reaches depth 8 with every operator (the generator is not shallow)', () => {
      const depthOf = (f: unknown): number => {
        const o = f as Record<string, unknown>;
        const subs = [...((o.$and as unknown[]) ?? []), ...((o.$or as unknown[]) ?? [])];
        return 1 + Math.max(0, ...subs.map(depthOf));
      };
      const samples = fc.sample(filter, { numRuns: 300, seed: 1 });
      expect(samples.filter((f) => checkFilterLimits(f) !== undefined).length).toBeLessThan(15);
      expect(Math.max(...samples.map(depthOf))).toBe(MAX_FILTER.depth);
      const text = JSON.stringify(samples);
      for (const op of ['$and', '$or', '$in', '$nin', '$ne', '$exists', '$gt', '$lte']) expect(text).toContain(`"${op}"`);
    });
  });
});
