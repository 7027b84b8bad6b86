/**
 * Issue 31, vector-api: the per-row, per-table and per-project limits (platform contract,
 * third round, "Limits that protect every tenant") and the validation findings. A hostile
 * tester stored 20 MB metadata values, 1e39 as Infinity, 304 tables of one project (about
 * 10 MB each while empty), deleted every row with `{"$and": [{}]}`, and made 102 tokens
 * against a cap of 100 with concurrent creates. Each limit runs here LOWERED through
 * configuration; concurrency is real (parallel requests, PostgreSQL's locks).
 */
import { client, type ErrorRes, newProject, startVectorApp, type VectorTestApp } from '../vector-api/support';
import { sql } from './support';

const LIMITS = {
  VECTOR_METADATA_MAX_BYTES: '200',
  VECTOR_METADATA_MAX_KEYS: '5',
  VECTOR_MAX_TABLES_PER_PROJECT: '5',
  VECTOR_MAX_FLOATS_PER_PROJECT: '40',
  VECTOR_RATE_LIMIT_PER_MINUTE: '100000',
};

describe('vector-api: limits per row, table and project (issue 31)', () => {
  let t: VectorTestApp;
  beforeAll(async () => {
    t = await startVectorApp(LIMITS);
  });
  afterAll(async () => {
    await t.close();
  });

  const project = async (name: string) => client(t.app, (await newProject(t.app, name)).token);
  const storedFloats = async (projectId: string): Promise<number> => {
    const [row] = await sql<{ n: string }>(t.db.url, 'SELECT stored_floats::text AS n FROM vector_projects WHERE id = $1', [
      projectId,
    ]);
    return Number(row?.n);
  };

  describe('metadata per row (VECTOR_METADATA_MAX_BYTES, VECTOR_METADATA_MAX_KEYS)', () => {
    it('refuses insert, upsert and a PATCH whose merged result is over either limit; names the row and the limit', async () => {
      const call = await project('meta');
      expect((await call('POST', '/v1/tables', { name: 'm', dimension: 2 })).status).toBe(201);
      const big = { text: 'x'.repeat(300) };
      for (const route of ['insert', 'upsert']) {
        const res = await call<ErrorRes>('POST', `/v1/tables/m/${route}`, {
          rows: [
            { id: 'ok', embedding: [1, 0], metadata: { a: 1 } },
            { id: 'big', embedding: [0, 1], metadata: big },
          ],
        });
        expect([res.status, res.body.error.code, res.body.error.param, res.body.error.ids]).toEqual([
          400,
          'metadata_too_large',
          'rows[1].metadata',
          ['big'],
        ]);
        expect(res.body.error.message).toContain('VECTOR_METADATA_MAX_BYTES');
        expect(res.body.error.message).toContain('200');
      }
      const keys = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`k${i}`, i]));
      const many = await call<ErrorRes>('POST', '/v1/tables/m/insert', {
        rows: [{ id: 'keys', embedding: [1, 0], metadata: keys }],
      });
      expect([many.status, many.body.error.code, many.body.error.param]).toEqual([400, 'metadata_too_large', 'rows[0].metadata']);
      expect(many.body.error.message).toContain('VECTOR_METADATA_MAX_KEYS');
      expect((await call('POST', '/v1/tables/m/count', {})).body).toEqual({ count: 0 });

      const four = { k0: 0, k1: 1, k2: 2, k3: 3 };
      expect((await call('POST', '/v1/tables/m/insert', { rows: [{ id: 'r', embedding: [1, 0], metadata: four }] })).status).toBe(
        201,
      );
      // 4 stored + 2 new keys = 6 > 5: the merged result counts, not the patch alone.
      const patched = await call<ErrorRes>('PATCH', '/v1/tables/m/vectors/r', { metadata: { k4: 4, k5: 5 } });
      expect([patched.status, patched.body.error.code, patched.body.error.param]).toEqual([
        400,
        'metadata_too_large',
        'metadata',
      ]);
      const grown = await call<ErrorRes>('PATCH', '/v1/tables/m/vectors/r', { metadata: { k0: 'y'.repeat(250) } });
      expect([grown.status, grown.body.error.code]).toEqual([400, 'metadata_too_large']);
      // Removing one key makes room for another.
      const swapped = await call('PATCH', '/v1/tables/m/vectors/r', { metadata: { k0: null, k4: 4, k5: 5 } });
      expect(swapped.status).toBe(200);
    });
  });

  describe('embeddings are finite float32', () => {
    it('refuses 1e39 in insert, upsert, PATCH, a query and a batch query; keeps ±3.4028235e38', async () => {
      const call = await project('floats');
      expect((await call('POST', '/v1/tables', { name: 'f', dimension: 2 })).status).toBe(201);
      const cases: Array<[string, string, unknown, string]> = [
        ['POST', '/v1/tables/f/insert', { rows: [{ id: 'a', embedding: [1e39, 0] }] }, 'rows[0].embedding'],
        ['POST', '/v1/tables/f/upsert', { rows: [{ id: 'a', embedding: [0, -1e300] }] }, 'rows[0].embedding'],
        ['POST', '/v1/tables/f/query', { vector: [1e39, 0], n: 1 }, 'vector'],
        [
          'POST',
          '/v1/tables/f/query',
          {
            queries: [
              { vector: [1, 0], n: 1 },
              { vector: [0, 1e39], n: 1 },
            ],
          },
          'queries[1].vector',
        ],
      ];
      for (const [method, url, body, param] of cases) {
        const res = await call<ErrorRes>(method as 'POST', url, body);
        expect([url, res.status, res.body.error.code, res.body.error.param]).toEqual([url, 400, 'parameter_invalid', param]);
        expect(res.body.error.message).toContain('float32');
      }
      expect(
        (await call('POST', '/v1/tables/f/insert', { rows: [{ id: 'edge', embedding: [3.4028235e38, -3.4028235e38] }] })).status,
      ).toBe(201);
      const patch = await call<ErrorRes>('PATCH', '/v1/tables/f/vectors/edge', { embedding: [1e39, 1] });
      expect([patch.status, patch.body.error.code, patch.body.error.param]).toEqual([400, 'parameter_invalid', 'embedding']);
      const fetched = await call<{ rows: Array<{ embedding: number[] }> }>('POST', '/v1/tables/f/fetch', {
        ids: ['edge'],
        include_values: true,
      });
      expect(fetched.body.rows[0]?.embedding.every(Number.isFinite)).toBe(true);
    });
  });

  describe('tables per project (VECTOR_MAX_TABLES_PER_PROJECT)', () => {
    it('12 concurrent creates at a limit of 5 make exactly 5 tables; the others are 409 table_limit_reached', async () => {
      const call = await project('tables');
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          call<ErrorRes>('POST', '/v1/tables', { name: `t${i}`, dimension: 4, index: 'hnsw' }),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(5);
      const refused = results.filter((r) => r.status !== 201);
      expect(refused.map((r) => [r.status, r.body.error.code])).toEqual(refused.map(() => [409, 'table_limit_reached']));
      expect(refused[0]?.body.error.message).toContain('VECTOR_MAX_TABLES_PER_PROJECT');
      const list = await call<{ data: unknown[] }>('GET', '/v1/tables');
      expect(list.body.data).toHaveLength(5);
      // Another project is not affected; a drop makes room again.
      const other = await project('tables-other');
      expect((await other('POST', '/v1/tables', { name: 't0', dimension: 4 })).status).toBe(201);
      const first = (list.body.data[0] as { name: string }).name;
      expect((await call('DELETE', `/v1/tables/${first}`)).status).toBe(200);
      expect((await call('POST', '/v1/tables', { name: 'again', dimension: 4 })).status).toBe(201);
    });
  });

  describe('stored floats per project (VECTOR_MAX_FLOATS_PER_PROJECT)', () => {
    it('concurrent inserts never pass the budget; upserts count only new ids; deletes and drops give floats back', async () => {
      const { id, token } = await newProject(t.app, 'capacity');
      const call = client(t.app, token);
      for (const name of ['a', 'b']) expect((await call('POST', '/v1/tables', { name, dimension: 4 })).status).toBe(201);
      const row = (name: string) => ({ id: name, embedding: [1, 2, 3, 4] });
      // 8 inserts of 2 rows (8 floats each) against 40: exactly 5 fit, whatever the interleaving.
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          call<ErrorRes>('POST', `/v1/tables/${i % 2 === 0 ? 'a' : 'b'}/insert`, { rows: [row(`r${i}x`), row(`r${i}y`)] }),
        ),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(5);
      const refused = results.filter((r) => r.status !== 201);
      expect(refused.map((r) => [r.status, r.body.error.code])).toEqual(refused.map(() => [409, 'project_capacity_reached']));
      expect(refused[0]?.body.error.message).toContain('VECTOR_MAX_FLOATS_PER_PROJECT');
      expect(await storedFloats(id)).toBe(40);
      const rowsIn = async (table: string): Promise<number> =>
        (await call<{ count: number }>('POST', `/v1/tables/${table}/count`, {})).body.count;
      expect((await rowsIn('a')) + (await rowsIn('b'))).toBe(10);

      // An upsert that only replaces rows adds nothing; one new id is refused.
      const aIds = (await call<{ ids: string[] }>('GET', '/v1/tables/a/vectors')).body.ids;
      expect((await call('POST', '/v1/tables/a/upsert', { rows: [row(aIds[0] ?? '')] })).status).toBe(200);
      const fresh = await call<ErrorRes>('POST', '/v1/tables/a/upsert', { rows: [row(aIds[0] ?? ''), row('new')] });
      expect([fresh.status, fresh.body.error.code]).toEqual([409, 'project_capacity_reached']);

      // A delete by ids gives its rows' floats back (by filter: the next case).
      expect((await call('DELETE', '/v1/tables/a/vectors', { ids: aIds.slice(0, 2) })).status).toBe(200);
      expect(await storedFloats(id)).toBe(32);
      expect((await call('POST', '/v1/tables/a/insert', { rows: [row('n1'), row('n2')] })).status).toBe(201);
      expect(await storedFloats(id)).toBe(40);
      const inB = await rowsIn('b');
      expect(inB).toBeGreaterThan(0);
      expect((await call('DELETE', '/v1/tables/b')).status).toBe(200);
      expect(await storedFloats(id)).toBe(40 - 4 * inB);
      expect(await storedFloats(id)).toBe(4 * (await rowsIn('a')));
    });

    it('a delete by filter gives its rows back', async () => {
      const { id, token } = await newProject(t.app, 'capacity-filter');
      const call = client(t.app, token);
      expect((await call('POST', '/v1/tables', { name: 'c', dimension: 2 })).status).toBe(201);
      const rows = Array.from({ length: 6 }, (_, i) => ({ id: `c${i}`, embedding: [1, i], metadata: { even: i % 2 === 0 } }));
      expect((await call('POST', '/v1/tables/c/insert', { rows })).status).toBe(201);
      expect(await storedFloats(id)).toBe(12);
      const deleted = await call<{ deleted: number }>('DELETE', '/v1/tables/c/vectors', { filter: { even: true } });
      expect(deleted.body.deleted).toBe(3);
      expect(await storedFloats(id)).toBe(6);
    });
  });

  describe('GET /v1/tables is cursor-paginated', () => {
    it('pages by name with limit, starting_after and has_more; refuses a limit out of 1–100', async () => {
      const call = await project('pages');
      for (const name of ['d', 'a', 'c', 'b'])
        expect((await call('POST', '/v1/tables', { name, dimension: 2 })).status).toBe(201);
      type Page = { object: string; data: Array<{ name: string }>; has_more: boolean };
      const first = await call<Page>('GET', '/v1/tables?limit=3');
      expect([first.body.object, first.body.data.map((x) => x.name), first.body.has_more]).toEqual([
        'list',
        ['a', 'b', 'c'],
        true,
      ]);
      const next = await call<Page>('GET', '/v1/tables?limit=3&starting_after=c');
      expect([next.body.data.map((x) => x.name), next.body.has_more]).toEqual([['d'], false]);
      expect((await call<Page>('GET', '/v1/tables')).body.data).toHaveLength(4);
      for (const bad of ['limit=0', 'limit=101', 'limit=x', 'starting_after=A%20B']) {
        const res = await call<ErrorRes>('GET', `/v1/tables?${bad}`);
        expect([bad, res.status]).toEqual([bad, 400]);
      }
    });
  });

  describe('delete by a filter that matches every row (filter_matches_all)', () => {
    it('refuses {}, an $and of {}, an $or with {}, $nin: [] and complements, whatever rows exist; a real filter still deletes', async () => {
      const call = await project('match-all');
      expect((await call('POST', '/v1/tables', { name: 'x', dimension: 2 })).status).toBe(201);
      const rows = Array.from({ length: 4 }, (_, i) => ({ id: `x${i}`, embedding: [1, i], metadata: { k: i } }));
      expect((await call('POST', '/v1/tables/x/insert', { rows })).status).toBe(201);
      const everything = [
        {},
        { $and: [{}] },
        { $or: [{}, { k: 1 }] },
        { k: { $nin: [] } },
        { $or: [{ k: { $exists: true } }, { k: { $exists: false } }] },
        { $or: [{ k: 1 }, { k: { $ne: 1 } }] },
      ];
      for (const filter of everything) {
        const res = await call<ErrorRes>('DELETE', '/v1/tables/x/vectors', { filter });
        expect([JSON.stringify(filter), res.status, res.body.error.code, res.body.error.param]).toEqual([
          JSON.stringify(filter),
          400,
          'filter_matches_all',
          'filter',
        ]);
      }
      expect((await call('POST', '/v1/tables/x/count', {})).body).toEqual({ count: 4 });
      const some = await call<{ deleted: number }>('DELETE', '/v1/tables/x/vectors', { filter: { k: { $in: [0, 1] } } });
      expect(some.body.deleted).toBe(2);
    });
  });

  describe('the token cap holds under concurrent creates', () => {
    it('40 concurrent POST /v1/tokens at 95 working tokens make exactly 5', async () => {
      const { id, token } = await newProject(t.app, 'token-cap');
      const admin = client(t.app, 'dev-admin-key');
      for (let i = 0; i < 94; i++)
        expect((await admin('POST', `/admin/v1/projects/${id}/tokens`, { name: `seed-${i}` })).status).toBe(201);
      const call = client(t.app, token);
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => call<ErrorRes>('POST', '/v1/tokens', { name: `race-${i}` })),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(5);
      expect(new Set(results.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.body.error.code}`))).toEqual(
        new Set(['409 token_limit_reached']),
      );
      const [active] = await sql<{ n: string }>(
        t.db.url,
        'SELECT count(*)::text AS n FROM vector_tokens WHERE project_id = $1 AND revoked_at IS NULL',
        [id],
      );
      expect(Number(active?.n)).toBe(100);
    });
  });
});
