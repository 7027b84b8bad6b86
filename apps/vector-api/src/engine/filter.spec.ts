import fc from 'fast-check';
import { matchesFilter } from '../../../../test/support/search-reference';
import { FilterError, type FilterRows, type Metadata, MetadataIndex, parseFilter, parseMetadata } from './filter';

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
  ])('rejects %j naming %s', (filter, path) => {
    expect(() => parseFilter(filter)).toThrow(FilterError);
    try {
      parseFilter(filter);
    } catch (err) {
      expect((err as FilterError).path).toBe(path);
    }
  });

  it('rejects metadata values that are not scalars or arrays of scalars', () => {
    expect(() => parseMetadata({ a: { b: 1 } }, 'rows[0].metadata')).toThrow('rows[0].metadata.a');
    expect(() => parseMetadata({ a: [1, [2]] }, 'm')).toThrow(FilterError);
    expect(parseMetadata({ a: [1, 'x', true] }, 'm')).toEqual({ a: [1, 'x', true] });
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
});
