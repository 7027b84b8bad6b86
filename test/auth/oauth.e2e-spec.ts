import { Clock, PrismaService } from '@app/platform';
import { jest } from '@jest/globals';
import * as oidc from 'openid-client';
import { startTestApp, type TestApp } from '../support/app';
import { waitFor } from '../support/wait';
import { ADMIN, offersProbe } from './auth-probe';
import { newOAuthClient, type OAuthClientCredentials } from '../support/oauth-clients';

type Offers = TestApp<InstanceType<typeof offersProbe.configClass>>;

const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const basic = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

async function tokenFor(t: Offers, c: OAuthClientCredentials): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: FORM,
    payload: form({ grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret }),
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ access_token: string }>().access_token;
}

describe('POST /oauth/token (RFC 6749 §4.4) and the partner bearer guard (RFC 6750)', () => {
  let t: Offers;
  let client: OAuthClientCredentials;
  beforeAll(async () => {
    t = await startTestApp(offersProbe, { OAUTH_CLIENT_CACHE_TTL_MS: '300' });
    client = await newOAuthClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('admin', () => {
    it('creates partners with a validated tier and clients with a one-time secret', async () => {
      expect(client.client_id).toMatch(/^client_[A-Za-z0-9]{24}$/);
      expect(client.client_secret).toMatch(/^cs_[A-Za-z0-9]{43}$/);
      const bad = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/partners',
        headers: ADMIN,
        payload: { name: 'X', tier: 'gold' },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json<{ error: { param: string } }>().error.param).toBe('tier');
      const missing = await t.app.inject({ method: 'POST', url: '/admin/v1/partners/ptn_nope/clients', headers: ADMIN });
      expect(missing.statusCode).toBe(404);
      expect(missing.json<{ error: { code: string } }>().error.code).toBe('resource_missing');
      const noKey = await t.app.inject({ method: 'POST', url: '/admin/v1/partners', payload: { name: 'X', tier: 'growth' } });
      expect(noKey.statusCode).toBe(401);
    });

    it('stores the client secret only as a slow salted hash', async () => {
      const prisma = t.app.get(PrismaService);
      const row = await prisma.oAuthClient.findUniqueOrThrow({ where: { id: client.client_id } });
      expect(row.secretHash).toMatch(/^scrypt\$16384\$8\$1\$/);
      expect(row.secretHash).not.toContain(client.client_secret);
    });
  });

  describe('token endpoint', () => {
    it('issues a Bearer token for form credentials, no-store, no refresh token', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: FORM,
        payload: form({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['pragma']).toBe('no-cache');
      const body = res.json<Record<string, unknown>>();
      expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
      expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
      expect(body['access_token']).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    });

    it('accepts HTTP Basic client authentication', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { ...FORM, authorization: basic(client.client_id, client.client_secret) },
        payload: form({ grant_type: 'client_credentials' }),
      });
      expect(res.statusCode).toBe(200);
      expect(res.json<{ token_type: string }>().token_type).toBe('Bearer');
    });

    const oauthErrorCases: Array<[string, () => { headers: Record<string, string>; payload: string }, number, string]> = [
      [
        'a JSON body',
        () => ({
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ grant_type: 'client_credentials' }),
        }),
        400,
        'invalid_request',
      ],
      [
        'a missing grant_type',
        () => ({ headers: FORM, payload: form({ client_id: 'x', client_secret: 'y' }) }),
        400,
        'invalid_request',
      ],
      [
        'grant_type=password',
        () => ({ headers: FORM, payload: form({ grant_type: 'password', client_id: 'x', client_secret: 'y' }) }),
        400,
        'unsupported_grant_type',
      ],
      [
        'a repeated parameter',
        () => ({ headers: FORM, payload: 'grant_type=client_credentials&grant_type=client_credentials' }),
        400,
        'invalid_request',
      ],
      [
        'a missing client_secret',
        () => ({ headers: FORM, payload: form({ grant_type: 'client_credentials', client_id: 'x' }) }),
        400,
        'invalid_request',
      ],
      [
        'no client authentication',
        () => ({ headers: FORM, payload: form({ grant_type: 'client_credentials' }) }),
        401,
        'invalid_client',
      ],
      [
        'a wrong secret in the form',
        () => ({
          headers: FORM,
          payload: form({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: 'cs_wrong' }),
        }),
        401,
        'invalid_client',
      ],
      [
        'an unknown client',
        () => ({
          headers: FORM,
          payload: form({ grant_type: 'client_credentials', client_id: 'client_nope', client_secret: 'x' }),
        }),
        401,
        'invalid_client',
      ],
      [
        'both Basic and form credentials',
        () => ({
          headers: { ...FORM, authorization: basic(client.client_id, client.client_secret) },
          payload: form({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
        }),
        400,
        'invalid_request',
      ],
    ];

    it.each(oauthErrorCases)('answers %s with the RFC 6749 §5.2 error', async (_label, request, status, error) => {
      const { headers, payload } = request();
      const res = await t.app.inject({ method: 'POST', url: '/oauth/token', headers, payload });
      expect(res.statusCode).toBe(status);
      expect(res.headers['cache-control']).toBe('no-store');
      const body = res.json<Record<string, unknown>>();
      expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
      expect(body['error']).toBe(error);
      expect(typeof body['error_description']).toBe('string');
      if (status === 401) expect(res.headers['www-authenticate']).toMatch(/^Basic realm="offers-api"/);
    });

    it('answers a wrong Basic secret with 401 invalid_client and WWW-Authenticate: Basic', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { ...FORM, authorization: basic(client.client_id, 'wrong') },
        payload: form({ grant_type: 'client_credentials' }),
      });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="offers-api", charset="UTF-8"');
      expect(res.json()).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    });

    it('works with a well-known OAuth 2.0 client library (openid-client)', async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const base = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
      const config = new oidc.Configuration(
        { issuer: 'offers-api', token_endpoint: `${base}/oauth/token` },
        client.client_id,
        client.client_secret,
      );
      oidc.allowInsecureRequests(config); // plain http on loopback in tests only
      const tokens = await oidc.clientCredentialsGrant(config);
      expect(tokens.token_type).toBe('bearer');
      expect(tokens.expires_in).toBe(3600);
      const who = await fetch(`${base}/api/v1/whoami`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(who.status).toBe(200);
      expect(await who.json()).toMatchObject({ kind: 'partner', clientId: client.client_id, partnerId: client.partner_id });
    });
  });

  describe('bearer guard', () => {
    it('accepts an issued token and exposes the partner principal', async () => {
      const token = await tokenFor(t, client);
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        kind: 'partner',
        partnerId: client.partner_id,
        clientId: client.client_id,
        tier: 'growth',
        secretVersion: 1,
      });
    });

    it('answers no token with 401 and a bare Bearer challenge', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/whoami' });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="offers-api"');
      expect(res.json<{ error: { type: string; code: string } }>().error).toMatchObject({
        type: 'authentication_error',
        code: 'authentication_required',
      });
    });

    const expectInvalidToken = (res: { statusCode: number; headers: Record<string, unknown>; json: <T>() => T }): void => {
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="offers-api", error="invalid_token", error_description="/);
      expect(res.json<{ error: { type: string; code: string } }>().error).toMatchObject({
        type: 'authentication_error',
        code: 'invalid_token',
      });
    };

    it('refuses a tampered token', async () => {
      const token = await tokenFor(t, client);
      const [h, p, s] = token.split('.');
      const claims = JSON.parse(Buffer.from(p ?? '', 'base64url').toString()) as Record<string, unknown>;
      const forged = Buffer.from(JSON.stringify({ ...claims, tier: 'enterprise' })).toString('base64url');
      expectInvalidToken(
        await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${h}.${forged}.${s}` } }),
      );
      expectInvalidToken(
        await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: 'Bearer not.a.jwt' } }),
      );
    });

    it('refuses an expired token (fake clock)', async () => {
      const token = await tokenFor(t, client);
      const clock = t.app.get(Clock);
      const spy = jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + 3601_000));
      try {
        const res = await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${token}` } });
        expectInvalidToken(res);
        expect(res.headers['www-authenticate']).toContain('error_description="The access token expired."');
      } finally {
        spy.mockRestore();
      }
      const fresh = await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${token}` } });
      expect(fresh.statusCode).toBe(200);
    });

    it("refuses a disabled client's tokens and new token requests", async () => {
      const other = await newOAuthClient(t);
      const token = await tokenFor(t, other);
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${token}` } })).statusCode,
      ).toBe(200);
      const disabled = await t.app.inject({
        method: 'DELETE',
        url: `/admin/v1/partners/${other.partner_id}/clients/${other.client_id}`,
        headers: ADMIN,
      });
      expect(disabled.statusCode).toBe(200);
      expect(disabled.json()).toMatchObject({ client_id: other.client_id, active: false });
      expectInvalidToken(
        await t.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${token}` } }),
      );
      const again = await t.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: FORM,
        payload: form({ grant_type: 'client_credentials', client_id: other.client_id, client_secret: other.client_secret }),
      });
      expect(again.statusCode).toBe(401);
    });

    it('stops a client disabled through another instance within the cache TTL', async () => {
      const other = await newOAuthClient(t);
      const token = await tokenFor(t, other);
      const second = await startTestApp(offersProbe, { OAUTH_CLIENT_CACHE_TTL_MS: '300' }, { db: t.db });
      try {
        const call = () =>
          second.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${token}` } });
        expect((await call()).statusCode).toBe(200); // cached as active on the second instance
        await t.app.inject({
          method: 'DELETE',
          url: `/admin/v1/partners/${other.partner_id}/clients/${other.client_id}`,
          headers: ADMIN,
        });
        // The RevocationBus broadcast tells the second instance at once; were it lost, its 300 ms cache entry would expire
        // (test/offers-api/clients.e2e-spec.ts proves the broadcast alone, with a one-minute TTL).
        const refused = await waitFor(
          'the second instance to refuse the token',
          async () => {
            const res = await call();
            return res.statusCode === 200 ? undefined : res;
          },
          { timeoutMs: 5_000, everyMs: 50 },
        );
        expectInvalidToken(refused);
      } finally {
        await second.close();
      }
    });

    it('verifies with every configured key across a rotation, and only with those (keys imported once per kid)', async () => {
      const OLD = `old:${'o'.repeat(40)}`;
      const NEW = `new:${'n'.repeat(40)}`;
      const whoami = (app: Offers, token: string) =>
        app.app.inject({ method: 'GET', url: '/api/v1/whoami', headers: { authorization: `Bearer ${token}` } });
      const before = await startTestApp(offersProbe, { OAUTH_JWT_KEYS: OLD }, { db: t.db });
      const during = await startTestApp(offersProbe, { OAUTH_JWT_KEYS: `${NEW},${OLD}` }, { db: t.db });
      const after = await startTestApp(offersProbe, { OAUTH_JWT_KEYS: NEW }, { db: t.db });
      const forged = await startTestApp(offersProbe, { OAUTH_JWT_KEYS: `old:${'x'.repeat(40)}` }, { db: t.db });
      try {
        const oldToken = await tokenFor(before, client);
        const newToken = await tokenFor(during, client);
        for (let i = 0; i < 2; i++) {
          expect((await whoami(during, oldToken)).statusCode).toBe(200);
          expect((await whoami(during, newToken)).statusCode).toBe(200);
          expect((await whoami(after, newToken)).statusCode).toBe(200);
          expectInvalidToken(await whoami(after, oldToken)); // its key was retired
          expectInvalidToken(await whoami(before, newToken)); // kid unknown there
          expectInvalidToken(await whoami(forged, oldToken)); // same kid, another secret
          expectInvalidToken(await whoami(t, oldToken)); // the default development key
        }
      } finally {
        await Promise.all([before.close(), during.close(), after.close(), forged.close()]);
      }
    });
  });
});

