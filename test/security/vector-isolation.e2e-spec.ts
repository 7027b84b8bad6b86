/**
 * vector-api tenancy: the project is the tenant. Project A can never read, change or learn
 * the existence of project B's tables, rows or tokens, not even through a table of the same
 * name. Every vector-token operation of /openapi.json must have a case below, and every case
 * runs twice: with A's API token, and with A's console session (cookie + CSRF token), which
 * is a principal of the project like its token.
 */
import type { LightMyRequestResponse } from 'fastify';
import { consoleSession } from '../support/console';
import { newProject, startVectorApp, type VectorTestApp } from '../vector-api/support';
import { expectNotFound, normalisedError, openApiOperations, opKey } from './support';

type Method = 'GET' | 'POST' | 'DELETE' | 'PATCH';

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
      for (const key of Object.keys(CASES).filter((k) => /^(POST|DELETE|PATCH) /.test(k))) await CASES[key]?.();
    }
    principalOfA = token;
    expect(await stateOfB()).toEqual(before);
    expect(JSON.stringify(before)).toContain('beta-secret-doc');
  });
});
