/**
 * `/api/v1/clients`: a partner manages its own OAuth clients (platform contract: Tenants and
 * self-service) — create, list (never a secret), rotate with and without a grace period
 * (without: the old secret's tokens stop too), delete (its tokens stop, on another instance
 * too), never its own client, at most 20.
 * Real PostgreSQL and Redis; time moves through the app's Clock.
 */
import { Clock, PrismaService } from '@app/platform';
import { jest } from '@jest/globals';
import type { LightMyRequestResponse } from 'fastify';
import { ADMIN, type ErrorJson, type OffersApp, OffersContext, type Partner, startOffers, waitFor } from './fixtures';

interface ClientView {
  client_id: string;
  name: string;
  active: boolean;
  created_at: string;
  previous_secret_expires_at: string | null;
}
interface Created {
  client_id: string;
  client_secret: string;
  name: string;
  created_at: string;
}
interface Rotated {
  client_id: string;
  client_secret: string;
  previous_secret_expires_at: string | null;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const HOUR = 3_600_000;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('offers-api: partners manage their own OAuth clients (/api/v1/clients)', () => {
  let ctx: OffersContext;
  let a: Partner;
  let b: Partner;

  const call = (
    app: OffersApp,
    auth: { authorization: string },
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    payload?: object,
  ): Promise<LightMyRequestResponse> =>
    app.app.inject({ method, url, headers: auth, ...(payload === undefined ? {} : { payload }) });
  const as = (p: { auth: { authorization: string } }, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    call(ctx.t, p.auth, method, url, payload);

  const tokenRequest = (clientId: string, secret: string, app: OffersApp = ctx.t): Promise<LightMyRequestResponse> =>
    app.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: FORM,
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString(),
    });

  async function tokenFor(clientId: string, secret: string): Promise<{ authorization: string }> {
    const res = await tokenRequest(clientId, secret);
    ctx.expectStatus(res, 200);
    return { authorization: `Bearer ${res.json<{ access_token: string }>().access_token}` };
  }

  function expectInvalidClient(res: LightMyRequestResponse): void {
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
  }

  function expectInvalidToken(res: LightMyRequestResponse): void {
    expect(res.statusCode).toBe(401);
    expect(res.json<ErrorJson>().error.code).toBe('invalid_token');
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
  }

  function expectError(res: LightMyRequestResponse, status: number, code: string, param?: string): void {
    expect([res.statusCode, res.json<ErrorJson>().error.code]).toEqual([status, code]);
    if (param !== undefined) expect(res.json<ErrorJson>().error.param).toBe(param);
  }

  async function create(p: Partner, name: string): Promise<Created> {
    const res = await as(p, 'POST', '/api/v1/clients', { name });
    ctx.expectStatus(res, 201);
    return res.json<Created>();
  }

  beforeAll(async () => {
    // Room in the secret gate for the 24 concurrent creations of one partner below (its share is
    // OAUTH_HASH_PER_ADDRESS places; the gate itself is test/security/oauth-grace.e2e-spec.ts's).
    ctx = new OffersContext(await startOffers({ OAUTH_HASH_PER_ADDRESS: '32', OAUTH_HASH_QUEUE_TIMEOUT_MS: '30000' }));
    a = await ctx.newPartner('Alpha Wealth');
    b = await ctx.newPartner('Beta Shares');
  });
  afterAll(async () => {
    await ctx.t.close();
  });

  it('creates a client (201, the secret shown once, stored as an scrypt hash) whose secret gets tokens at once', async () => {
    const res = await as(a, 'POST', '/api/v1/clients', { name: 'reporting' });
    expect(res.statusCode).toBe(201);
    const body = res.json<Created>();
    expect(body).toEqual({
      client_id: expect.stringMatching(/^client_[A-Za-z0-9]{24}$/) as unknown,
      client_secret: expect.stringMatching(/^cs_[A-Za-z0-9]{43}$/) as unknown,
      name: 'reporting',
      created_at: expect.stringMatching(ISO) as unknown,
    });
    const row = await ctx.t.app.get(PrismaService).oAuthClient.findUniqueOrThrow({ where: { id: body.client_id } });
    expect(row).toMatchObject({ partnerId: a.id, name: 'reporting', active: true, previousSecretHash: null });
    expect(row.secretHash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(row.secretHash).not.toContain(body.client_secret);

    const auth = await tokenFor(body.client_id, body.client_secret);
    const list = await call(ctx.t, auth, 'GET', '/api/v1/clients');
    expect(list.statusCode).toBe(200);
    expect(list.json<{ data: ClientView[] }>().data.map((c) => c.client_id)).toContain(body.client_id);
  });

  it('lists the partner\'s clients that work, oldest first, with no secret or hash; the operator\'s are named "default"', async () => {
    const made = await create(a, 'listing');
    const res = await as(a, 'GET', '/api/v1/clients');
    expect(res.statusCode).toBe(200);
    const data = res.json<{ data: ClientView[] }>().data;
    expect(data[0]).toEqual({
      client_id: a.clientId,
      name: 'default',
      active: true,
      created_at: expect.stringMatching(ISO) as unknown,
      previous_secret_expires_at: null,
    });
    expect(data.map((c) => c.client_id)).toContain(made.client_id);
    expect(data.map((c) => c.created_at)).toEqual([...data.map((c) => c.created_at)].sort());
    for (const c of data)
      expect(Object.keys(c).sort()).toEqual(['active', 'client_id', 'created_at', 'name', 'previous_secret_expires_at']);
    expect(res.body).not.toContain('cs_');
    expect(res.body).not.toContain('scrypt');
    expect(res.body).not.toContain(made.client_secret);
    expect(data.map((c) => c.client_id)).not.toContain(b.clientId);
  });

  it('validates the bodies (400 naming the param) and needs a partner access token', async () => {
    for (const [payload, param] of [
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: 42 }, 'name'],
      [{}, 'name'],
      [{ name: 'ok', scope: 'all' }, 'scope'],
    ] as const) {
      const res = await as(a, 'POST', '/api/v1/clients', payload);
      expect([JSON.stringify(payload), res.statusCode, res.json<ErrorJson>().error.param]).toEqual([
        JSON.stringify(payload),
        400,
        param,
      ]);
    }
    for (const payload of [
      { expires_in_hours: -1 },
      { expires_in_hours: 169 },
      { expires_in_hours: 1.5 },
      { expires_in_hours: '2' },
    ]) {
      const res = await as(a, 'POST', `/api/v1/clients/${a.clientId}/rotate-secret`, payload);
      expect([JSON.stringify(payload), res.statusCode, res.json<ErrorJson>().error.param]).toEqual([
        JSON.stringify(payload),
        400,
        'expires_in_hours',
      ]);
    }
    expect((await as(a, 'POST', '/api/v1/clients', { name: 'x'.repeat(100) })).statusCode).toBe(201);
    expect((await ctx.inject({ method: 'GET', url: '/api/v1/clients' })).statusCode).toBe(401);
    expect((await ctx.inject({ method: 'GET', url: '/api/v1/clients', headers: ADMIN })).statusCode).toBe(401);
  });

