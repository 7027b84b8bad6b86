import { byId, listTenants, tenantListCases, uniqueTag } from '../support/tenant-list';
import { client, type Call, type ErrorRes, newProject, newToken, type Res, startVectorApp, type VectorTestApp } from './support';

interface TokenView {
  id: string;
  project_id: string;
  name: string;
  last4: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  token?: string;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('vector-api projects: the tenant of tables and tokens', () => {
  let t: VectorTestApp;
  let admin: Call;
  let a: { id: string; token: string; call: Call };
  let b: { id: string; token: string; call: Call };

  beforeAll(async () => {
    t = await startVectorApp();
    admin = client(t.app, 'dev-admin-key');
    const pa = await newProject(t.app, 'alpha');
    const pb = await newProject(t.app, 'beta');
    a = { ...pa, call: client(t.app, pa.token) };
    b = { ...pb, call: client(t.app, pb.token) };
  });
  afterAll(async () => {
    await t.close();
  });

  describe('admin', () => {
    it('creates a project (201 {id: proj_…, name, created_at}) and lists it', async () => {
      const res = await admin<{ id: string; name: string; created_at: string }>('POST', '/admin/v1/projects', { name: 'gamma' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^proj_[A-Za-z0-9]{24}$/) as unknown,
        name: 'gamma',
        created_at: expect.stringMatching(ISO) as unknown,
      });
      const list = await admin<{ object: string; data: Array<{ id: string; name: string }>; has_more: boolean }>(
        'GET',
        '/admin/v1/projects?limit=100',
      );
      expect(list.status).toBe(200);
      expect([list.body.object, list.body.has_more, list.body.data[0]?.id]).toEqual(['list', false, res.body.id]);
      expect(list.body.data.map((p) => p.name)).toEqual(expect.arrayContaining(['default', 'alpha', 'beta', 'gamma']));
      expect(list.body.data.find((p) => p.name === 'default')?.id).toBe('proj_default');
      expect((await admin('GET', `/admin/v1/projects/${res.body.id}`)).body).toEqual(res.body);
    });

    it('creates a token of a project (shown once, vt_…) and 404s for an unknown project', async () => {
      const res = await admin<TokenView>('POST', `/admin/v1/projects/${a.id}/tokens`, { name: 'ci' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ id: expect.stringMatching(/^tok_/) as unknown, project_id: a.id, name: 'ci' });
      expect(res.body.token).toMatch(/^vt_[A-Za-z0-9]{43}$/);
      expect(res.body.last4).toBe(res.body.token?.slice(-4));
      const missing = await admin<ErrorRes>('POST', '/admin/v1/projects/proj_nope/tokens', { name: 'x' });
      expect(missing.status).toBe(404);
      expect(missing.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
      expect((await admin<ErrorRes>('GET', '/admin/v1/projects/proj_nope')).status).toBe(404);
    });

    it('validates the bodies and needs the admin key', async () => {
      const bad = await admin<ErrorRes>('POST', '/admin/v1/projects', { name: '' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.param).toBe('name');
      const extra = await admin<ErrorRes>('POST', '/admin/v1/projects', { name: 'x', tier: 'gold' });
      expect(extra.status).toBe(400);
      expect(extra.body.error.code).toBe('parameter_unknown');
      expect((await a.call('POST', '/admin/v1/projects', { name: 'x' })).status).toBe(401);
      expect((await client(t.app, 'wrong')('GET', '/admin/v1/projects')).status).toBe(401);
    });

    it("counts a project's tables, working tokens and stored floats in the list", async () => {
      const tag = uniqueTag();
      const busy = await newProject(t.app, `${tag} busy`);
      const idle = await newProject(t.app, `${tag} idle`);
      const call = client(t.app, busy.token);
      expect((await call('POST', '/v1/tables', { name: 'one', dimension: 3 })).status).toBe(201);
      expect((await call('POST', '/v1/tables', { name: 'two', dimension: 2 })).status).toBe(201);
      const rows = [1, 2, 3, 4].map((i) => ({ id: `r${i}`, embedding: [i, 1, 0] }));
      expect((await call('POST', '/v1/tables/one/insert', { rows })).status).toBe(201);
      const doomed = await admin<TokenView>('POST', `/admin/v1/projects/${busy.id}/tokens`, { name: 'doomed' });
      expect((await call('DELETE', `/v1/tokens/${doomed.body.id}`)).status).toBe(200);
      await admin('POST', `/admin/v1/projects/${busy.id}/tokens`, { name: 'second' });

      const list = await listTenants(t.app, '/admin/v1/projects', { name_prefix: tag });
      expect(list.status).toBe(200);
      expect(byId(list.body.data)).toEqual(
        byId([
          {
            id: idle.id,
            name: `${tag} idle`,
            created_at: expect.stringMatching(ISO) as unknown,
            counts: { tables: 0, active_tokens: 1, stored_floats: 0 },
          },
          {
            id: busy.id,
            name: `${tag} busy`,
            created_at: expect.stringMatching(ISO) as unknown,
            counts: { tables: 2, active_tokens: 2, stored_floats: 12 },
          },
        ]),
      );
    });

    it("refuses a project's token with 401 invalid_api_key", async () => {
      const res = await listTenants<ErrorRes>(t.app, '/admin/v1/projects', {}, { authorization: `Bearer ${a.token}` });
      expect([res.status, res.body.error.code]).toEqual([401, 'invalid_api_key']);
    });

    it('POST /admin/v1/tokens still works: its tokens belong to the default project', async () => {
      const token = await newToken(t.app, 'legacy');
      const legacy = client(t.app, token);
      expect((await legacy('POST', '/v1/tables', { name: 'articles', dimension: 2 })).status).toBe(201);
      const mine = await legacy<{ data: TokenView[] }>('GET', '/v1/tokens');
      expect(mine.body.data.every((x) => x.project_id === 'proj_default')).toBe(true);
      expect((await a.call('GET', '/v1/tables/articles')).status).toBe(404);
    });
  });

  describe('isolation between two projects', () => {
    beforeAll(async () => {
      for (const p of [a, b]) {
        expect((await p.call('POST', '/v1/tables', { name: 'articles', dimension: 2, index: 'flat' })).status).toBe(201);
      }
      expect((await a.call('POST', '/v1/tables', { name: 'only-a', dimension: 2 })).status).toBe(201);
      expect(
        (await a.call('POST', '/v1/tables/articles/insert', { rows: [{ id: 'a1', embedding: [1, 0], metadata: { k: 'a' } }] }))
          .status,
      ).toBe(201);
      expect(
        (await b.call('POST', '/v1/tables/articles/insert', { rows: [{ id: 'b1', embedding: [0, 1], metadata: { k: 'b' } }] }))
          .status,
      ).toBe(201);
      expect((await a.call('POST', '/v1/tables/only-a/insert', { rows: [{ id: 'x', embedding: [1, 1] }] })).status).toBe(201);
    });

    it('two projects each have a table of the same name, with their own rows', async () => {
      const qa = await a.call<{ results: Array<{ id: string }> }>('POST', '/v1/tables/articles/query', { vector: [1, 1], n: 10 });
      const qb = await b.call<{ results: Array<{ id: string }> }>('POST', '/v1/tables/articles/query', { vector: [1, 1], n: 10 });
      expect(qa.body.results.map((r) => r.id)).toEqual(['a1']);
      expect(qb.body.results.map((r) => r.id)).toEqual(['b1']);
      const la = await a.call<{ data: Array<{ name: string; rows: number }> }>('GET', '/v1/tables');
      const lb = await b.call<{ data: Array<{ name: string; rows: number }> }>('GET', '/v1/tables');
      expect(la.body.data.map((x) => [x.name, x.rows])).toEqual([
        ['articles', 1],
        ['only-a', 1],
      ]);
      expect(lb.body.data.map((x) => [x.name, x.rows])).toEqual([['articles', 1]]);
    });

    it("answers 404 resource_missing on every route for another project's table", async () => {
      const routes: Array<[Parameters<Call>[0], string, unknown?]> = [
        ['GET', '/v1/tables/only-a'],
        ['GET', '/v1/tables/only-a/stats'],
        ['POST', '/v1/tables/only-a/insert', { rows: [{ id: 'y', embedding: [1, 0] }] }],
        ['POST', '/v1/tables/only-a/upsert', { rows: [{ id: 'x', embedding: [1, 0] }] }],
        ['POST', '/v1/tables/only-a/fetch', { ids: ['x'] }],
        ['PATCH', '/v1/tables/only-a/vectors/x', { metadata: { k: 1 } }],
        ['GET', '/v1/tables/only-a/vectors'],
        ['POST', '/v1/tables/only-a/count', {}],
        ['POST', '/v1/tables/only-a/query', { vector: [1, 0], n: 1 }],
        ['POST', '/v1/tables/only-a/query', { queries: [{ vector: [1, 0], n: 1 }] }],
        ['DELETE', '/v1/tables/only-a/vectors', { ids: ['x'] }],
        ['DELETE', '/v1/tables/only-a/vectors', { filter: {} }],
        ['DELETE', '/v1/tables/only-a'],
      ];
      for (const [method, url, body] of routes) {
        const res: Res<ErrorRes> = await b.call<ErrorRes>(method, url, body);
        expect([method, url, res.status, res.body.error.code, res.body.error.param]).toEqual([
          method,
          url,
          404,
          'resource_missing',
          'table',
        ]);
      }
      // …and nothing of it changed.
      const still = await a.call<{ rows: Array<{ id: string; metadata: Record<string, unknown> }> }>(
        'POST',
        '/v1/tables/only-a/fetch',
        { ids: ['x', 'y'] },
      );
      expect(still.body.rows).toEqual([{ id: 'x', metadata: {} }]);
    });

    it("deleting a table leaves the other project's table of the same name alone", async () => {
      expect((await b.call('POST', '/v1/tables', { name: 'shared-name', dimension: 2 })).status).toBe(201);
      expect((await a.call('POST', '/v1/tables', { name: 'shared-name', dimension: 3 })).status).toBe(201);
      expect((await b.call('DELETE', '/v1/tables/shared-name')).status).toBe(200);
      expect((await b.call('GET', '/v1/tables/shared-name')).status).toBe(404);
      expect((await a.call<{ dimension: number }>('GET', '/v1/tables/shared-name')).body.dimension).toBe(3);
    });
  });

  describe('a project manages its own tokens (/v1/tokens)', () => {
    it('creates one (201, shown once), lists without the secret, and another project sees none of it', async () => {
      const created = await a.call<TokenView>('POST', '/v1/tokens', { name: 'worker' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'worker', project_id: a.id, created_at: expect.stringMatching(ISO) as unknown });
      expect(created.body.token).toMatch(/^vt_/);
      const list = await a.call<{ data: TokenView[] }>('GET', '/v1/tokens');
      expect(list.status).toBe(200);
      const shown = list.body.data.find((x) => x.id === created.body.id);
      expect(shown).toEqual({
        id: created.body.id,
        project_id: a.id,
        name: 'worker',
        last4: created.body.token?.slice(-4),
        created_at: created.body.created_at,
        last_used_at: null,
        revoked_at: null,
      });
      expect(JSON.stringify(list.body)).not.toContain(created.body.token);
      expect(list.body.data.every((x) => x.project_id === a.id)).toBe(true);
      const other = await b.call<{ data: TokenView[] }>('GET', '/v1/tokens');
      expect(other.body.data.some((x) => x.id === created.body.id)).toBe(false);
    });

    it('records when a token was last used', async () => {
      const created = await a.call<TokenView>('POST', '/v1/tokens', { name: 'used' });
      const used = client(t.app, created.body.token as string);
      expect((await used('GET', '/v1/tables')).status).toBe(200);
      let seen: string | null = null;
      for (let i = 0; i < 50 && seen === null; i++) {
        const list = await a.call<{ data: TokenView[] }>('GET', '/v1/tokens');
        seen = list.body.data.find((x) => x.id === created.body.id)?.last_used_at ?? null;
        if (seen === null) await new Promise((r) => setTimeout(r, 20));
      }
      expect(seen).toMatch(ISO);
    });

    it('revokes a token at once; not itself (409 token_in_use); not another project’s (404)', async () => {
      const created = await a.call<TokenView>('POST', '/v1/tokens', { name: 'doomed' });
      const doomed = client(t.app, created.body.token as string);
      expect((await doomed('GET', '/v1/tables')).status).toBe(200);
      const self = await doomed<ErrorRes>('DELETE', `/v1/tokens/${created.body.id}`);
      expect(self.status).toBe(409);
      expect(self.body.error).toMatchObject({ code: 'token_in_use', param: 'id', type: 'invalid_request_error' });
      const foreign = await b.call<ErrorRes>('DELETE', `/v1/tokens/${created.body.id}`);
      expect(foreign.status).toBe(404);
      expect((await doomed('GET', '/v1/tables')).status).toBe(200);
      const revoked = await a.call<TokenView>('DELETE', `/v1/tokens/${created.body.id}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body.revoked_at).toMatch(ISO);
      expect((await doomed('GET', '/v1/tables')).status).toBe(401);
      const list = await a.call<{ data: TokenView[] }>('GET', '/v1/tokens');
      expect(list.body.data.some((x) => x.id === created.body.id)).toBe(false);
      expect((await a.call<ErrorRes>('DELETE', '/v1/tokens/tok_nope')).status).toBe(404);
    });

    it('holds at most 100 working tokens it made itself (409 token_limit_reached); revoking one makes room', async () => {
      const own = await newProject(t.app, 'many-tokens');
      const call = client(t.app, own.token);
      let last: Res<TokenView> | undefined;
      for (let i = 1; i < 100; i++) {
        last = await call<TokenView>('POST', '/v1/tokens', { name: `t${i}` });
        expect(last.status).toBe(201);
      }
      const refused = await call<ErrorRes>('POST', '/v1/tokens', { name: 'one-too-many' });
      expect([refused.status, refused.body.error.code, refused.body.error.type]).toEqual([
        409,
        'token_limit_reached',
        'invalid_request_error',
      ]);
      expect((await call('DELETE', `/v1/tokens/${last?.body.id ?? ''}`)).status).toBe(200);
      expect((await call('POST', '/v1/tokens', { name: 'fits-again' })).status).toBe(201);
      // The operator is not limited.
      expect((await admin('POST', `/admin/v1/projects/${own.id}/tokens`, { name: 'by-operator' })).status).toBe(201);
    });

    it('validates the name and needs a token', async () => {
      const bad = await a.call<ErrorRes>('POST', '/v1/tokens', {});
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'parameter_missing', param: 'name' });
      expect((await client(t.app, 'vt_nope')('GET', '/v1/tokens')).status).toBe(401);
      expect((await admin('GET', '/v1/tokens')).status).toBe(401);
    });
  });

  describe('GET /admin/v1/projects: the shared tenant-list checks', () => {
    tenantListCases({
      app: () => t.app,
      path: '/admin/v1/projects',
      create: async (name) => {
        const res = await admin<{ id: string }>('POST', '/admin/v1/projects', { name });
        expect(res.status).toBe(201);
        return res.body.id;
      },
    });
  });
});
