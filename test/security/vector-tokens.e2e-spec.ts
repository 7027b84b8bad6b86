/**
 * vector-api tokens within one project. What docs/vector.md promises: a project's tables are
 * shared by all its tokens (the project is the tenant, like a Pinecone project; isolation
 * between projects is test/vector-api/projects.e2e-spec.ts) — tokens of one project are NOT
 * a boundary; a token only authenticates. What it does promise: a revoked token is refused
 * at once on every route with no effect, and a token never opens the admin routes. Every
 * token route of /openapi.json appears in both tables below.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startVectorApp, type VectorTestApp } from '../vector-api/support';
import { type ErrorBody, fillPath, openApiOperations, opKey, snapshotDatabase } from './support';

type Method = 'GET' | 'POST' | 'DELETE' | 'PATCH';

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

  const as = (token: string, r: Request) =>
    t.app.inject({
      method: r.method,
      url: r.url,
      headers: { authorization: `Bearer ${token}` },
      ...(r.payload ? { payload: r.payload } : {}),
    });

  /** One request per token operation, on the table `table`. */
  const requestFor = (key: string, table: string): Request => {
    const [method, path] = key.split(' ') as [Method, string];
    const url = fillPath(path, { table, id: 'r2' });
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
