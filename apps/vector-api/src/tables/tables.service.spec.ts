import { DomainError, registerErrorCodes } from '@app/platform';
import { tablesServiceWithFakes, type TablesServiceWithFakes } from '../../../../test/fakes/vector-api';
import { mulberry32 } from '../../../../test/support/random';
import { VECTOR_ERRORS, VectorError } from '../errors';
import type { CreateTableDto } from './dto/table.dto';
import type { InsertVectorsDto, QueryDto, VectorRowDto } from './dto/vectors.dto';

/** The calling project. */
const P = { projectId: 'proj_test' };
const rows = (...list: Array<Partial<VectorRowDto> & { id: string; embedding: unknown[] }>): InsertVectorsDto => ({ rows: list });
const query = (dto: Partial<QueryDto> & { vector: unknown[] }): QueryDto => ({ n: 10, ...dto });
const table = (name: string, dimension = 3, index?: CreateTableDto['index']): CreateTableDto =>
  index === undefined ? { name, dimension } : { name, dimension, index };

/** The error a promise rejects with (fails the test when it resolves). */
async function failure(promise: Promise<unknown>): Promise<DomainError<string>> {
  const outcome = await promise.then(
    (value: unknown) => ({ value }),
    (err: unknown) => ({ err }),
  );
  if (!('err' in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  if (!(outcome.err instanceof DomainError)) throw outcome.err;
  return outcome.err;
}

describe('TablesService', () => {
  let f: TablesServiceWithFakes;
  beforeAll(() => registerErrorCodes(VECTOR_ERRORS)); // as vectorService does at boot: statuses come from the catalogue
  beforeEach(() => {
    f = tablesServiceWithFakes();
  });
  afterEach(async () => {
    await f.live.onApplicationShutdown();
  });

  describe('create', () => {
    it('stores the table in a transaction and holds it in memory; the index defaults to flat', async () => {
      const dto = await f.service.create(P, table('docs', 3));
      expect(dto).toEqual({
        name: 'docs',
        dimension: 3,
        index: 'flat',
        metric: 'cosine',
        rows: 0,
        index_status: { state: 'ready', details: expect.objectContaining({ rows: 0 }) as unknown },
        created_at: '2026-01-02T03:04:05.000Z',
      });
      expect(f.repo.table('docs')).toMatchObject({ dimension: 3, indexKind: 'flat', seq: 0n });
      expect(f.live.holds('docs')).toBe(true);
      expect(f.transactions.committed).toHaveLength(1);
    });

    it.each([
      ['ivf', { state: 'exact', details: { rows: 0, applied_seq: 0 } }], // below ivf's size threshold: exact answers
      ['hnsw', { state: 'ready', details: expect.objectContaining({ m: 16, ef_search: 100, points: 0 }) as unknown }],
    ] as const)('keeps the requested index kind (%s) and shows its status', async (index, status) => {
      const dto = await f.service.create(P, table('t', 8, index));
      expect(dto.index).toBe(index);
      expect(dto.index_status).toEqual(status);
      expect(f.repo.table('t')?.indexKind).toBe(index);
    });

    it('refuses a taken name with 409 resource_already_exists and keeps the existing table', async () => {
      await f.service.create(P, table('docs', 3));
      const err = await failure(f.service.create(P, table('docs', 5, 'hnsw')));
      expect(err).toBeInstanceOf(VectorError);
      expect(err).toMatchObject({ code: 'resource_already_exists', param: 'name', status: 409 });
      expect(err.message).toContain("'docs'");
      expect((await f.service.get(P, 'docs')).dimension).toBe(3);
      expect(f.repo.table('docs')).toMatchObject({ dimension: 3, indexKind: 'flat' });
    });
  });

  describe('get, list and drop', () => {
    it('answers 404 resource_missing (param table) for an unknown table on every operation', async () => {
      const calls: Array<() => Promise<unknown>> = [
        () => f.service.get(P, 'nope'),
        () => f.service.drop(P, 'nope'),
        () => f.service.insert(P, 'nope', rows({ id: 'a', embedding: [1, 2, 3] })),
        () => f.service.query(P, 'nope', query({ vector: [1, 2, 3] })),
        () => f.service.deleteVectors(P, 'nope', { ids: ['a'] }),
      ];
      for (const call of calls) {
        expect(await failure(call())).toMatchObject({ code: 'resource_missing', param: 'table', status: 404 });
      }
    });

    it('lists tables by name with their row counts', async () => {
      await f.service.create(P, table('zeta', 2));
      await f.service.create(P, table('alpha', 3));
      await f.service.insert(P, 'zeta', rows({ id: 'a', embedding: [1, 0] }, { id: 'b', embedding: [0, 1] }));
      const { data } = await f.service.list(P, {});
      expect(data.map((t) => [t.name, t.rows])).toEqual([
        ['alpha', 0],
        ['zeta', 2],
      ]);
    });

    it('drops a table with its rows in a transaction; the name can be reused', async () => {
      await f.service.create(P, table('docs', 3));
      await f.service.insert(P, 'docs', rows({ id: 'a', embedding: [1, 2, 3] }));
      expect(await f.service.drop(P, 'docs')).toEqual({ name: 'docs', deleted: true });
      expect(f.repo.table('docs')).toBeUndefined();
      expect(f.repo.rowIds('docs')).toEqual([]);
      expect(f.live.holds('docs')).toBe(false);
      expect(await failure(f.service.get(P, 'docs'))).toMatchObject({ code: 'resource_missing' });
      expect(await failure(f.service.drop(P, 'docs'))).toMatchObject({ code: 'resource_missing', param: 'table' });
      expect((await f.service.create(P, table('docs', 7))).rows).toBe(0);
    });

    it('runs writes in transactions long enough for 1000-row batches and large drops', async () => {
      await f.service.create(P, table('docs', 3));
      await f.service.insert(P, 'docs', rows({ id: 'a', embedding: [1, 2, 3] }));
      await f.service.deleteVectors(P, 'docs', { ids: ['a'] });
      await f.service.drop(P, 'docs');
      expect(f.transactions.runs).toHaveLength(4);
      for (const { options } of f.transactions.runs) expect(options).toMatchObject({ timeoutMs: 60_000, maxWaitMs: 10_000 });
    });
  });

  describe('insert', () => {
    beforeEach(async () => {
      await f.service.create(P, table('docs', 3));
    });

    it('stores the batch, records one change, then applies it in memory with the same labels', async () => {
      const res = await f.service.insert(
        P,
        'docs',
        rows({ id: 'a', embedding: [1, 0, 0], metadata: { genre: 'jazz' } }, { id: 'b', embedding: [0, 1, 0] }),
      );
      expect(res).toEqual({ inserted: 2 });
      expect(f.repo.rowIds('docs')).toEqual(['a', 'b']);
      expect(f.repo.changeLog('docs')).toEqual([{ seq: 1n, op: 'insert', labels: [0, 1] }]);
      expect(f.live.applied).toEqual([
        {
          op: 'insert',
          table: 'docs',
          seq: 1n,
          rows: [
            { id: 'a', label: 0, embedding: [1, 0, 0], metadata: { genre: 'jazz' } },
            { id: 'b', label: 1, embedding: [0, 1, 0], metadata: undefined },
          ],
        },
      ]);
      expect((await f.service.get(P, 'docs')).rows).toBe(2);

      await f.service.insert(P, 'docs', rows({ id: 'c', embedding: [0, 0, 1] }));
      expect(f.repo.changeLog('docs').at(-1)).toEqual({ seq: 2n, op: 'insert', labels: [2] });
    });

    it.each<[string, unknown[][], string, string[]]>([
      [
        'shorter and longer embeddings',
        [
          [1, 2, 3],
          [1, 2],
          [1, 2, 3, 4],
        ],
        'rows[1].embedding',
        ['r1', 'r2'],
      ],
      ['an empty embedding', [[], [1, 2, 3]], 'rows[0].embedding', ['r0']],
    ])('400 dimension_mismatch for %s, naming every offending id; nothing stored', async (_name, embeddings, param, ids) => {
      const err = await failure(
        f.service.insert(P, 'docs', { rows: embeddings.map((embedding, i) => ({ id: `r${i}`, embedding })) }),
      );
      expect(err).toBeInstanceOf(VectorError);
      expect(err).toMatchObject({ code: 'dimension_mismatch', param, details: { ids }, status: 400 });
      expect(err.message).toContain('dimension 3');
      expect(f.repo.rowIds('docs')).toEqual([]);
      expect(f.transactions.committed).toHaveLength(1); // the create only: validation needs no transaction
    });

    it.each<[string, unknown]>([
      ['NaN', Number.NaN],
      ['Infinity', Number.POSITIVE_INFINITY],
      ['-Infinity', Number.NEGATIVE_INFINITY],
      ['a string', '1'],
      ['null', null],
      ['a nested array', [1]],
    ])('400 parameter_invalid for an embedding holding %s, naming every offending id', async (_name, bad) => {
      const err = await failure(
        f.service.insert(
          P,
          'docs',
          rows(
            { id: 'ok', embedding: [1, 2, 3] },
            { id: 'bad1', embedding: [1, bad, 3] },
            { id: 'bad2', embedding: [bad, 2, 3] },
          ),
        ),
      );
      expect(err).toMatchObject({ code: 'parameter_invalid', param: 'rows[1].embedding', details: { ids: ['bad1', 'bad2'] } });
      expect(err.message).toContain('finite float32 numbers');
      expect(f.repo.rowIds('docs')).toEqual([]);
    });

    it('checks numbers before dimensions: a short embedding with NaN is reported as not finite', async () => {
      const err = await failure(f.service.insert(P, 'docs', rows({ id: 'x', embedding: [Number.NaN] })));
      expect(err).toMatchObject({ code: 'parameter_invalid', param: 'rows[0].embedding' });
    });

    it('400 parameter_invalid for metadata values that are not strings, numbers, booleans, arrays or objects of those', async () => {
      const err = await failure(
        f.service.insert(
          P,
          'docs',
          rows(
            { id: 'ok', embedding: [1, 2, 3], metadata: { a: 1, nested: { x: [1, { y: 'z' }] } } },
            { id: 'm', embedding: [1, 2, 3], metadata: { nested: { x: null } } },
          ),
        ),
      );
      expect(err).toMatchObject({ code: 'parameter_invalid', param: 'rows[1].metadata.nested.x', details: { ids: ['m'] } });
      expect(f.repo.rowIds('docs')).toEqual([]);
    });

    it('400 parameter_invalid for an id repeated within the batch, at its second occurrence', async () => {
      const err = await failure(
        f.service.insert(
          P,
          'docs',
          rows({ id: 'a', embedding: [1, 2, 3] }, { id: 'b', embedding: [1, 2, 3] }, { id: 'a', embedding: [3, 2, 1] }),
        ),
      );
      expect(err).toMatchObject({ code: 'parameter_invalid', param: 'rows[2].id', details: { ids: ['a'] } });
      expect(f.repo.rowIds('docs')).toEqual([]);
    });

    it('409 for ids already in the table, naming them; the whole batch and its seq are rolled back', async () => {
      await f.service.insert(P, 'docs', rows({ id: 'a', embedding: [1, 0, 0] }, { id: 'c', embedding: [0, 0, 1] }));
      const before = { seq: f.repo.table('docs')?.seq, log: [...f.repo.changeLog('docs')], applied: f.live.applied.length };

      const err = await failure(
        f.service.insert(
          P,
          'docs',
          rows({ id: 'new', embedding: [1, 1, 0] }, { id: 'a', embedding: [1, 1, 0] }, { id: 'c', embedding: [1, 1, 0] }),
        ),
      );
      expect(err).toMatchObject({ code: 'resource_already_exists', param: 'rows', details: { ids: ['a', 'c'] }, status: 409 });
      expect(f.repo.rowIds('docs')).toEqual(['a', 'c']);
      expect(f.repo.table('docs')?.seq).toBe(before.seq);
      expect(f.repo.changeLog('docs')).toEqual(before.log);
      expect(f.transactions.rolledBack).toHaveLength(1);
      expect(f.live.applied).toHaveLength(before.applied);
      expect((await f.service.get(P, 'docs')).rows).toBe(2);

      // The labels the failed batch took were given back with the seq.
      await f.service.insert(P, 'docs', rows({ id: 'new', embedding: [1, 1, 0] }));
      expect(f.repo.changeLog('docs').at(-1)).toEqual({ seq: 2n, op: 'insert', labels: [2] });
    });

    it('caps the ids named in an error at 100 and summarises the message after 10', async () => {
      const many = Array.from({ length: 150 }, (_, i) => ({ id: `id${i}`, embedding: [1, 2] }));
      const err = await failure(f.service.insert(P, 'docs', { rows: many }));
      expect(err.code).toBe('dimension_mismatch');
      expect(err.details.ids).toEqual(many.slice(0, 100).map((r) => r.id));
      expect(err.message).toContain("'id9' and 140 more");
      expect(err.message).not.toContain("'id10'");
    });

    it('404 when another instance dropped the table meanwhile; this instance forgets it', async () => {
      f.repo.dropElsewhere('docs');
      const err = await failure(f.service.insert(P, 'docs', rows({ id: 'a', embedding: [1, 2, 3] })));
      expect(err).toMatchObject({ code: 'resource_missing', param: 'table' });
      expect(f.live.holds('docs')).toBe(false);
      expect(f.live.applied).toEqual([]);
    });
  });

  describe('query', () => {
    beforeEach(async () => {
      await f.service.create(P, table('docs', 3));
      await f.service.insert(
        P,
        'docs',
        rows(
          { id: 'x', embedding: [1, 0, 0], metadata: { genre: 'jazz', year: 1959 } },
          { id: 'near-x', embedding: [0.9, 0.1, 0], metadata: { genre: 'rock', year: 1969 } },
          { id: 'y', embedding: [0, 1, 0], metadata: { genre: 'jazz', year: 1970 } },
          { id: 'minus-x', embedding: [-1, 0, 0] },
        ),
      );
    });

    it('returns the n most similar rows, best first, with metadata, scores clamped to [0, 1] and integer latency', async () => {
      const res = await f.service.query(P, 'docs', query({ vector: [2, 0, 0], n: 3 }));
      expect(res.results.map((r) => r.id)).toEqual(['x', 'near-x', 'y']);
      expect(res.results[0]).toEqual({
        id: 'x',
        score: expect.closeTo(1, 5) as unknown,
        metadata: { genre: 'jazz', year: 1959 },
      });
      expect(res.results[2]?.score).toBe(0);
      expect(Number.isInteger(res.latency_ms)).toBe(true);
      expect(res.latency_ms).toBeGreaterThanOrEqual(0);

      const all = await f.service.query(P, 'docs', query({ vector: [2, 0, 0], n: 1000 }));
      expect(all.results.map((r) => r.id)).toEqual(['x', 'near-x', 'y', 'minus-x']);
      expect(all.results[3]).toEqual({ id: 'minus-x', score: 0, metadata: {} });
    });

    it('applies a filter: only matching rows, still best first', async () => {
      const res = await f.service.query(P, 'docs', query({ vector: [1, 0, 0], filter: { genre: 'jazz' } }));
      expect(res.results.map((r) => r.id)).toEqual(['x', 'y']);
      const ranged = await f.service.query(P, 'docs', query({ vector: [1, 0, 0], filter: { year: { $gt: 1959 } } }));
      expect(ranged.results.map((r) => r.id)).toEqual(['near-x', 'y']);
      const either = await f.service.query(
        P,
        'docs',
        query({ vector: [1, 0, 0], filter: { $or: [{ genre: 'rock' }, { year: { $gte: 1970 } }], tags: { $exists: false } } }),
      );
      expect(either.results.map((r) => r.id)).toEqual(['near-x', 'y']);
    });

    it.each(['flat', 'ivf', 'hnsw'] as const)('answers exactly with a per-query index override (%s)', async (index) => {
      const res = await f.service.query(P, 'docs', query({ vector: [0, 1, 0], n: 2, index }));
      expect(res.results.map((r) => r.id)).toEqual(['y', 'near-x']);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['an unknown operator', { year: { $foo: 1 } }, 'filter.year.$foo'],
      ['a top-level operator', { $gt: 1 }, 'filter.$gt'],
      ['a non-numeric range bound', { year: { $gte: 'x' } }, 'filter.year.$gte'],
      ['an $in that is not an array', { genre: { $in: 'jazz' } }, 'filter.genre.$in'],
      ['an empty condition', { genre: {} }, 'filter.genre'],
      ['an empty $or', { $or: [] }, 'filter.$or'],
      ['a mistake inside $or', { $or: [{ genre: 'jazz' }, { year: { $gt: 'x' } }] }, 'filter.$or[1].year.$gt'],
      ['a non-boolean $exists', { genre: { $exists: 1 } }, 'filter.genre.$exists'],
    ])('400 parameter_invalid for %s in the filter, naming it', async (_name, filter, param) => {
      expect(await failure(f.service.query(P, 'docs', query({ vector: [1, 0, 0], filter })))).toMatchObject({
        code: 'parameter_invalid',
        param,
        status: 400,
      });
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['more keys than allowed', Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, i])), 'filter'],
      [
        'an $in list longer than allowed',
        { genre: { $in: Array.from({ length: 1001 }, (_, i) => `g${i}`) } },
        'filter.genre.$in',
      ],
      ['a value longer than allowed', { genre: 'x'.repeat(1025) }, 'filter.genre'],
      [
        '$or nested 9 deep',
        JSON.parse(`${'{"$or":[{"genre":"jazz"},'.repeat(8)}{"year":1959}${']}'.repeat(8)}`) as Record<string, unknown>,
        `filter${'.$or[1]'.repeat(7)}.$or[0]`, // the first filter at depth 9
      ],
    ])('400 filter_too_complex for %s, naming where', async (_name, filter, param) => {
      expect(await failure(f.service.query(P, 'docs', query({ vector: [1, 0, 0], filter })))).toMatchObject({
        code: 'filter_too_complex',
        param,
        status: 400,
      });
    });

    it('400 parameter_invalid for a vector with non-finite numbers', async () => {
      for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, '1', null]) {
        expect(await failure(f.service.query(P, 'docs', query({ vector: [1, bad, 0] })))).toMatchObject({
          code: 'parameter_invalid',
          param: 'vector',
        });
      }
    });

    it('400 dimension_mismatch for a vector of another length', async () => {
      const err = await failure(f.service.query(P, 'docs', query({ vector: [1, 0] })));
      expect(err).toBeInstanceOf(VectorError);
      expect(err).toMatchObject({ code: 'dimension_mismatch', param: 'vector', status: 400 });
      expect(err.message).toContain('vector has 2 values');
    });
  });

  describe('deleteVectors', () => {
    beforeEach(async () => {
      await f.service.create(P, table('docs', 3));
      const rand = mulberry32(5);
      const embedding = (): number[] => [rand(), rand(), rand()];
      await f.service.insert(
        P,
        'docs',
        rows({ id: 'a', embedding: embedding() }, { id: 'b', embedding: embedding() }, { id: 'c', embedding: embedding() }),
      );
    });

    it('deletes the ids that exist in one change and reports the others as not_found (each id once)', async () => {
      const res = await f.service.deleteVectors(P, 'docs', { ids: ['b', 'zz', 'b', 'a', 'yy'] });
      expect(res).toEqual({ deleted: 2, not_found: ['zz', 'yy'] });
      expect(f.repo.rowIds('docs')).toEqual(['c']);
      expect(f.repo.changeLog('docs').at(-1)).toEqual({ seq: 2n, op: 'delete', labels: [1, 0] });
      expect(f.live.applied.at(-1)).toEqual({ op: 'delete', table: 'docs', seq: 2n, labels: [1, 0] });
      const left = await f.service.query(P, 'docs', query({ vector: [1, 1, 1] }));
      expect(left.results.map((r) => r.id)).toEqual(['c']);
    });

    it('reports every id as not found when none exist, and gives the seq back (no gap in the change log)', async () => {
      const res = await f.service.deleteVectors(P, 'docs', { ids: ['x', 'y'] });
      expect(res).toEqual({ deleted: 0, not_found: ['x', 'y'] });
      expect(f.repo.table('docs')?.seq).toBe(1n);
      expect(f.repo.changeLog('docs')).toHaveLength(1);
      expect(f.transactions.rolledBack).toHaveLength(1);
      expect(f.live.applied).toHaveLength(1);

      await f.service.deleteVectors(P, 'docs', { ids: ['a'] });
      expect(f.repo.changeLog('docs').map((c) => c.seq)).toEqual([1n, 2n]);
    });

    it('404 when another instance dropped the table meanwhile; this instance forgets it', async () => {
      f.repo.dropElsewhere('docs');
      expect(await failure(f.service.deleteVectors(P, 'docs', { ids: ['a'] }))).toMatchObject({ code: 'resource_missing' });
      expect(f.live.holds('docs')).toBe(false);
    });
  });
});