  it('rotates with a grace period: both secrets work until it ends, then the old one is invalid_client', async () => {
    const c = await create(a, 'grace');
    const before = Date.now();
    const res = await as(a, 'POST', `/api/v1/clients/${c.client_id}/rotate-secret`, { expires_in_hours: 2 });
    expect(res.statusCode).toBe(200);
    const rotated = res.json<Rotated>();
    expect(Object.keys(rotated).sort()).toEqual(['client_id', 'client_secret', 'previous_secret_expires_at']);
    expect(rotated.client_id).toBe(c.client_id);
    expect(rotated.client_secret).toMatch(/^cs_[A-Za-z0-9]{43}$/);
    expect(rotated.client_secret).not.toBe(c.client_secret);
    const until = Date.parse(rotated.previous_secret_expires_at ?? '');
    expect(until).toBeGreaterThanOrEqual(before + 2 * HOUR);
    expect(until).toBeLessThanOrEqual(Date.now() + 2 * HOUR);
    const listed = (await as(a, 'GET', '/api/v1/clients'))
      .json<{ data: ClientView[] }>()
      .data.find((x) => x.client_id === c.client_id);
    expect(listed?.previous_secret_expires_at).toBe(rotated.previous_secret_expires_at);

    expect((await tokenRequest(c.client_id, rotated.client_secret)).statusCode).toBe(200);
    expect((await tokenRequest(c.client_id, c.client_secret)).statusCode).toBe(200);

    const clock = ctx.t.app.get(Clock);
    const almost = jest.spyOn(clock, 'now').mockReturnValue(new Date(until - 1_000));
    try {
      expect((await tokenRequest(c.client_id, c.client_secret)).statusCode).toBe(200);
    } finally {
      almost.mockRestore();
    }
    const after = jest.spyOn(clock, 'now').mockReturnValue(new Date(until + 1_000));
    try {
      expectInvalidClient(await tokenRequest(c.client_id, c.client_secret));
      expect((await tokenRequest(c.client_id, rotated.client_secret)).statusCode).toBe(200);
      // a.auth expired two hours ago on this clock: ask with a token issued now
      const now = await tokenFor(c.client_id, rotated.client_secret);
      const later = (await call(ctx.t, now, 'GET', '/api/v1/clients'))
        .json<{ data: ClientView[] }>()
        .data.find((x) => x.client_id === c.client_id);
      expect(later?.previous_secret_expires_at).toBeNull();
    } finally {
      after.mockRestore();
    }
  });

