import { PrismaService } from '@app/platform';
import { createHash } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/app';
import { waitFor } from '../support/wait';
import { ADMIN, paymentsProbe, vectorProbe } from './auth-probe';

/** The API-key cache TTL of libs/auth (authenticators.ts), not configurable per app. */
const API_KEY_CACHE_TTL_MS = 1_000;
const sha256 = (v: string): string => createHash('sha256').update(v).digest('hex');

describe('vector-api API tokens', () => {
  let t: TestApp<InstanceType<typeof vectorProbe.configClass>>;
  beforeAll(async () => {
    t = await startTestApp(vectorProbe);
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates a token shown once and stored as SHA-256, accepts it, and revokes it at once', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/admin/v1/tokens', headers: ADMIN, payload: { name: 'search' } });
    expect(created.statusCode).toBe(201);
    const { id, token, name, revoked_at } = created.json<{ id: string; token: string; name: string; revoked_at: null }>();
    expect([id, name, revoked_at]).toEqual([expect.stringMatching(/^tok_/), 'search', null]);
    const row = await t.app.get(PrismaService).vectorToken.findUniqueOrThrow({ where: { id } });
    expect(row.tokenHash).toBe(sha256(token));

    const ok = await t.app.inject({ method: 'GET', url: '/v1/whoami', headers: { authorization: `Bearer ${token}` } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ kind: 'vector_token', tokenId: id, projectId: 'proj_default' });

    const list = await t.app.inject({ method: 'GET', url: '/admin/v1/tokens', headers: ADMIN });
    expect(JSON.stringify(list.json())).not.toContain(token);

    const revoked = await t.app.inject({ method: 'DELETE', url: `/admin/v1/tokens/${id}`, headers: ADMIN });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json<{ revoked_at: string }>().revoked_at).toEqual(expect.any(String));
    const after = await t.app.inject({ method: 'GET', url: '/v1/whoami', headers: { authorization: `Bearer ${token}` } });
    expect(after.statusCode).toBe(401);
    expect(after.headers['www-authenticate']).toBe('Bearer realm="vector-api", error="invalid_token"');
    expect(after.json<{ error: { code: string } }>().error.code).toBe('invalid_api_key');
  });

  it('revokes at once on every instance (cached lookups are evicted through Redis)', async () => {
    const other = await startTestApp(vectorProbe, {}, { db: t.db });
    try {
      const created = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/tokens',
        headers: ADMIN,
        payload: { name: 'shared' },
      });
      const { id, token } = created.json<{ id: string; token: string }>();
      const call = () => other.app.inject({ method: 'GET', url: '/v1/whoami', headers: { authorization: `Bearer ${token}` } });
      const cachedAt = Date.now();
      expect((await call()).statusCode).toBe(200); // now cached on the other instance
      expect((await t.app.inject({ method: 'DELETE', url: `/admin/v1/tokens/${id}`, headers: ADMIN })).statusCode).toBe(200);
      // A 401 seen before the cached entry could have expired on its own proves the eviction came through Redis.
      await waitFor('the other instance to refuse the revoked token', async () => (await call()).statusCode === 401, {
        timeoutMs: cachedAt + API_KEY_CACHE_TTL_MS - Date.now(),
        everyMs: 10,
      });
    } finally {
      await other.close();
    }
  });

  it('answers a missing or unknown token with 401', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/v1/whoami' });
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="vector-api"');
    const wrong = await t.app.inject({ method: 'GET', url: '/v1/whoami', headers: { authorization: 'Bearer vt_nope' } });
    expect(wrong.statusCode).toBe(401);
    const unknownRevoke = await t.app.inject({ method: 'DELETE', url: '/admin/v1/tokens/tok_nope', headers: ADMIN });
    expect(unknownRevoke.statusCode).toBe(404);
  });

  it('validates the admin body', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/admin/v1/tokens', headers: ADMIN, payload: { name: '' } });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ error: { param: string } }>().error.param).toBe('name');
  });
});

describe('payments-api secret keys', () => {
  let t: TestApp<InstanceType<typeof paymentsProbe.configClass>>;
  beforeAll(async () => {
    t = await startTestApp(paymentsProbe);
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates an account with a test and a live key, each bound to its mode', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: ADMIN, payload: { name: 'Shop' } });
    expect(res.statusCode).toBe(201);
    const account = res.json<{ id: string; test_key: string; live_key: string }>();
    expect(account.id).toMatch(/^acct_/);
    expect(account.test_key).toMatch(/^sk_test_[A-Za-z0-9]{43}$/);
    expect(account.live_key).toMatch(/^sk_live_[A-Za-z0-9]{43}$/);
    for (const [key, mode] of [
      [account.test_key, 'test'],
      [account.live_key, 'live'],
    ] as const) {
      const who = await t.app.inject({ method: 'GET', url: '/v2/whoami', headers: { authorization: `Bearer ${key}` } });
      expect(who.statusCode).toBe(200);
      expect(who.json()).toMatchObject({ kind: 'payments_key', accountId: account.id, mode });
    }
    const stored = await t.app.get(PrismaService).paymentApiKey.findMany({ where: { accountId: account.id } });
    expect(stored.map((k) => k.keyHash).sort()).toEqual([sha256(account.test_key), sha256(account.live_key)].sort());
  });

  it('refuses malformed and unknown keys', async () => {
    for (const key of ['sk_test_short', 'pk_test_abcdefghijklmnopqrstuvwxyz', `sk_test_${'a'.repeat(43)}`]) {
      const res = await t.app.inject({ method: 'GET', url: '/v2/whoami', headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode).toBe(401);
      expect(res.json<{ error: { type: string; code: string } }>().error).toMatchObject({
        type: 'authentication_error',
        code: 'invalid_api_key',
      });
    }
  });
});
