import { RawHttpError } from '@app/platform';
import { translateFilter } from './qdrant-filter';

// Qdrant's filter JSON → the /v1 filter JSON that toFilter parses (docs/qdrant.md, "Filters").
describe('translateFilter', () => {
  it('translates must, should, must_not and min_should', () => {
    expect(
      translateFilter({
        must: [
          { key: 'metadata.source', match: { value: 'a' } },
          { key: 'n', range: { gte: 1, lt: 5 } },
        ],
        should: [
          { key: 'tag', match: { any: ['x', 'y'] } },
          { key: 'tag', match: { except: ['z'] } },
        ],
        must_not: [{ is_empty: { key: 'k' } }, { is_null: { key: 'nul' } }],
        min_should: {
          conditions: [{ has_id: [1, '9F1B2C3D-4E5F-4A6B-8C7D-0E1F2A3B4C5D'] }, { key: 't', match: { text: 'ab' } }],
          min_count: 1,
        },
      }),
    ).toEqual({
      // Parts with different keys share one object (ANDed, no logical level spent).
      'metadata.source': 'a',
      n: { $gte: 1, $lt: 5 },
      $or: [{ tag: { $in: ['x', 'y'] } }, { tag: { $except: ['z'] } }],
      $not: { $or: [{ k: { $isEmpty: true } }, { nul: { $isNull: true } }] },
      $minShould: {
        filters: [{ $hasId: ['1', '9f1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d'] }, { t: { $text: 'ab' } }],
        count: 1,
      },
    });
  });

  it('falls back to $and when two parts name the same key', () => {
    expect(
      translateFilter({
        must: [
          { key: 'a', match: { value: 1 } },
          { key: 'a', range: { lt: 5 } },
        ],
      }),
    ).toEqual({ $and: [{ a: 1 }, { a: { $lt: 5 } }] });
  });

  it('takes one condition without a list, nested filters as conditions, and an empty filter', () => {
    expect(translateFilter({ must: { key: 'a', match: { value: 1 } } })).toEqual({ a: 1 });
    expect(translateFilter({ must: [{ should: [{ key: 'a', match: { value: true } }] }] })).toEqual({ a: true });
    expect(translateFilter({})).toEqual({});
    expect(translateFilter({ must: [] })).toEqual({});
    expect(translateFilter({ must: [{ must: [] }, { key: 'a', match: { value: 'x' } }] })).toEqual({ a: 'x' });
    expect(translateFilter({ must: [{ should: [] }] })).toEqual({});
    expect(translateFilter(undefined)).toEqual({});
    expect(translateFilter({ must_not: [{ key: 'a[].b', match: { value: 'x' } }] })).toEqual({ $not: { 'a[].b': 'x' } });
  });

  it.each([
    [{ must: [{ nested: { key: 'a', filter: {} } }] }, 'nested'],
    [{ must: [{ key: 'g', geo_radius: { center: { lon: 0, lat: 0 }, radius: 1 } }] }, 'geo'],
    [{ must: [{ key: 'v', values_count: { gt: 1 } }] }, 'values_count'],
    [{ must: [{ key: 'd', range: { gt: '2024-01-01T00:00:00Z' } }] }, 'datetime'],
    [{ must: [{ key: 't', match: { phrase: 'a b' } }] }, 'phrase'],
    [{ must: [{ key: 't', match: { text_any: 'a b' } }] }, 'text_any'],
    [{ must: [{ has_vector: 'v' }] }, 'has_vector'],
    [{ must: [{ has_id: ['nope'] }] }, 'not a valid point ID'],
    [{ filter: {} }, 'unknown field'],
  ])('refuses %j with a 400 naming it', (filter, named) => {
    let thrown: unknown;
    try {
      translateFilter(filter);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(RawHttpError);
    expect((thrown as RawHttpError).status).toBe(400);
    expect(JSON.stringify((thrown as RawHttpError).body)).toContain(named);
  });

  it('refuses 100,000 nested Filters by the size limits, before any recursion (no stack overflow)', () => {
    const deep: unknown = JSON.parse(`${'{"must":['.repeat(100_000)}{}${']}'.repeat(100_000)}`);
    let thrown: unknown;
    try {
      translateFilter(deep);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(RawHttpError);
    expect((thrown as RawHttpError).status).toBe(400);
    expect(JSON.stringify((thrown as RawHttpError).body)).toContain('filter_too_complex');
  });
});