  it('rotates at once by default: the old secret is invalid_client immediately, and its tokens invalid_token', async () => {
    const c = await create(a, 'at-once');
    const auth = await tokenFor(c.client_id, c.client_secret);
    const res = await as(a, 'POST', `/api/v1/clients/${c.client_id}/rotate-secret`);
    expect(res.statusCode).toBe(200);
    const rotated = res.json<Rotated>();
    expect(rotated.previous_secret_expires_at).toBeNull();
    expectInvalidClient(await tokenRequest(c.client_id, c.client_secret));
    expect((await tokenRequest(c.client_id, rotated.client_secret)).statusCode).toBe(200);
    // An explicit 0 is the same.
    const zero = (await as(a, 'POST', `/api/v1/clients/${c.client_id}/rotate-secret`, { expires_in_hours: 0 })).json<Rotated>();
    expectInvalidClient(await tokenRequest(c.client_id, rotated.client_secret));
    expect((await tokenRequest(c.client_id, zero.client_secret)).statusCode).toBe(200);
    // A rotation without grace is the remedy for a leak: the old secret's tokens stop too (issue 31).
    expectInvalidToken(await call(ctx.t, auth, 'GET', '/api/v1/clients'));
  });

  it('keeps one previous secret: rotating again during a grace ends the earlier one at once', async () => {
    const c = await create(a, 'twice');
    const first = (await as(a, 'POST', `/api/v1/clients/${c.client_id}/rotate-secret`, { expires_in_hours: 24 })).json<Rotated>();
    const second = (await as(a, 'POST', `/api/v1/clients/${c.client_id}/rotate-secret`, { expires_in_hours: 1 })).json<Rotated>();
    expectInvalidClient(await tokenRequest(c.client_id, c.client_secret)); // the original: its 24 h grace ended
    expect((await tokenRequest(c.client_id, first.client_secret)).statusCode).toBe(200); // previous, for an hour
    expect((await tokenRequest(c.client_id, second.client_secret)).statusCode).toBe(200);
    expect(Date.parse(second.previous_secret_expires_at ?? '')).toBeLessThan(Date.parse(first.previous_secret_expires_at ?? ''));
    // and a rotation without grace drops the previous one too
    const third = (await as(a, 'POST', `/api/v1/clients/${c.client_id}/rotate-secret`)).json<Rotated>();
    expectInvalidClient(await tokenRequest(c.client_id, first.client_secret));
    expectInvalidClient(await tokenRequest(c.client_id, second.client_secret));
    expect((await tokenRequest(c.client_id, third.client_secret)).statusCode).toBe(200);
  });

