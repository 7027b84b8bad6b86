/**
 * The flow of docs/vector.md written with @securities-platform/vector-client (typed by the
 * vector-api OpenAPI document) against a listening vector-api: create a table → insert →
 * query with a filter → delete vectors → drop the table.
 */
import { createVectorClient, type ApiError, type VectorClient } from '@securities-platform/vector-client';
import { startVectorApp, type VectorTestApp } from '../vector-api/support';
import { ADMIN_KEY, listen } from './support';

describe('vector-client against vector-api', () => {
  let t: VectorTestApp;
  let baseUrl: string;
  let api: VectorClient;

  beforeAll(async () => {
    t = await startVectorApp();
    baseUrl = await listen(t);
    const admin = createVectorClient({ baseUrl, token: ADMIN_KEY });
    const created = await admin.POST('/admin/v1/tokens', { body: { name: 'search-backend' } });
    if (!created.data) throw new Error(`token: ${created.response.status}`);
    api = createVectorClient({ baseUrl, token: created.data.token });
  });
  afterAll(async () => {
    await t.close();
  });

  it('create table → insert → query with a filter → delete vectors → drop table', async () => {
    const table = await api.POST('/v1/tables', { body: { name: 'articles', dimension: 3, index: 'flat' } });
    expect(table.response.status).toBe(201);
    expect(table.data).toMatchObject({ name: 'articles', dimension: 3, rows: 0 });

    const inserted = await api.POST('/v1/tables/{table}/insert', {
      params: { path: { table: 'articles' } },
      body: {
        rows: [
          { id: 'a1', embedding: [1, 0, 0], metadata: { lang: 'en', year: 2024, tags: ['ai', 'db'] } },
          { id: 'a2', embedding: [0.9, 0.1, 0], metadata: { lang: 'de', year: 2024 } },
          { id: 'a3', embedding: [0.8, 0.2, 0], metadata: { lang: 'en', year: 2019 } },
        ],
      },
    });
    expect(inserted.response.status).toBe(201);
    expect(inserted.data).toEqual({ inserted: 3 });

    const query = { vector: [1, 0, 0], n: 5, filter: { lang: 'en', year: { $gte: 2020 } } };
    const found = await api.POST('/v1/tables/{table}/query', { params: { path: { table: 'articles' } }, body: query });
    expect(found.response.status).toBe(200);
    expect(found.data?.results).toEqual([{ id: 'a1', score: 1, metadata: { lang: 'en', year: 2024, tags: ['ai', 'db'] } }]);

    const deleted = await api.DELETE('/v1/tables/{table}/vectors', {
      params: { path: { table: 'articles' } },
      body: { ids: ['a1', 'nope'] },
    });
    expect(deleted.response.status).toBe(200);
    expect(deleted.data).toEqual({ deleted: 1, not_found: ['nope'] });
    const after = await api.POST('/v1/tables/{table}/query', {
      params: { path: { table: 'articles' } },
      body: { vector: [1, 0, 0], n: 5, filter: { lang: 'en' } },
    });
    expect(after.data?.results.flat().map((r) => r.id)).toEqual(['a3']);

    const dropped = await api.DELETE('/v1/tables/{table}', { params: { path: { table: 'articles' } } });
    expect(dropped.data).toEqual({ name: 'articles', deleted: true });
    const gone = await api.GET('/v1/tables/{table}', { params: { path: { table: 'articles' } } });
    expect(gone.response.status).toBe(404);
    expect((gone.error as ApiError | undefined)?.error).toMatchObject({ code: 'resource_missing', param: 'table' });
  });

  it('refuses at compile time what the OpenAPI document does not allow (tsc checks the @ts-expect-error lines)', async () => {
    const res = await api.POST('/v1/tables', {
      body: {
        name: 'typo',
        // @ts-expect-error `dimensions` is not a field of CreateTableDto (dimension is)
        dimensions: 3,
        index: 'flat',
      },
    });
    // The server refuses it too, at run time.
    expect(res.response.status).toBe(400);
    expect((res.error as ApiError | undefined)?.error).toMatchObject({ code: 'parameter_unknown', param: 'dimensions' });
  });
});
