/**
 * vector-api tenancy: the project is the tenant. Project A can never read, change or learn
 * the existence of project B's tables, rows or tokens, not even through a table of the same
 * name. Every vector-token operation of /openapi.json must have a case below, and every case
 * runs twice: with A's API token, and with A's console session (cookie + CSRF token), which
 * is a principal of the project like its token. The Qdrant-compatible routes (`/collections…`,
 * docs/qdrant.md) answer "not found" in Qdrant's body: a 404 `{status: {error}}`.
 */
import type { LightMyRequestResponse } from 'fastify';
import { consoleSession } from '../support/console';
import { newProject, startVectorApp, type VectorTestApp } from '../vector-api/support';
import { expectNotFound, expectQdrantNotFound, normalisedError, openApiOperations, opKey } from './support';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

describe('vector-api: project isolation', () => {
  let t: VectorTestApp;
  let a: { id: string; token: string };
  let b: { id: string; token: string };
  let bTokenId: string;
  /** A's credential for asA: its API token, or its console session's cookie and CSRF token. */
  let principalOfA: Record<string, string> = {};
  let consoleOfA: Record<string, string> = {};
  /** Strings only B's data holds: none may appear in an answer to A. */
  const MARKERS = ['beta-only', 'beta-secret-doc', 'b-row-1', 'b-row-2'];

  const call = (headers: Record<string, string>, method: Method, url: string, payload?: object) =>
    t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
  const asA = (method: Method, url: string, payload?: object): Promise<LightMyRequestResponse> =>
    call(principalOfA, method, url, payload);
  const asB = (method: Method, url: string, payload?: object): Promise<LightMyRequestResponse> =>
    call({ authorization: `Bearer ${b.token}` }, method, url, payload);

  /** None of B's markers in the answer, but those A itself named (`sent`, echoed by the error). */
  const noMarkers = (label: string, res: LightMyRequestResponse, sent: readonly string[] = []): void => {
    for (const marker of MARKERS.filter((m) => !sent.includes(m)))
      expect([label, marker, res.body.includes(marker)]).toEqual([label, marker, false]);
  };

  /**
   * A's request naming B's table (or token) is a 404 `resource_missing` without B's data,
   * and reads exactly like the answer for a name that never existed (no existence oracle).
   */
  async function refused(label: string, method: Method, url: string, name: string, payload?: object): Promise<void> {
    const res = await asA(method, url, payload);
    expectNotFound(label, res);
    noMarkers(label, res, [name, ...JSON.stringify(payload ?? {}).split('"')]);
    const ghostName = name.startsWith('tok_') ? 'tok_ghost0000000000000000000' : 'ghost-table';
    const ghost = await asA(method, url.split(name).join(ghostName), payload);
    expect([label, normalisedError(res, [name])]).toEqual([label, normalisedError(ghost, [ghostName])]);
  }

  /** As `refused`, on a Qdrant-compatible route: a 404 in Qdrant's body, read like a name that never existed. */
  async function refusedQ(label: string, method: Method, url: string, name: string, payload?: object): Promise<void> {
    const res = await asA(method, url, payload);
    expectQdrantNotFound(label, res);
    noMarkers(label, res, [name, ...JSON.stringify(payload ?? {}).split('"')]);
    const ghost = await asA(method, url.split(name).join('ghost-table'), payload);
    expect([label, normalisedError(res, [name])]).toEqual([label, normalisedError(ghost, ['ghost-table'])]);
  }

  /** A Qdrant answer's `result`, after checking the 200. */
  const resultOf = <T>(label: string, res: LightMyRequestResponse): T => {
    expect([label, res.statusCode, res.statusCode === 200 ? '' : res.body]).toEqual([label, 200, '']);
    return res.json<{ result: T }>().result;
  };

  /** B's tables and rows as B sees them (to show A's attempts changed nothing). */
  async function stateOfB(): Promise<unknown> {
    const tables = await asB('GET', '/v1/tables');
    const rows = await asB('POST', '/v1/tables/beta-only/fetch', { ids: ['b-row-1', 'b-row-2'] });
    const same = await asB('POST', '/v1/tables/same-name/fetch', { ids: ['b-row-1', 'a-row-1'] });
    const tokens = await asB('GET', '/v1/tokens');
    return {
      tables: tables.json<{ data: Array<{ name: string; rows: number }> }>().data.map((x) => [x.name, x.rows]),
      rows: rows.json<unknown>(),
      same: same.json<unknown>(),
      tokens: tokens.json<{ data: Array<{ id: string; revoked_at: string | null }> }>().data.map((x) => [x.id, x.revoked_at]),
    };
  }

  beforeAll(async () => {
    t = await startVectorApp();
    a = await newProject(t.app, 'alpha');
    b = await newProject(t.app, 'beta');
    principalOfA = { authorization: `Bearer ${a.token}` };
    consoleOfA = (await consoleSession(t.app, 'vector', a.id)).headers;
    for (const [who, body] of [
      [asB, { name: 'beta-only', dimension: 2, index: 'flat' }],
      [asB, { name: 'same-name', dimension: 2, index: 'flat' }],
      [asA, { name: 'same-name', dimension: 2, index: 'flat' }],
    ] as const) {
      expect((await who('POST', '/v1/tables', body)).statusCode).toBe(201);
    }
    const rowsOfB = [
      { id: 'b-row-1', embedding: [1, 0], metadata: { doc: 'beta-secret-doc' } },
      { id: 'b-row-2', embedding: [0, 1], metadata: { doc: 'beta-secret-doc' } },
    ];
    expect((await asB('POST', '/v1/tables/beta-only/insert', { rows: rowsOfB })).statusCode).toBe(201);
    expect((await asB('POST', '/v1/tables/same-name/insert', { rows: rowsOfB })).statusCode).toBe(201);
    const rowsOfA = [{ id: 'a-row-1', embedding: [1, 1], metadata: { doc: 'alpha-doc' } }];
    expect((await asA('POST', '/v1/tables/same-name/insert', { rows: rowsOfA })).statusCode).toBe(201);
    const tokens = await asB('GET', '/v1/tokens');
    bTokenId = tokens.json<{ data: Array<{ id: string }> }>().data[0]?.id ?? '';
    expect(bTokenId).toMatch(/^tok_/);
  });
  afterAll(async () => {
    await t.close();
  });

  /** One case per vector-token operation of /openapi.json. */
  const CASES: Record<string, () => Promise<void>> = {
    'GET /v1/tables': async () => {
      const res = await asA('GET', '/v1/tables');
      expect(res.statusCode).toBe(200);
      const tables = res.json<{ data: Array<{ name: string; rows: number }> }>().data.map((x) => [x.name, x.rows]);
      expect(tables).toEqual([['same-name', 1]]);
      noMarkers('list tables', res);
    },
    'POST /v1/tables': async () => {
      // B's table name is free in A's project: its own table, not B's
      const created = await asA('POST', '/v1/tables', { name: 'beta-only', dimension: 3 });
      expect(created.statusCode).toBe(201);
      const read = await asA('POST', '/v1/tables/beta-only/fetch', { ids: ['b-row-1'] });
      expect(read.json()).toEqual({ rows: [], not_found: ['b-row-1'] });
      expect((await asA('DELETE', '/v1/tables/beta-only')).statusCode).toBe(200);
    },
    'GET /v1/tables/{table}': async () => {
      await refused('get B table', 'GET', '/v1/tables/beta-only', 'beta-only');
      const same = await asA('GET', '/v1/tables/same-name');
      expect(same.json()).toMatchObject({ name: 'same-name', rows: 1 });
    },
    'DELETE /v1/tables/{table}': async () => {
      await refused('delete B table', 'DELETE', '/v1/tables/beta-only', 'beta-only');
    },
    'POST /v1/tables/{table}/insert': async () => {
      await refused('insert into B table', 'POST', '/v1/tables/beta-only/insert', 'beta-only', {
        rows: [{ id: 'from-a', embedding: [1, 0] }],
      });
    },
    'POST /v1/tables/{table}/upsert': async () => {
      await refused('upsert into B table', 'POST', '/v1/tables/beta-only/upsert', 'beta-only', {
        rows: [{ id: 'b-row-1', embedding: [0.5, 0.5], metadata: { doc: 'overwritten' } }],
      });
      // in A's table of the same name, B's row id is just a new row of A's (then removed)
      const own = await asA('POST', '/v1/tables/same-name/upsert', { rows: [{ id: 'b-row-1', embedding: [0.5, 0.5] }] });
      expect(own.json()).toEqual({ upserted: 1, inserted: 1, updated: 0 });
      expect((await asA('DELETE', '/v1/tables/same-name/vectors', { ids: ['b-row-1'] })).json()).toMatchObject({ deleted: 1 });
    },
    'POST /v1/tables/{table}/fetch': async () => {
      await refused('fetch from B table', 'POST', '/v1/tables/beta-only/fetch', 'beta-only', { ids: ['b-row-1'] });
      const same = await asA('POST', '/v1/tables/same-name/fetch', { ids: ['b-row-1', 'a-row-1'], include_values: true });
      expect(same.json()).toEqual({
        rows: [{ id: 'a-row-1', metadata: { doc: 'alpha-doc' }, embedding: [1, 1] }],
        not_found: ['b-row-1'],
      });
    },
    'PATCH /v1/tables/{table}/vectors/{id}': async () => {
      await refused('patch a row of B table', 'PATCH', '/v1/tables/beta-only/vectors/b-row-1', 'beta-only', {
        metadata: { doc: 'patched' },
      });
      const same = await asA('PATCH', '/v1/tables/same-name/vectors/b-row-1', { metadata: { doc: 'patched' } });
      expectNotFound("patch B's row id in A's table of the same name", same);
      noMarkers('patch same-name', same, ['b-row-1']);
    },
    'DELETE /v1/tables/{table}/vectors': async () => {
      await refused('delete rows of B table by id', 'DELETE', '/v1/tables/beta-only/vectors', 'beta-only', { ids: ['b-row-1'] });
      await refused('delete rows of B table by filter', 'DELETE', '/v1/tables/beta-only/vectors', 'beta-only', { filter: {} });
      const same = await asA('DELETE', '/v1/tables/same-name/vectors', { ids: ['b-row-1'] });
      expect(same.json()).toEqual({ deleted: 0, not_found: ['b-row-1'] });
    },
    'GET /v1/tables/{table}/vectors': async () => {
      await refused('list ids of B table', 'GET', '/v1/tables/beta-only/vectors', 'beta-only');
      const same = await asA('GET', '/v1/tables/same-name/vectors?limit=1000');
      expect(same.json<{ ids: string[] }>().ids).toEqual(['a-row-1']);
      const cursor = await asA('GET', '/v1/tables/same-name/vectors?prefix=b-');
      expect(cursor.json<{ ids: string[] }>().ids).toEqual([]);
    },
    'GET /v1/tables/{table}/stats': async () => {
      await refused("B table's query latency", 'GET', '/v1/tables/beta-only/stats', 'beta-only');
      const same = await asA('GET', '/v1/tables/same-name/stats');
      expect(same.json()).toMatchObject({ name: 'same-name' });
      noMarkers('stats same-name', same);
    },
    'POST /v1/tables/{table}/count': async () => {
      await refused('count B table', 'POST', '/v1/tables/beta-only/count', 'beta-only', {});
      const same = await asA('POST', '/v1/tables/same-name/count', { filter: { doc: 'beta-secret-doc' } });
      expect(same.json()).toEqual({ count: 0 });
    },
    'POST /v1/tables/{table}/query': async () => {
      await refused('query B table', 'POST', '/v1/tables/beta-only/query', 'beta-only', { vector: [1, 0], n: 5 });
      await refused('batch query B table', 'POST', '/v1/tables/beta-only/query', 'beta-only', {
        queries: [{ vector: [1, 0], n: 5 }],
      });
      const same = await asA('POST', '/v1/tables/same-name/query', { vector: [1, 0], n: 10 });
      expect(same.json<{ results: Array<{ id: string }> }>().results.map((r) => r.id)).toEqual(['a-row-1']);
      noMarkers('query same-name', same);
    },
    'GET /v1/tokens': async () => {
      const res = await asA('GET', '/v1/tokens');
      expect(res.statusCode).toBe(200);
      const tokens = res.json<{ data: Array<{ id: string; project_id: string }> }>().data;
      expect(tokens.length).toBeGreaterThan(0);
      expect(tokens.every((x) => x.project_id === a.id)).toBe(true);
      expect(res.body).not.toContain(bTokenId);
      expect(res.body).not.toContain(b.id);
    },
    'POST /v1/tokens': async () => {
      const created = await asA('POST', '/v1/tokens', { name: 'alpha-extra' });
      expect(created.statusCode).toBe(201);
      const id = created.json<{ id: string }>().id;
      expect((await asB('GET', '/v1/tokens')).body).not.toContain(id);
      expectNotFound('B revokes the token A just made', await asB('DELETE', `/v1/tokens/${id}`));
      expect((await asA('DELETE', `/v1/tokens/${id}`)).statusCode).toBe(200);
    },
    'DELETE /v1/tokens/{id}': async () => {
      await refused('revoke B token', 'DELETE', `/v1/tokens/${bTokenId}`, bTokenId);
      expect((await asB('GET', '/v1/tables')).statusCode).toBe(200);
    },
    // The Qdrant-compatible API (docs/qdrant.md): B's collection is a 404 in Qdrant's body.
    'GET /collections': async () => {
      const res = await asA('GET', '/collections');
      expect(resultOf<{ collections: Array<{ name: string }> }>('list collections', res).collections).toEqual([
        { name: 'same-name' },
      ]);
      noMarkers('list collections', res);
    },
    'PUT /collections/{c}': async () => {
      // B's collection name is free in A's project: its own collection, not B's
      const body = { vectors: { size: 2, distance: 'Cosine' } };
      expect(resultOf('create beta-only in A', await asA('PUT', '/collections/beta-only', body))).toBe(true);
      const read = await asA('POST', '/collections/beta-only/points/scroll', {});
      expect(resultOf<{ points: unknown[] }>('scroll A beta-only', read).points).toEqual([]);
      expect(resultOf('drop A beta-only', await asA('DELETE', '/collections/beta-only'))).toBe(true);
    },
    'GET /collections/{c}': async () => {
      await refusedQ('get B collection', 'GET', '/collections/beta-only', 'beta-only');
      const same = await asA('GET', '/collections/same-name');
      expect(resultOf('get same-name', same)).toMatchObject({ points_count: 1 });
    },
    'GET /collections/{c}/exists': async () => {
      const res = await asA('GET', '/collections/beta-only/exists');
      expect(resultOf('B collection exists?', res)).toEqual({ exists: false });
      const ghost = await asA('GET', '/collections/ghost-table/exists');
      expect(resultOf('ghost exists?', ghost)).toEqual({ exists: false });
      expect(resultOf('same-name exists?', await asA('GET', '/collections/same-name/exists'))).toEqual({ exists: true });
    },
    'DELETE /collections/{c}': async () => {
      // Qdrant answers false for a collection that is not there: B's reads the same
      expect(resultOf('drop B collection', await asA('DELETE', '/collections/beta-only'))).toBe(false);
      expect(resultOf('drop ghost', await asA('DELETE', '/collections/ghost-table'))).toBe(false);
    },
    'PUT /collections/{c}/points': async () => {
      await refusedQ('upsert into B collection', 'PUT', '/collections/beta-only/points', 'beta-only', {
        points: [{ id: 1, vector: [1, 0], payload: { doc: 'from-a' } }],
      });
    },
    'POST /collections/{c}/points': async () => {
      await refusedQ('retrieve from B collection', 'POST', '/collections/beta-only/points', 'beta-only', { ids: [1] });
    },
    'GET /collections/{c}/points/{id}': async () => {
      await refusedQ('a point of B collection', 'GET', '/collections/beta-only/points/1', 'beta-only');
    },
    'POST /collections/{c}/points/query': async () => {
      await refusedQ('query B collection', 'POST', '/collections/beta-only/points/query', 'beta-only', {
        query: [1, 0],
        with_payload: true,
      });
      const same = await asA('POST', '/collections/same-name/points/query', { query: [1, 0], limit: 10, with_payload: true });
      expect(resultOf<{ points: Array<{ id: unknown }> }>('query same-name', same).points.map((p) => p.id)).toEqual(['a-row-1']);
      noMarkers('query same-name', same);
    },
    'POST /collections/{c}/points/query/batch': async () => {
      await refusedQ('batch query B collection', 'POST', '/collections/beta-only/points/query/batch', 'beta-only', {
        searches: [{ query: [1, 0] }],
      });
    },
    'POST /collections/{c}/points/search': async () => {
      await refusedQ('search B collection', 'POST', '/collections/beta-only/points/search', 'beta-only', {
        vector: [1, 0],
        limit: 5,
      });
    },
    'POST /collections/{c}/points/search/batch': async () => {
      await refusedQ('batch search B collection', 'POST', '/collections/beta-only/points/search/batch', 'beta-only', {
        searches: [{ vector: [1, 0], limit: 5 }],
      });
    },
    'POST /collections/{c}/points/delete': async () => {
      await refusedQ('delete points of B collection by id', 'POST', '/collections/beta-only/points/delete', 'beta-only', {
        points: [1],
      });
      await refusedQ('delete points of B collection by filter', 'POST', '/collections/beta-only/points/delete', 'beta-only', {
        filter: { must: [{ key: 'doc', match: { value: 'beta-secret-doc' } }] },
      });
    },
    'POST /collections/{c}/points/scroll': async () => {
      await refusedQ('scroll B collection', 'POST', '/collections/beta-only/points/scroll', 'beta-only', {});
      const same = await asA('POST', '/collections/same-name/points/scroll', { limit: 100, with_payload: true });
      expect(resultOf<{ points: Array<{ id: unknown }> }>('scroll same-name', same).points.map((p) => p.id)).toEqual(['a-row-1']);
      noMarkers('scroll same-name', same);
    },
    'POST /collections/{c}/points/count': async () => {
      await refusedQ('count B collection', 'POST', '/collections/beta-only/points/count', 'beta-only', {});
      const same = await asA('POST', '/collections/same-name/points/count', {
        filter: { must: [{ key: 'doc', match: { value: 'beta-secret-doc' } }] },
      });
      expect(resultOf('count same-name', same)).toEqual({ count: 0 });
    },
    'POST /collections/{c}/points/payload': async () => {
      await refusedQ('set payload in B collection', 'POST', '/collections/beta-only/points/payload', 'beta-only', {
        payload: { doc: 'patched' },
        filter: {},
      });
    },
    'PUT /collections/{c}/points/payload': async () => {
      await refusedQ('overwrite payload in B collection', 'PUT', '/collections/beta-only/points/payload', 'beta-only', {
        payload: { doc: 'patched' },
        points: [1],
      });
    },
    'POST /collections/{c}/points/payload/delete': async () => {
      await refusedQ('delete payload keys in B collection', 'POST', '/collections/beta-only/points/payload/delete', 'beta-only', {
        keys: ['doc'],
        filter: {},
      });
    },
    'POST /collections/{c}/points/payload/clear': async () => {
      await refusedQ('clear payload in B collection', 'POST', '/collections/beta-only/points/payload/clear', 'beta-only', {
        points: [1],
      });
    },
    'PUT /collections/{c}/index': async () => {
      await refusedQ('index B collection', 'PUT', '/collections/beta-only/index', 'beta-only', {
        field_name: 'doc',
        field_schema: 'keyword',
      });
    },
    'DELETE /collections/{c}/index/{field}': async () => {
      await refusedQ('drop an index of B collection', 'DELETE', '/collections/beta-only/index/doc', 'beta-only');
    },
  };

  it('has an isolation case for every vector-token operation of /openapi.json (and no stale case)', async () => {
    const ops = (await openApiOperations(t.app)).filter((op) => op.security.includes('vector_token')).map(opKey);
    expect(ops.filter((op) => /\{/.test(op)).length).toBeGreaterThan(8);
    expect([...ops].sort()).toEqual(Object.keys(CASES).sort());
  });

  it.each(Object.keys(CASES))("%s: A's token cannot reach B", async (key) => {
    await CASES[key]?.();
  });

  it.each(Object.keys(CASES))("%s: A's console session cannot reach B", async (key) => {
    const token = principalOfA;
    principalOfA = consoleOfA;
    try {
      await CASES[key]?.();
    } finally {
      principalOfA = token;
    }
  });

  it("A's attempts left B's tables, rows and tokens as they were", async () => {
    const before = await stateOfB();
    const token = principalOfA;
    for (const principal of [token, consoleOfA]) {
      principalOfA = principal;
      for (const key of Object.keys(CASES).filter((k) => /^(POST|PUT|DELETE|PATCH) /.test(k))) await CASES[key]?.();
    }
    principalOfA = token;
    expect(await stateOfB()).toEqual(before);
    expect(JSON.stringify(before)).toContain('beta-secret-doc');
  });
});
