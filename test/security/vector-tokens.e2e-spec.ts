/**
 * vector-api tokens within one project. What docs/vector.md promises: a project's tables are
 * shared by all its tokens (the project is the tenant, like a Pinecone project; isolation
 * between projects is test/vector-api/projects.e2e-spec.ts) — tokens of one project are NOT
 * a boundary; a token only authenticates. What it does promise: a revoked token is refused
 * at once on every route with no effect, and a token never opens the admin routes. Every
 * token route of /openapi.json appears in both tables below, the Qdrant-compatible routes
 * (docs/qdrant.md: errors in Qdrant's body, the token in `api-key` or `Authorization: Bearer`) too.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startVectorApp, type VectorTestApp } from '../vector-api/support';
import {
  type ErrorBody,
  fillPath,
  isQdrantRoute,
  openApiOperations,
  opKey,
  type QdrantErrorBody,
  snapshotDatabase,
} from './support';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

interface Request {
  readonly method: Method;
  readonly url: string;
  readonly payload?: object;
}

async function newToken(app: NestFastifyApplication, name: string): Promise<{ id: string; token: string }> {
  const res = await app.inject({
    method: 'POST',
    url: '/admin/v1/tokens',
    headers: { authorization: 'Bearer dev-admin-key' },
    payload: { name },
  });
  expect(res.statusCode).toBe(201);
  return res.json<{ id: string; token: string }>();
}

describe('vector-api: tokens', () => {
  let t: VectorTestApp;
  let owner: { id: string; token: string };
  let other: { id: string; token: string };
  let revoked: { id: string; token: string };

  const as = (token: string, r: Request, header: 'authorization' | 'api-key' = 'authorization') =>
    t.app.inject({
      method: r.method,
      url: r.url,
      headers: header === 'authorization' ? { authorization: `Bearer ${token}` } : { 'api-key': token },
      ...(r.payload ? { payload: r.payload } : {}),
    });
  /** A Qdrant answer's `result`, after checking the 200. */
  const resultOf = <T>(key: string, res: { statusCode: number; body: string; json: <U>() => U }): T => {
    expect([key, res.statusCode, res.statusCode === 200 ? '' : res.body]).toEqual([key, 200, '']);
    return res.json<{ result: T }>().result;
  };

  /** One request per token operation, on the table `table`. */
  const requestFor = (key: string, table: string): Request => {
    const [method, path] = key.split(' ') as [Method, string];
    const url = fillPath(path, { table, c: table, id: path.startsWith('/collections') ? '7' : 'r2', field: 'k' });
    const payloads: Record<string, object> = {
      'POST /v1/tables': { name: `${table}_new`, dimension: 2 },
      'POST /v1/tables/{table}/insert': { rows: [{ id: `row_${Math.random().toString(36).slice(2)}`, embedding: [0.5, 0.5] }] },
      'POST /v1/tables/{table}/upsert': { rows: [{ id: 'r2', embedding: [0, 1], metadata: { by: 'upsert' } }] },
      'POST /v1/tables/{table}/fetch': { ids: ['r1'] },
      'PATCH /v1/tables/{table}/vectors/{id}': { metadata: { touched: true } },
      'POST /v1/tables/{table}/count': { filter: { k: 'owner-secret-doc' } },
      'POST /v1/tables/{table}/query': { vector: [1, 0], n: 5 },
      'DELETE /v1/tables/{table}/vectors': { ids: ['r1'] },
      'POST /v1/tokens': { name: 'from-a-token' },
      'PUT /collections/{c}': { vectors: { size: 2, distance: 'Cosine' } },
      'PUT /collections/{c}/points': { points: [{ id: 7, vector: [0.5, 0.5], payload: { by: 'qdrant' } }] },
      'POST /collections/{c}/points': { ids: [7] },
      'POST /collections/{c}/points/query': { query: [1, 0], limit: 5 },
      'POST /collections/{c}/points/query/batch': { searches: [{ query: [1, 0], limit: 5 }] },
      'POST /collections/{c}/points/search': { vector: [1, 0], limit: 5 },
      'POST /collections/{c}/points/search/batch': { searches: [{ vector: [1, 0], limit: 5 }] },
      'POST /collections/{c}/points/delete': { points: [8] },
      'POST /collections/{c}/points/scroll': { limit: 100 },
      'POST /collections/{c}/points/count': { filter: { must: [{ key: 'k', match: { value: 'owner-secret-doc' } }] } },
      'POST /collections/{c}/points/payload': { payload: { touched: true }, points: [7] },
      'PUT /collections/{c}/points/payload': { payload: { by: 'overwrite' }, points: [7] },
      'POST /collections/{c}/points/payload/delete': { keys: ['touched'], points: [7] },
      'POST /collections/{c}/points/payload/clear': { points: [7] },
      'PUT /collections/{c}/index': { field_name: 'k', field_schema: 'keyword' },
    };
    return { method, url, ...(payloads[key] ? { payload: payloads[key] } : {}) };
  };

  beforeAll(async () => {
    t = await startVectorApp();
    owner = await newToken(t.app, 'owner');
    other = await newToken(t.app, 'other');
    revoked = await newToken(t.app, 'to-revoke');
    expect(
      (await as(owner.token, { method: 'POST', url: '/v1/tables', payload: { name: 'owners', dimension: 2 } })).statusCode,
    ).toBe(201);
    const rows = [
      { id: 'r1', embedding: [1, 0], metadata: { k: 'owner-secret-doc' } },
      { id: 'r2', embedding: [0, 1] },
    ];
    expect((await as(owner.token, { method: 'POST', url: '/v1/tables/owners/insert', payload: { rows } })).statusCode).toBe(201);
  });
  afterAll(async () => {
    await t.close();
  });

  /** A project's tables are one namespace: another token of it reaches the owner's table like the owner does (docs/vector.md). */
  const SHARED: Record<string, () => Promise<void>> = {
    'POST /v1/tables': async () => {
      const dup = await as(other.token, { method: 'POST', url: '/v1/tables', payload: { name: 'owners', dimension: 2 } });
      expect(dup.statusCode).toBe(409); // the name is taken for every token
    },
    'GET /v1/tables': async () => {
      const res = await as(other.token, { method: 'GET', url: '/v1/tables' });
      expect(res.json<{ data: Array<{ name: string }> }>().data.map((x) => x.name)).toContain('owners');
    },
    'GET /v1/tables/{table}': async () => {
      expect((await as(other.token, requestFor('GET /v1/tables/{table}', 'owners'))).statusCode).toBe(200);
    },
    'GET /v1/tables/{table}/stats': async () => {
      const res = await as(other.token, requestFor('GET /v1/tables/{table}/stats', 'owners'));
      expect([res.statusCode, res.json<{ name: string }>().name]).toEqual([200, 'owners']);
    },
    'POST /v1/tables/{table}/query': async () => {
      const res = await as(other.token, requestFor('POST /v1/tables/{table}/query', 'owners'));
      expect(res.json<{ results: Array<{ id: string }> }>().results.map((r) => r.id)).toContain('r1');
    },
    'POST /v1/tables/{table}/insert': async () => {
      expect((await as(other.token, requestFor('POST /v1/tables/{table}/insert', 'owners'))).statusCode).toBe(201);
    },
    'DELETE /v1/tables/{table}/vectors': async () => {
      const res = await as(other.token, { method: 'DELETE', url: '/v1/tables/owners/vectors', payload: { ids: ['not-there'] } });
      expect(res.statusCode).toBe(200);
    },
    'DELETE /v1/tables/{table}': async () => {
      await as(owner.token, { method: 'POST', url: '/v1/tables', payload: { name: 'owners_scratch', dimension: 2 } });
      expect((await as(other.token, requestFor('DELETE /v1/tables/{table}', 'owners_scratch'))).statusCode).toBe(200);
    },
    'POST /v1/tables/{table}/upsert': async () => {
      const res = await as(other.token, requestFor('POST /v1/tables/{table}/upsert', 'owners'));
      expect([res.statusCode, res.json()]).toEqual([200, { upserted: 1, inserted: 0, updated: 1 }]);
    },
    'POST /v1/tables/{table}/fetch': async () => {
      const res = await as(other.token, requestFor('POST /v1/tables/{table}/fetch', 'owners'));
      expect(res.json()).toEqual({ rows: [{ id: 'r1', metadata: { k: 'owner-secret-doc' } }], not_found: [] });
    },
    'PATCH /v1/tables/{table}/vectors/{id}': async () => {
      const res = await as(other.token, requestFor('PATCH /v1/tables/{table}/vectors/{id}', 'owners'));
      expect(res.statusCode).toBe(200);
    },
    'GET /v1/tables/{table}/vectors': async () => {
      const res = await as(other.token, requestFor('GET /v1/tables/{table}/vectors', 'owners'));
      expect(res.json<{ ids: string[] }>().ids).toContain('r1');
    },
    'POST /v1/tables/{table}/count': async () => {
      expect((await as(other.token, requestFor('POST /v1/tables/{table}/count', 'owners'))).json()).toEqual({ count: 1 });
    },
    'GET /v1/tokens': async () => {
      const res = await as(other.token, { method: 'GET', url: '/v1/tokens' });
      expect(res.json<{ data: Array<{ id: string }> }>().data.map((x) => x.id)).toContain(owner.id);
    },
    'POST /v1/tokens': async () => {
      expect((await as(other.token, requestFor('POST /v1/tokens', 'owners'))).statusCode).toBe(201);
    },
    'DELETE /v1/tokens/{id}': async () => {
      const spare = await newToken(t.app, 'spare');
      const res = await as(other.token, { method: 'DELETE', url: `/v1/tokens/${spare.id}` });
      expect(res.statusCode).toBe(200);
      expect((await as(spare.token, { method: 'GET', url: '/v1/tables' })).statusCode).toBe(401);
    },
    // The Qdrant-compatible API: the same project, the same tables (collections)
    'GET /collections': async () => {
      const res = await as(other.token, requestFor('GET /collections', 'owners'), 'api-key');
      expect(resultOf<{ collections: Array<{ name: string }> }>('list', res).collections).toContainEqual({ name: 'owners' });
    },
    'PUT /collections/{c}': async () => {
      const dup = await as(other.token, requestFor('PUT /collections/{c}', 'owners'), 'api-key');
      expect([dup.statusCode, dup.json<QdrantErrorBody>().status.error]).toEqual([
        409,
        'Wrong input: Collection `owners` already exists!',
      ]);
    },
    'GET /collections/{c}': async () => {
      const res = await as(other.token, requestFor('GET /collections/{c}', 'owners'), 'api-key');
      expect(resultOf('info', res)).toMatchObject({ config: { params: { vectors: { size: 2 } } } });
    },
    'GET /collections/{c}/exists': async () => {
      const res = await as(other.token, requestFor('GET /collections/{c}/exists', 'owners'), 'api-key');
      expect(resultOf('exists', res)).toEqual({ exists: true });
    },
    'DELETE /collections/{c}': async () => {
      await as(owner.token, { method: 'POST', url: '/v1/tables', payload: { name: 'owners_scratch_q', dimension: 2 } });
      const res = await as(other.token, requestFor('DELETE /collections/{c}', 'owners_scratch_q'), 'api-key');
      expect(resultOf('drop', res)).toBe(true);
    },
    'PUT /collections/{c}/points': async () => {
      const res = await as(other.token, requestFor('PUT /collections/{c}/points', 'owners'), 'api-key');
      expect(resultOf('upsert', res)).toMatchObject({ status: 'acknowledged' });
    },
    'POST /collections/{c}/points': async () => {
      await as(owner.token, requestFor('PUT /collections/{c}/points', 'owners'));
      const res = await as(other.token, requestFor('POST /collections/{c}/points', 'owners'), 'api-key');
      expect(resultOf<Array<{ id: unknown }>>('retrieve', res).map((p) => p.id)).toEqual([7]);
    },
    'GET /collections/{c}/points/{id}': async () => {
      await as(owner.token, requestFor('PUT /collections/{c}/points', 'owners'));
      const res = await as(other.token, requestFor('GET /collections/{c}/points/{id}', 'owners'), 'api-key');
      expect(resultOf('point', res)).toMatchObject({ id: 7 });
    },
    'POST /collections/{c}/points/query': async () => {
      const res = await as(other.token, requestFor('POST /collections/{c}/points/query', 'owners'), 'api-key');
      expect(resultOf<{ points: Array<{ id: unknown }> }>('query', res).points.map((p) => p.id)).toContain('r1');
    },
    'POST /collections/{c}/points/query/batch': async () => {
      const res = await as(other.token, requestFor('POST /collections/{c}/points/query/batch', 'owners'), 'api-key');
      expect(resultOf<Array<{ points: Array<{ id: unknown }> }>>('query batch', res)[0]?.points.map((p) => p.id)).toContain('r1');
    },
    'POST /collections/{c}/points/search': async () => {
      const res = await as(other.token, requestFor('POST /collections/{c}/points/search', 'owners'), 'api-key');
      expect(resultOf<Array<{ id: unknown }>>('search', res).map((p) => p.id)).toContain('r1');
    },
    'POST /collections/{c}/points/search/batch': async () => {
      const res = await as(other.token, requestFor('POST /collections/{c}/points/search/batch', 'owners'), 'api-key');
      expect(resultOf<Array<Array<{ id: unknown }>>>('search batch', res)[0]?.map((p) => p.id)).toContain('r1');
    },
    'POST /collections/{c}/points/delete': async () => {
      const res = await as(other.token, requestFor('POST /collections/{c}/points/delete', 'owners'), 'api-key');
      expect(resultOf('delete', res)).toMatchObject({ status: 'acknowledged' });
    },
    'POST /collections/{c}/points/scroll': async () => {
      const res = await as(other.token, requestFor('POST /collections/{c}/points/scroll', 'owners'), 'api-key');
      expect(resultOf<{ points: Array<{ id: unknown }> }>('scroll', res).points.map((p) => p.id)).toContain('r1');
    },
    'POST /collections/{c}/points/count': async () => {
      const res = await as(other.token, requestFor('POST /collections/{c}/points/count', 'owners'), 'api-key');
      expect(resultOf('count', res)).toEqual({ count: 1 });
    },
    'POST /collections/{c}/points/payload': async () => {
      await as(owner.token, requestFor('PUT /collections/{c}/points', 'owners'));
      const res = await as(other.token, requestFor('POST /collections/{c}/points/payload', 'owners'), 'api-key');
      expect(resultOf('set payload', res)).toMatchObject({ status: 'acknowledged' });
    },
    'PUT /collections/{c}/points/payload': async () => {
      await as(owner.token, requestFor('PUT /collections/{c}/points', 'owners'));
      const res = await as(other.token, requestFor('PUT /collections/{c}/points/payload', 'owners'), 'api-key');
      expect(resultOf('overwrite payload', res)).toMatchObject({ status: 'acknowledged' });
    },
    'POST /collections/{c}/points/payload/delete': async () => {
      await as(owner.token, requestFor('PUT /collections/{c}/points', 'owners'));
      const res = await as(other.token, requestFor('POST /collections/{c}/points/payload/delete', 'owners'), 'api-key');
      expect(resultOf('delete payload', res)).toMatchObject({ status: 'acknowledged' });
    },
    'POST /collections/{c}/points/payload/clear': async () => {
      await as(owner.token, requestFor('PUT /collections/{c}/points', 'owners'));
      const res = await as(other.token, requestFor('POST /collections/{c}/points/payload/clear', 'owners'), 'api-key');
      expect(resultOf('clear payload', res)).toMatchObject({ status: 'acknowledged' });
    },
    'PUT /collections/{c}/index': async () => {
      const res = await as(other.token, requestFor('PUT /collections/{c}/index', 'owners'), 'api-key');
      expect(resultOf('index', res)).toMatchObject({ status: 'acknowledged' });
    },
    'DELETE /collections/{c}/index/{field}': async () => {
      const res = await as(other.token, requestFor('DELETE /collections/{c}/index/{field}', 'owners'), 'api-key');
      expect(resultOf('drop index', res)).toMatchObject({ status: 'acknowledged' });
    },
  };

  it('has a case for every token operation of /openapi.json', async () => {
    const ops = (await openApiOperations(t.app)).filter((op) => op.security.includes('vector_token')).map(opKey);
    expect(ops.length).toBeGreaterThan(5);
    expect([...ops].sort()).toEqual(Object.keys(SHARED).sort());
  });

  it.each(Object.keys(SHARED))('%s: a project is shared by all its tokens (documented; tokens are not tenants)', async (key) => {
    await SHARED[key]?.();
  });

  it('refuses a revoked token at once on every token operation, with no effect', async () => {
    const ops = (await openApiOperations(t.app)).filter((op) => op.security.includes('vector_token')).map(opKey);
    // the token works and its lookup is cached ...
    expect((await as(revoked.token, { method: 'GET', url: '/v1/tables/owners' })).statusCode).toBe(200);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/admin/v1/tokens/${revoked.id}`,
      headers: { authorization: 'Bearer dev-admin-key' },
    });
    expect(del.statusCode).toBe(200);
    // ... and the very next request, on every route, is refused
    const before = await snapshotDatabase(t.db.url);
    for (const key of ops) {
      if (isQdrantRoute(key.split(' ')[1] ?? '')) {
        // Qdrant's body, the platform's code in front of the message; in either header the client may send
        for (const header of ['api-key', 'authorization'] as const) {
          const res = await as(revoked.token, requestFor(key, 'owners'), header);
          const error = res.statusCode === 401 ? res.json<QdrantErrorBody>().status.error : res.body;
          expect([key, header, res.statusCode, res.headers['www-authenticate'], error.split(':')[0]]).toEqual([
            key,
            header,
            401,
            'Bearer realm="vector-api", error="invalid_token"',
            'invalid_api_key',
          ]);
          expect(res.body).not.toContain('owner-secret-doc');
        }
        continue;
      }
      const res = await as(revoked.token, requestFor(key, 'owners'));
      const error = res.statusCode === 401 ? res.json<ErrorBody>().error : undefined;
      expect([key, res.statusCode, res.headers['www-authenticate'], error?.code, error?.type]).toEqual([
        key,
        401,
        'Bearer realm="vector-api", error="invalid_token"',
        'invalid_api_key',
        'authentication_error',
      ]);
      expect(res.body).not.toContain('owner-secret-doc');
    }
    expect(await snapshotDatabase(t.db.url)).toEqual(before);
    // the other tokens are unaffected
    expect((await as(owner.token, { method: 'GET', url: '/v1/tables/owners' })).statusCode).toBe(200);
  });

  it('never opens an admin route with a token (every admin operation, see also admin-routes)', async () => {
    const admin = (await openApiOperations(t.app)).filter((op) => op.path.startsWith('/admin/'));
    expect(admin.length).toBeGreaterThan(1);
    for (const op of admin) {
      const res = await t.app.inject({
        method: op.method,
        url: fillPath(op.path, { id: owner.id }),
        headers: { authorization: `Bearer ${owner.token}` },
        ...(op.method === 'POST' ? { payload: { name: 'by-token' } } : {}),
      });
      expect([opKey(op), res.statusCode]).toEqual([opKey(op), 401]);
    }
    const list = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/tokens',
      headers: { authorization: 'Bearer dev-admin-key' },
    });
    const tokens = list.json<{ data: Array<{ id: string; name: string; revoked_at: string | null }> }>().data;
    expect(tokens.find((x) => x.id === owner.id)?.revoked_at).toBeNull();
    expect(tokens.map((x) => x.name)).not.toContain('by-token');
    expect(list.body).not.toContain(owner.token);
  });
});
