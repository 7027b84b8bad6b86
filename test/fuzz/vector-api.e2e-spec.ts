/**
 * Fuzzing every vector-api operation (see test/fuzz/support/harness.ts): generated and
 * hand-picked hostile queries, paths, bodies, content types and credentials; never a 5xx
 * or a hang, and every error in the contract's body (Qdrant's body on the Qdrant-compatible
 * routes, `/` and `/collections…`, docs/qdrant.md).
 */
import { vectorService } from '../../apps/vector-api/src/service';
import { startTestApp } from '../support/app';
import { consoleTemplates, DEEP_ARRAY, defineFuzzSuite, expectError, type Operation, type OpTemplate } from './support/harness';

interface VectorFixtures {
  token: string;
  tokenId: string;
  projectId: string;
  doomedTokenId: string;
  table: string;
  doomedTable: string;
  rowIds: string[];
  bodyLimit: number;
  insertBodyLimit: number;
  queryBodyLimit: number;
}

const ADMIN = { authorization: 'Bearer dev-admin-key' };
let serial = 0;
const vector = (): number[] => [0.1 + (serial % 7), -0.5, 0.25, 1];

/** An `api-key` header (one of its own: the platform's headers are a Record of strings). */
const junkApiKey = (value: string): Array<Record<string, string>> => [{ 'api-key': value }];

const QUERY = { wait: ['true', 'false'], ordering: ['weak', 'strong'], timeout: ['5'], consistency: ['majority', '2'] };

/**
 * Templates of the Qdrant routes on one collection's points (fz_main: points 1 and 2 written
 * through Qdrant). Flat payloads: nested ones and nulls come with the metadata model of issue 34's engine work.
 */
function qdrantPoints(): Record<string, (fx: VectorFixtures) => OpTemplate> {
  const on =
    (body: () => object, extra: Partial<OpTemplate> = {}) =>
    (fx: VectorFixtures): OpTemplate => ({
      params: { c: [fx.table] },
      query: QUERY,
      body,
      ...extra,
    });
  const filter = { must: [{ key: 'genre', match: { value: 'jazz' } }], must_not: [{ key: 'line', range: { gt: 5 } }] };
  return {
    'PUT /collections/{c}/points': on(() => ({
      points: [{ id: 100 + serial++, vector: vector(), payload: { genre: 'rock', line: 3, tags: ['a', 'b'] } }],
    })),
    'POST /collections/{c}/points': on(() => ({ ids: [1, 2, 3], with_payload: ['genre'], with_vector: true })),
    'GET /collections/{c}/points/{id}': (fx) => ({ params: { c: [fx.table], id: ['1', '2'] }, query: QUERY }),
    'POST /collections/{c}/points/query': on(() => ({ query: vector(), limit: 3, filter, with_payload: true })),
    'POST /collections/{c}/points/query/batch': on(() => ({
      searches: [{ query: { nearest: vector() }, limit: 2 }, { limit: 2 }],
    })),
    'POST /collections/{c}/points/search': on(() => ({ vector: vector(), limit: 3, filter, params: { hnsw_ef: 64 } })),
    'POST /collections/{c}/points/search/batch': on(() => ({ searches: [{ vector: vector(), limit: 2, with_payload: true }] })),
    'POST /collections/{c}/points/delete': on(() => ({ points: [100 + serial] })),
    'POST /collections/{c}/points/scroll': on(() => ({ limit: 2, filter, with_payload: { exclude: ['line'] } })),
    'POST /collections/{c}/points/count': on(() => ({ filter: { should: [filter, { has_id: [1] }] }, exact: true })),
    'POST /collections/{c}/points/payload': on(() => ({ payload: { mood: 'calm', n: [1, 2] }, points: [1] })),
    'PUT /collections/{c}/points/payload': on(() => ({ payload: { genre: 'jazz', year: 1959 }, points: [1] })),
    'POST /collections/{c}/points/payload/delete': on(() => ({ keys: ['mood'], points: [1] })),
    'POST /collections/{c}/points/payload/clear': on(() => ({ points: [100 + serial] })),
    'PUT /collections/{c}/index': on(() => ({ field_name: 'genre', field_schema: 'keyword' })),
    'DELETE /collections/{c}/index/{field}': (fx) => ({ params: { c: [fx.table], field: ['genre'] }, query: QUERY }),
  };
}