describe('POST /oauth/token: failed client authentications limited per client address', () => {
  let t: Offers;
  let client: OAuthClientCredentials;
  beforeAll(async () => {
    // the test's requests come from 127.0.0.1: trusted as the proxy that sets X-Forwarded-For
    t = await startTestApp(offersProbe, { OAUTH_TOKEN_FAILURES_PER_MINUTE: '3', TRUST_PROXY: '127.0.0.1' });
    client = await newOAuthClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const request = (address: string, secret = client.client_secret) =>
    t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { ...FORM, 'x-forwarded-for': address },
      payload: form({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: secret }),
    });

  it('answers 429 slow_down with Retry-After once an address has spent its failed attempts; successes do not count', async () => {
    // successful requests never count
    for (let i = 0; i < 5; i++) expect((await request('203.0.113.7')).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await request('203.0.113.7', 'cs_wrong')).statusCode).toBe(401);

    const limited = await request('203.0.113.7'); // even with the right secret, until the window ends
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({
      error: 'slow_down',
      error_description: expect.stringMatching(/Retry after \d+ seconds/) as unknown,
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers['cache-control']).toBe('no-store');
    expect(limited.headers['ratelimit-policy']).toBe('"token_failures";q=3;w=60');
    expect(limited.headers.ratelimit).toMatch(/^"token_failures";r=0;t=\d+$/);

    // another address has its own budget; an IPv6 client is counted by its /64
    const other = await request('198.51.100.20');
    expect(other.statusCode).toBe(200);
    const whoami = await t.app.inject({
      method: 'GET',
      url: '/api/v1/whoami',
      headers: { authorization: `Bearer ${other.json<{ access_token: string }>().access_token}` },
    });
    expect(whoami.statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await request(`2001:db8:5:6::${i + 1}`, 'cs_wrong')).statusCode).toBe(401);
    expect((await request('2001:db8:5:6:ffff::9')).statusCode).toBe(429);
    expect((await request('2001:db8:5:7::1')).statusCode).toBe(200);
  });
});