  it('deletes a client (200, the client inactive): its secret and tokens are refused, here and on another instance at once', async () => {
    const c = await create(a, 'doomed');
    const auth = await tokenFor(c.client_id, c.client_secret);
    // A second instance whose cache would hold the client for a minute: only the broadcast can stop it sooner.
    const second = await startOffers({ OAUTH_CLIENT_CACHE_TTL_MS: '60000' }, { db: ctx.t.db });
    try {
      expect((await call(second, auth, 'GET', '/api/v1/clients')).statusCode).toBe(200); // cached as active there
      const res = await as(a, 'DELETE', `/api/v1/clients/${c.client_id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json<ClientView>()).toEqual({
        client_id: c.client_id,
        name: 'doomed',
        active: false,
        created_at: c.created_at,
        previous_secret_expires_at: null,
      });
      expectInvalidToken(await call(ctx.t, auth, 'GET', '/api/v1/clients'));
      const refused = await waitFor(
        "the second instance to refuse the deleted client's token",
        async () => {
          const r = await call(second, auth, 'GET', '/api/v1/clients');
          return r.statusCode === 200 ? undefined : r;
        },
        { timeoutMs: 5_000, everyMs: 50 },
      );
      expectInvalidToken(refused);
      expectInvalidClient(await tokenRequest(c.client_id, c.client_secret, second));
    } finally {
      await second.close();
    }
    expectInvalidClient(await tokenRequest(c.client_id, c.client_secret));
    const list = (await as(a, 'GET', '/api/v1/clients')).json<{ data: ClientView[] }>().data;
    expect(list.map((x) => x.client_id)).not.toContain(c.client_id);
    // Gone for the partner: a second delete and a rotation are 404s.
    expectError(await as(a, 'DELETE', `/api/v1/clients/${c.client_id}`), 404, 'resource_missing', 'id');
    expectError(await as(a, 'POST', `/api/v1/clients/${c.client_id}/rotate-secret`), 404, 'resource_missing', 'id');
  });

  it('refuses to delete the client whose token makes the call (409 client_in_use), and lets another client delete it', async () => {
    const c = await create(a, 'self');
    const own = await tokenFor(c.client_id, c.client_secret);
    const res = await call(ctx.t, own, 'DELETE', `/api/v1/clients/${c.client_id}`);
    expectError(res, 409, 'client_in_use', 'id');
    expect(res.json<ErrorJson>().error.type).toBe('invalid_request_error');
    expect((await call(ctx.t, own, 'GET', '/api/v1/clients')).statusCode).toBe(200); // still works
    expect((await as(a, 'DELETE', `/api/v1/clients/${c.client_id}`)).statusCode).toBe(200);
  });

  it("answers 404 for another partner's client and for unknown ids, on every route, changing nothing", async () => {
    for (const id of [b.clientId, 'client_ghost0000000000000000000']) {
      expectError(
        await as(a, 'POST', `/api/v1/clients/${id}/rotate-secret`, { expires_in_hours: 1 }),
        404,
        'resource_missing',
        'id',
      );
      expectError(await as(a, 'DELETE', `/api/v1/clients/${id}`), 404, 'resource_missing', 'id');
    }
    expect((await as(b, 'GET', '/api/v1/clients')).json<{ data: ClientView[] }>().data).toEqual([
      expect.objectContaining({ client_id: b.clientId, active: true, previous_secret_expires_at: null }),
    ]);
    expect((await tokenRequest(b.clientId, b.clientSecret)).statusCode).toBe(200);
  });

  it('holds a partner to 20 clients that work (409 client_limit_reached), also under concurrent creation', async () => {
    const p = await ctx.newPartner('Gamma Capital'); // one client, from the operator
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => as(p, 'POST', '/api/v1/clients', { name: `c${i}` })));
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(19);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    const refused = results.find((r) => r.statusCode === 409);
    expect(refused?.json<ErrorJson>().error).toMatchObject({ code: 'client_limit_reached', type: 'invalid_request_error' });
    expect((await as(p, 'GET', '/api/v1/clients')).json<{ data: ClientView[] }>().data).toHaveLength(20);
    // deleting one frees a place
    const victim = results.find((r) => r.statusCode === 201)?.json<Created>().client_id ?? '';
    expect((await as(p, 'DELETE', `/api/v1/clients/${victim}`)).statusCode).toBe(200);
    expect((await as(p, 'POST', '/api/v1/clients', { name: 'again' })).statusCode).toBe(201);
    // the operator is not limited
    const admin = await ctx.inject({ method: 'POST', url: `/admin/v1/partners/${p.id}/clients`, headers: ADMIN });
    expect(admin.statusCode).toBe(201);
  });
});
