import { client, type Call, type ErrorRes, newToken, startVectorApp, type VectorTestApp } from './support';

interface Table {
  name: string;
  dimension: number;
  index: string;
  metric: string;
  rows: number;
  index_status: { state: string; details: Record<string, number> };
  created_at: string;
}

describe('vector-api tables (POST/GET/DELETE /v1/tables)', () => {
  let t: VectorTestApp;
  let call: Call;
  beforeAll(async () => {
    t = await startVectorApp();
    call = client(t.app, await newToken(t.app));
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates a table (201) and returns it with row count and index status', async () => {
    const res = await call<Table>('POST', '/v1/tables', { name: 'docs_1', dimension: 3, index: 'hnsw' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      name: 'docs_1',
      dimension: 3,
      index: 'hnsw',
      metric: 'cosine',
      rows: 0,
      index_status: { state: expect.any(String) as unknown, details: expect.any(Object) as unknown },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
    });
    const got = await call<Table>('GET', '/v1/tables/docs_1');
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ name: 'docs_1', dimension: 3, index: 'hnsw', rows: 0 });
    expect(got.body.index_status.details).toMatchObject({ m: 16, ef_construction: 200 });
  });

  it('defaults the index to flat', async () => {
    const res = await call<Table>('POST', '/v1/tables', { name: 'plain', dimension: 2 });
    expect(res.status).toBe(201);
    expect(res.body.index).toBe('flat');
  });

  it('lists tables by name', async () => {
    for (const name of ['list-c', 'list-a', 'list-b']) {
      expect((await call('POST', '/v1/tables', { name, dimension: 4, index: 'ivf' })).status).toBe(201);
    }
    const res = await call<{ data: Table[] }>('GET', '/v1/tables');
    expect(res.status).toBe(200);
    const names = res.body.data.map((x) => x.name);
    expect(names).toEqual([...names].sort());
    expect(names.filter((n) => n.startsWith('list-'))).toEqual(['list-a', 'list-b', 'list-c']);
    expect(res.body.data.find((x) => x.name === 'list-a')).toMatchObject({ dimension: 4, index: 'ivf', rows: 0 });
  });

  it('refuses a duplicate name with 409 resource_already_exists', async () => {
    expect((await call('POST', '/v1/tables', { name: 'dup', dimension: 3 })).status).toBe(201);
    const res = await call<ErrorRes>('POST', '/v1/tables', { name: 'dup', dimension: 8 });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_already_exists', param: 'name' });
  });

  it("takes Qdrant's collection names: letters of either case, digits, '-', '_' and '.'", async () => {
    const res = await call<{ name: string }>('POST', '/v1/tables', { name: 'My.Docs_v-2', dimension: 3 });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('My.Docs_v-2');
    expect((await call('GET', '/v1/tables/My.Docs_v-2')).status).toBe(200);
    expect((await call('GET', '/v1/tables/my.docs_v-2')).status).toBe(404);
  });

  it.each<[string, unknown, string, string]>([
    ['a name of dots only', { name: '..', dimension: 3 }, 'name', 'parameter_invalid'],
    ['a name with a space', { name: 'my docs', dimension: 3 }, 'name', 'parameter_invalid'],
    ['a name of 65 characters', { name: 'a'.repeat(65), dimension: 3 }, 'name', 'parameter_invalid'],
    ['an empty name', { name: '', dimension: 3 }, 'name', 'parameter_invalid'],
    ['a name with a slash', { name: 'a/b', dimension: 3 }, 'name', 'parameter_invalid'],
    ['dimension 0', { name: 'x0', dimension: 0 }, 'dimension', 'parameter_invalid'],
    ['dimension 4097', { name: 'x1', dimension: 4097 }, 'dimension', 'parameter_invalid'],
    ['a fractional dimension', { name: 'x2', dimension: 2.5 }, 'dimension', 'parameter_invalid'],
    ['a string dimension', { name: 'x3', dimension: '3' }, 'dimension', 'parameter_invalid'],
    ['an unknown index', { name: 'x4', dimension: 3, index: 'lsh' }, 'index', 'parameter_invalid'],
    ['a missing dimension', { name: 'x5' }, 'dimension', 'parameter_missing'],
    ['an unknown field', { name: 'x6', dimension: 3, space: 'l2' }, 'space', 'parameter_unknown'],
  ])('rejects %s with 400 naming the param', async (_label, body, param, code) => {
    const res = await call<ErrorRes>('POST', '/v1/tables', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param });
  });

  it('accepts the limits: 64-character name and dimension 4096', async () => {
    const res = await call<Table>('POST', '/v1/tables', { name: 'z'.repeat(64), dimension: 4096 });
    expect(res.status).toBe(201);
  });

  it('answers 404 resource_missing for a missing table on every table route', async () => {
    for (const [method, url, body] of [
      ['GET', '/v1/tables/nope', undefined],
      ['DELETE', '/v1/tables/nope', undefined],
      ['POST', '/v1/tables/nope/insert', { rows: [{ id: 'a', embedding: [1] }] }],
      ['POST', '/v1/tables/nope/query', { vector: [1], n: 1 }],
      ['DELETE', '/v1/tables/nope/vectors', { ids: ['a'] }],
    ] as const) {
      const res = await call<ErrorRes>(method, url, body);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing', param: 'table' });
    }
  });

  it('deletes a table with its vectors; the name can be reused', async () => {
    await call('POST', '/v1/tables', { name: 'gone', dimension: 2 });
    await call('POST', '/v1/tables/gone/insert', { rows: [{ id: 'a', embedding: [1, 0] }] });
    const res = await call('DELETE', '/v1/tables/gone');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'gone', deleted: true });
    expect((await call('GET', '/v1/tables/gone')).status).toBe(404);
    expect((await call('POST', '/v1/tables', { name: 'gone', dimension: 2 })).status).toBe(201);
    const q = await call<{ results: unknown[] }>('POST', '/v1/tables/gone/query', { vector: [1, 0], n: 5 });
    expect(q.body.results).toEqual([]);
  });

  it('requires a valid API token (401 with WWW-Authenticate)', async () => {
    const missing = await t.app.inject({ method: 'GET', url: '/v1/tables' });
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(missing.json<ErrorRes>().error.type).toBe('authentication_error');
    const wrong = await client(t.app, 'not-a-token')('GET', '/v1/tables');
    expect(wrong.status).toBe(401);
    const admin = await client(t.app, 'dev-admin-key')('GET', '/v1/tables');
    expect(admin.status).toBe(401);
  });

  it('stops accepting a revoked token', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/tokens',
      headers: { authorization: 'Bearer dev-admin-key' },
      payload: { name: 'revoke-me' },
    });
    const { id, token } = created.json<{ id: string; token: string }>();
    expect((await client(t.app, token)('GET', '/v1/tables')).status).toBe(200);
    await t.app.inject({ method: 'DELETE', url: `/admin/v1/tokens/${id}`, headers: { authorization: 'Bearer dev-admin-key' } });
    expect((await client(t.app, token)('GET', '/v1/tables')).status).toBe(401);
  });
});