defineFuzzSuite<VectorFixtures>({
  service: 'vector-api',
  start: async () => {
    const t = await startTestApp(vectorService, {
      VECTOR_RATE_LIMIT_PER_MINUTE: '1000000',
      VECTOR_SYNC_INTERVAL_MS: '1000',
      ADMIN_AUTH_FAILURES_PER_MINUTE: '0',
    });
    const app = t.app;
    const post = async (url: string, payload: object, headers: Record<string, string>): Promise<Record<string, unknown>> => {
      const res = await app.inject({ method: 'POST', url, headers, payload });
      if (res.statusCode >= 300) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
      return res.json();
    };
    const tok = await post('/admin/v1/tokens', { name: 'fuzz' }, ADMIN);
    const doomed = await post('/admin/v1/tokens', { name: 'doomed' }, ADMIN);
    const auth = { authorization: `Bearer ${String(tok['token'])}` };
    await post('/v1/tables', { name: 'fz_main', dimension: 4, index: 'flat' }, auth);
    await post('/v1/tables', { name: 'fz_doomed', dimension: 4, index: 'hnsw' }, auth);
    // Qdrant's points 1 and 2 of fz_main, and a collection to drop
    const put = await app.inject({
      method: 'PUT',
      url: '/collections/fz_main/points?wait=true',
      headers: { 'api-key': String(tok['token']) },
      payload: {
        points: [1, 2].map((id) => ({ id, vector: [id, 0, 1, 0.5], payload: { genre: 'jazz', year: 1959, line: id } })),
      },
    });
    if (put.statusCode !== 200) throw new Error(`Qdrant upsert: ${put.statusCode} ${put.body}`);
    await post('/v1/tables', { name: 'fz_q_doomed', dimension: 4 }, auth);
    const rowIds = ['r1', 'r2', 'r3'];
    await post(
      '/v1/tables/fz_main/insert',
      {
        rows: rowIds.map((id, i) => ({
          id,
          embedding: [i, 1, 0.5, -1],
          metadata: { genre: 'jazz', year: 1960 + i, tags: ['a', 'b'] },
        })),
      },
      auth,
    );
    return {
      app,
      logs: t.logs,
      close: () => t.close(),
      fixtures: {
        token: String(tok['token']),
        tokenId: String(tok['id']),
        projectId: String(tok['project_id']),
        doomedTokenId: String(doomed['id']),
        table: 'fz_main',
        doomedTable: 'fz_doomed',
        rowIds,
        bodyLimit: t.config.BODY_LIMIT_BYTES,
        insertBodyLimit: t.config.VECTOR_INSERT_BODY_LIMIT_BYTES,
        queryBodyLimit: t.config.VECTOR_QUERY_BODY_LIMIT_BYTES,
      },
    };
  },
  fuzzer: (app, fx, logs) => ({
    service: 'vector-api',
    app,
    logs,
    auth: { admin: ADMIN, vector_token: { authorization: `Bearer ${fx.token}` }, qdrant_api_key: { 'api-key': fx.token } },
    // every request under /collections (routed or not), and GET / itself
    qdrantBody: (op, seen) => seen === '/collections' || seen.startsWith('/collections/') || (op === '/' && seen === '/'),
    junkAuth: [
      { authorization: '' },
      { authorization: 'Bearer' },
      { authorization: 'Bearer ' },
      { authorization: 'Bearer junk' },
      { authorization: `Bearer ${fx.token}x` },
      { authorization: `bearer ${fx.token}` },
      { authorization: `Bearer  ${fx.token}` },
      { authorization: `Basic ${Buffer.from(`${fx.token}:`).toString('base64')}` },
      { authorization: `Bearer ${'a'.repeat(8000)}` },
      { authorization: 'Bearer dev-admin-key' },
      { authorization: `Bearer ${fx.token}` },
      { authorization: `Bearer ${fx.token}`.toLowerCase() },
      // the Qdrant routes' header (docs/qdrant.md)
      ...junkApiKey(''),
      ...junkApiKey('junk'),
      ...junkApiKey(`${fx.token}x`),
      ...junkApiKey(`${fx.token} `),
      ...junkApiKey('dev-admin-key'),
      ...junkApiKey('a'.repeat(8000)),
    ],
    otherIds: [fx.doomedTokenId, fx.doomedTable, ...fx.rowIds, 'tok_0000000000000000000000', 'offer_x', 'pay_x'],
    bodyLimit: fx.bodyLimit,
    routeBodyLimits: {
      'POST /v1/tables/{table}/insert': fx.insertBodyLimit,
      'POST /v1/tables/{table}/upsert': fx.insertBodyLimit,
      'POST /v1/tables/{table}/query': fx.queryBodyLimit,
      'PUT /collections/{c}/points': fx.insertBodyLimit,
      'POST /collections/{c}/points/query': fx.queryBodyLimit,
      'POST /collections/{c}/points/query/batch': fx.queryBodyLimit,
      'POST /collections/{c}/points/search': fx.queryBodyLimit,
      'POST /collections/{c}/points/search/batch': fx.queryBodyLimit,
    },
  }),
  templates: {
    'GET /admin/v1/info': () => ({}),
    ...consoleTemplates<VectorFixtures>('project_id', (fx) => fx.projectId),
    'POST /admin/v1/tokens': () => ({ body: () => ({ name: `fz-${serial++}` }) }),
    'GET /admin/v1/tokens': () => ({}),
    'DELETE /admin/v1/tokens/{id}': (fx) => ({ params: { id: [fx.doomedTokenId] } }),
    'POST /v1/tables': () => ({ body: () => ({ name: `fz_t${serial++}`, dimension: 4, index: 'flat' }) }),
    'GET /v1/tables': () => ({}),
    'GET /v1/tables/{table}': (fx) => ({ params: { table: [fx.table] } }),
    'GET /v1/tables/{table}/stats': (fx) => ({ params: { table: [fx.table] } }),
    'POST /v1/tables/{table}/insert': (fx) => ({
      params: { table: [fx.table] },
      body: () => ({
        rows: [{ id: `fz-${serial++}`, embedding: vector(), metadata: { genre: 'rock', year: 1970, tags: ['x'] } }],
      }),
    }),
    'POST /v1/tables/{table}/query': (fx) => ({
      params: { table: [fx.table] },
      body: () => ({ vector: vector(), n: 3, filter: { genre: 'jazz', year: { $gte: 1950 } }, index: 'flat' }),
    }),
    'DELETE /v1/tables/{table}/vectors': (fx) => ({
      params: { table: [fx.table] },
      body: () => ({ ids: [`fz-${serial}`, 'nope'] }),
    }),
    'DELETE /v1/tables/{table}': (fx) => ({ params: { table: [fx.doomedTable] } }),
    'POST /v1/tables/{table}/upsert': (fx) => ({
      params: { table: [fx.table] },
      body: () => ({
        rows: [
          { id: fx.rowIds[0], embedding: vector(), metadata: { genre: 'jazz', year: 1960, tags: ['a', 'b'] } },
          { id: `fz-${serial++}`, embedding: vector() },
        ],
      }),
    }),
    'POST /v1/tables/{table}/fetch': (fx) => ({
      params: { table: [fx.table] },
      body: () => ({ ids: [...fx.rowIds, 'nope'], include_values: true }),
    }),
    'PATCH /v1/tables/{table}/vectors/{id}': (fx) => ({
      params: { table: [fx.table], id: [fx.rowIds[1]] },
      body: () => ({ metadata: { year: 1961, mood: null }, embedding: vector() }),
    }),
    'GET /v1/tables/{table}/vectors': (fx) => ({ params: { table: [fx.table] }, query: { limit: ['2'], prefix: ['r'] } }),
    'POST /v1/tables/{table}/count': (fx) => ({
      params: { table: [fx.table] },
      body: () => ({ filter: { $or: [{ genre: 'jazz' }, { tags: { $nin: ['x'] } }], year: { $exists: true } } }),
    }),
    'GET /admin/v1/projects': (fx) => ({
      query: { limit: ['1', '100'], starting_after: [fx.projectId], name_prefix: ['fz-p', 'f%_\\'] },
    }),
    'POST /admin/v1/projects': () => ({ body: () => ({ name: `fz-p${serial++}` }) }),
    'GET /admin/v1/projects/{id}': (fx) => ({ params: { id: [fx.projectId] } }),
    'POST /admin/v1/projects/{id}/tokens': (fx) => ({
      params: { id: [fx.projectId] },
      body: () => ({ name: `fz-${serial++}` }),
    }),
    'GET /v1/tokens': () => ({}),
    'POST /v1/tokens': () => ({ body: () => ({ name: `fz-${serial++}` }) }),
    'DELETE /v1/tokens/{id}': (fx) => ({ params: { id: [fx.doomedTokenId] } }),
    // The Qdrant-compatible API (docs/qdrant.md)
    'GET /': () => ({}),
    'GET /collections': () => ({}),
    'PUT /collections/{c}': () => ({
      params: { c: ['fz_q_new', 'Fz.Q-new_2'] },
      body: () => ({ vectors: { size: 4, distance: 'Cosine' }, hnsw_config: { m: 8, ef_construct: 32 } }),
    }),
    'GET /collections/{c}': (fx) => ({ params: { c: [fx.table] } }),
    'GET /collections/{c}/exists': (fx) => ({ params: { c: [fx.table, 'fz_none'] } }),
    'DELETE /collections/{c}': () => ({ params: { c: ['fz_q_doomed'] } }),
    ...qdrantPoints(),
  },
  extra: (get) => {
    test('regressions found by fuzzing', async () => {
      const { app, fixtures } = get();
      const json = { ...ADMIN, 'content-type': 'application/json' };
      // 10k nested arrays overflowed class-transformer's recursion (500).
      let res = await app.inject({ method: 'POST', url: '/admin/v1/tokens', headers: json, payload: `{"name":${DEEP_ARRAY}}` });
      expectError(res, 400, 'parameter_invalid', `name${'[0]'.repeat(31)}`);
      // NUL characters reached PostgreSQL (500), in a body and in a path parameter.
      res = await app.inject({ method: 'POST', url: '/admin/v1/tokens', headers: json, payload: '{"name":"\\u0000"}' });
      expectError(res, 400, 'parameter_invalid', 'name');
      res = await app.inject({ method: 'DELETE', url: '/admin/v1/tokens/%00', headers: ADMIN });
      expectError(res, 400, 'parameter_invalid', 'id');
      res = await app.inject({
        method: 'POST',
        url: `/v1/tables/${fixtures.table}/insert`,
        headers: { authorization: `Bearer ${fixtures.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ rows: [{ id: 'nul', embedding: [1, 2, 3, 4], metadata: { tag: 'a\u0000' } }] }),
      });
      expectError(res, 400, 'parameter_invalid', 'rows[0].metadata.tag');
      // A lone UTF-16 surrogate in metadata would reach the jsonb column (PostgreSQL refuses it).
      res = await app.inject({
        method: 'POST',
        url: `/v1/tables/${fixtures.table}/insert`,
        headers: { authorization: `Bearer ${fixtures.token}`, 'content-type': 'application/json' },
        payload: '{"rows":[{"id":"lone","embedding":[1,2,3,4],"metadata":{"tag":"a\\udfff"}}]}',
      });
      expectError(res, 400, 'parameter_invalid', 'rows[0].metadata.tag');
      // Qdrant routes: a 10k-deep array as a point id overflowed JSON.stringify in the message (500);
      // a null body was read as {} (200); a malformed path under /collections got the platform's body.
      const qdrant = { 'api-key': fixtures.token, 'content-type': 'application/json' };
      const qdrantError = (r: typeof res, status: number): string => {
        expect([r.statusCode, Object.keys(r.json<object>()).sort()]).toEqual([status, ['status', 'time']]);
        return r.json<{ status: { error: string } }>().status.error;
      };
      res = await app.inject({
        method: 'POST',
        url: `/collections/${fixtures.table}/points`,
        headers: qdrant,
        payload: `{"ids":[${DEEP_ARRAY}]}`,
      });
      // Refused by the input checks every body gets (depth), before any message describes it.
      expect(qdrantError(res, 400)).toMatch(/^parameter_invalid: ids\[0\](\[0\])+ is nested more than 32 levels deep\.$/);
      res = await app.inject({
        method: 'POST',
        url: `/collections/${fixtures.table}/points`,
        headers: qdrant,
        payload: '{"ids":[[[[1]]]]}',
      });
      expect(qdrantError(res, 400)).toMatch(/ids\[0\]: a list is not a valid point ID/);
      for (const url of [`/collections/${fixtures.table}/points/scroll`, `/collections/${fixtures.table}/points/count`]) {
        res = await app.inject({ method: 'POST', url, headers: qdrant, payload: 'null' });
        expect(qdrantError(res, 400)).toBe('Bad request: the body must be a JSON object');
      }
      res = await app.inject({ method: 'GET', url: '/collections/%zz', headers: qdrant });
      expect(qdrantError(res, 400)).toMatch(/^parameter_invalid: /);
    }, 60_000);

    test('vector-api accepts insert and query bodies over the platform default limit (1 MiB), up to their own; other routes keep 1 MiB', async () => {
      const { fixtures, fuzzer, operations } = get();
      expect(fixtures.bodyLimit).toBe(1_048_576);
      expect(fixtures.insertBodyLimit).toBeGreaterThan(2 * 1_048_576);
      const auth = { authorization: `Bearer ${fixtures.token}`, 'content-type': 'application/json' };
      // 2 MiB of valid JSON: whitespace between the fields.
      const padding = ' '.repeat(2 * 1_048_576);
      const insert = operations.find((o) => o.key === 'POST /v1/tables/{table}/insert') as Operation;
      await fuzzer.probe(
        insert,
        'large-body',
        {
          method: 'POST',
          url: `/v1/tables/${fixtures.table}/insert`,
          headers: auth,
          payload: `{"rows":[{"id":"large-${serial++}","embedding":[1,0,0,0]}]${padding}}`,
        },
        201,
      );
      const query = operations.find((o) => o.key === 'POST /v1/tables/{table}/query') as Operation;
      await fuzzer.probe(
        query,
        'large-body',
        {
          method: 'POST',
          url: `/v1/tables/${fixtures.table}/query`,
          headers: auth,
          payload: `{"vector":[1,0,0,0],${padding}"n":2}`,
        },
        200,
      );
      const count = operations.find((o) => o.key === 'POST /v1/tables/{table}/count') as Operation;
      await fuzzer.probe(
        count,
        'large-body',
        { method: 'POST', url: `/v1/tables/${fixtures.table}/count`, headers: auth, payload: `{${padding}}` },
        413,
      );
      expect(fuzzer.failures.splice(0)).toEqual([]);
    }, 60_000);
  },
});