describe('vector-api rate limit', () => {
  let t: VectorTestApp;
  beforeAll(async () => {
    t = await startVectorApp({ VECTOR_RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 429 rate_limit_exceeded with Retry-After past the per-token limit', async () => {
    const call = client(t.app, await newToken(t.app));
    const statuses: number[] = [];
    let last: Awaited<ReturnType<Call>> | undefined;
    for (let i = 0; i < 4; i++) {
      last = await call<ErrorRes>('GET', '/v1/tables');
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const retryAfter = Number(last?.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((last?.body as ErrorRes).error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
  });
});

describe('vector-api body limit and OpenAPI', () => {
  let t: VectorTestApp;
  beforeAll(async () => {
    t = await startVectorApp({ VECTOR_INSERT_BODY_LIMIT_BYTES: '4096' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('defaults the insert body limit to 64 MiB (1000 rows × 4096 dimensions fit), 1 MiB elsewhere', async () => {
    const defaults = await startVectorApp();
    try {
      expect(defaults.config.VECTOR_INSERT_BODY_LIMIT_BYTES).toBe(64 * 1024 * 1024);
      expect(defaults.config.BODY_LIMIT_BYTES).toBe(1024 * 1024);
    } finally {
      await defaults.close();
    }
  });

  it('answers 413 body_too_large past the configured insert limit', async () => {
    const call = client(t.app, await newToken(t.app));
    await call('POST', '/v1/tables', { name: 'small', dimension: 1000 });
    const res = await call<ErrorRes>('POST', '/v1/tables/small/insert', {
      rows: [{ id: 'a', embedding: Array.from({ length: 1000 }, () => 0.123456) }],
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('body_too_large');
  });

  it('documents every route with its bearer security in /openapi.json', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const doc = res.json<{ paths: Record<string, Record<string, { security?: unknown[] }>> }>();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/tables',
        '/v1/tables/{table}',
        '/v1/tables/{table}/insert',
        '/v1/tables/{table}/query',
        '/v1/tables/{table}/vectors',
      ]),
    );
    expect(doc.paths['/v1/tables/{table}/query']?.post?.security).toEqual([{ vector_token: [] }]);
    expect(JSON.stringify(doc.paths['/v1/tables/{table}/insert']?.post)).toContain('InsertVectorsDto');
  });
});
