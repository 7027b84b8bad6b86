/**
 * Issue 14, findings 1 and 2: the offers-api's access tokens and its token endpoint.
 *
 * 1. No signing key in the source: without OAUTH_JWT_KEYS (development, test) each
 *    installation signs with its own random key from DATA_DIR, so a token made with the key
 *    that used to be written in the repository is refused; and no token may claim a lifetime
 *    above 3600 s or an `iat` in the future, whatever key signed it.
 * 2. The token endpoint reserves a failed attempt before verifying a secret and bounds the
 *    verifications running at once, so a flood of failed authentications from one address
 *    runs at most its budget of scrypt and a valid request from elsewhere is still served.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import type { LightMyRequestResponse } from 'fastify';
import { SignJWT } from 'jose';
import { offersService } from '../../apps/offers-api/src/service';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { newOAuthClient, type OAuthClientCredentials } from '../support/oauth-clients';

jest.setTimeout(120_000);

type Offers = TestApp<InstanceType<typeof offersService.configClass>>;

/**
 * The development key that used to be a constant in apps/offers-api/src/oauth/jwt-keys.ts
 * (DEV_JWT_KEYS, `kid:secret`): the attacker's guess, here only. The source holds no key now.
 */
const OLD_SOURCE_KEY = { kid: 'dev', secret: 'development-only-signing-key-do-not-use-in-production' };

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();
const nowSeconds = (): number => Math.floor(Date.now() / 1000);
const YEAR = 365 * 24 * 3600;
/**
 * An invalid access token of the right shape (a JWT no key of ours signed): what a forged
 * token must be indistinguishable from. (A string that is no JWT at all is refused with
 * what the route takes added: errors-that-teach.e2e-spec.ts.)
 */
const NOT_OURS = [
  Buffer.from('{"alg":"HS256","typ":"at+jwt","kid":"dev"}').toString('base64url'),
  Buffer.from('{}').toString('base64url'),
  'A'.repeat(43),
].join('.');

/** An access token made by hand, as an attacker (or a holder of the key) would. */
function forge(
  key: { kid: string; secret: string },
  client: OAuthClientCredentials,
  times: { iat?: unknown; exp?: unknown },
): Promise<string> {
  const claims: Record<string, unknown> = {
    client_id: client.client_id,
    partner_id: client.partner_id,
    tier: 'enterprise',
    iss: 'offers-api',
    aud: 'offers-api',
    sub: client.client_id,
    jti: `jti_${randomBytes(8).toString('hex')}`,
  };
  if (times.iat !== undefined) claims['iat'] = times.iat;
  if (times.exp !== undefined) claims['exp'] = times.exp;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: key.kid })
    .sign(new TextEncoder().encode(key.secret));
}

const listOffers = (t: Offers, token: string): Promise<LightMyRequestResponse> =>
  t.app.inject({ method: 'GET', url: '/api/v1/offers', headers: { authorization: `Bearer ${token}` } });

/** Status, WWW-Authenticate and body without the request id: what tells one refusal from another. */
function refusal(res: LightMyRequestResponse): unknown {
  const body = res.json<{ error?: Record<string, unknown> }>();
  const { request_id: _id, ...error } = body.error ?? {};
  return { status: res.statusCode, challenge: res.headers['www-authenticate'], error };
}

describe('access tokens: no key in the source, bounded lifetime', () => {
  let dataDir: string;
  let db: TestDatabase;
  let dev: Offers;
  let client: OAuthClientCredentials;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'offers-data-'));
    db = await createTestDatabase();
    // No OAUTH_JWT_KEYS, as in development: the installation's key under DATA_DIR signs.
    dev = await startTestApp(offersService, { DATA_DIR: dataDir }, { db });
    client = await newOAuthClient(dev);
  });
  afterAll(async () => {
    await dev?.close();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a self-made token signed with the key that used to be in the source, like any invalid token', async () => {
    const forged = await forge(OLD_SOURCE_KEY, client, { iat: nowSeconds(), exp: nowSeconds() + 10 * YEAR });
    const sameLifetime = await forge(OLD_SOURCE_KEY, client, { iat: nowSeconds(), exp: nowSeconds() + 3600 });
    const garbage = await listOffers(dev, NOT_OURS);
    expect(refusal(garbage)).toMatchObject({ status: 401, error: { code: 'invalid_token' } });
    for (const token of [forged, sameLifetime]) {
      const res = await listOffers(dev, token);
      expect(refusal(res)).toEqual(refusal(garbage));
    }
  });

  it('keeps the generated key in DATA_DIR, mode 0600, shared by every instance of the installation', async () => {
    const file = join(dataDir, 'offers-api-oauth-jwt.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const content = readFileSync(file, 'utf8');
    expect(content).not.toContain(OLD_SOURCE_KEY.secret);
    const [kid, secret] = content.trim().split(':');
    expect(kid).toMatch(/^dev-[0-9a-f]{12}$/);
    expect(Buffer.from(secret ?? '', 'base64url')).toHaveLength(32);

    const token = await issue(dev, client);
    const second = await startTestApp(offersService, { DATA_DIR: dataDir }, { db });
    const elsewhere = mkdtempSync(join(tmpdir(), 'offers-data-'));
    const otherInstallation = await startTestApp(offersService, { DATA_DIR: elsewhere }, { db });
    try {
      expect((await listOffers(second, token)).statusCode).toBe(200);
      expect((await listOffers(dev, await issue(second, client))).statusCode).toBe(200);
      expect((await listOffers(otherInstallation, token)).statusCode).toBe(401); // its own key
    } finally {
      await Promise.all([second.close(), otherInstallation.close()]);
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('creates one key when several processes of an installation start at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offers-data-race-'));
    try {
      const entry = join(dir, 'print-key.ts');
      writeFileSync(
        entry,
        [
          `const { createHash } = require('node:crypto');`,
          `const { developmentJwtKeys } = require(${JSON.stringify(join(process.cwd(), 'apps/offers-api/src/oauth/jwt-keys'))});`,
          `const [key] = developmentJwtKeys(${JSON.stringify(join(dir, 'data'))});`,
          `process.stdout.write(key.kid + ' ' + createHash('sha256').update(key.secret).digest('hex'));`,
        ].join('\n'),
      );
      const run = (): Promise<string> =>
        new Promise((resolve, reject) => {
          const child = spawn(process.execPath, [join(process.cwd(), 'bench/ts-run.mjs'), entry], { stdio: 'pipe' });
          let out = '';
          let err = '';
          child.stdout.on('data', (c: Buffer) => (out += c.toString()));
          child.stderr.on('data', (c: Buffer) => (err += c.toString()));
          child.once('error', reject);
          child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
        });
      const seen = await Promise.all(Array.from({ length: 6 }, run));
      expect(new Set(seen).size).toBe(1);
      const file = readFileSync(join(dir, 'data', 'offers-api-oauth-jwt.key'), 'utf8').trim();
      const [kid, secret] = file.split(':');
      expect(seen[0]).toBe(
        `${kid} ${createHash('sha256')
          .update(secret ?? '')
          .digest('hex')}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('with the real signing key', () => {
    const realKey = { kid: 'real', secret: randomBytes(32).toString('base64url') };
    let t: Offers;
    let garbage: unknown;
    beforeAll(async () => {
      t = await startTestApp(offersService, { OAUTH_JWT_KEYS: `${realKey.kid}:${realKey.secret}` }, { db });
      garbage = refusal(await listOffers(t, NOT_OURS));
    });
    afterAll(async () => {
      await t?.close();
    });

    it('accepts a normal token: issued, or made with the key for the contract lifetime', async () => {
      expect((await listOffers(t, await issue(t, client))).statusCode).toBe(200);
      const now = nowSeconds();
      expect((await listOffers(t, await forge(realKey, client, { iat: now, exp: now + 3600 }))).statusCode).toBe(200);
      // iat a little ahead (another instance's clock) is fine
      expect((await listOffers(t, await forge(realKey, client, { iat: now + 30, exp: now + 3630 }))).statusCode).toBe(200);
    });

    const cases: Array<[string, () => { iat?: unknown; exp?: unknown }]> = [
      ['exp − iat = 10 years', () => ({ iat: nowSeconds(), exp: nowSeconds() + 10 * YEAR })],
      ['exp − iat = 3601 s', () => ({ iat: nowSeconds() - 1, exp: nowSeconds() + 3600 })],
      ['iat 10 minutes in the future', () => ({ iat: nowSeconds() + 600, exp: nowSeconds() + 600 + 3600 })],
      ['no iat', () => ({ exp: nowSeconds() + 3600 })],
      ['iat not a number', () => ({ iat: String(nowSeconds()), exp: nowSeconds() + 3600 })],
    ];
    it.each(cases)('refuses a token with %s like any invalid token', async (_label, times) => {
      const res = await listOffers(t, await forge(realKey, client, times()));
      expect(refusal(res)).toEqual(garbage);
    });
  });
});

async function issue(t: Offers, client: OAuthClientCredentials, address?: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { ...FORM, ...(address ? { 'x-forwarded-for': address } : {}) },
    payload: form({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ access_token: string }>().access_token;
}

/** `oauth_secret_verifications_total` by outcome, from GET /metrics. */
async function verifications(t: Offers): Promise<Record<string, number>> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^oauth_secret_verifications_total\{[^}]*outcome="(\w+)"[^}]*\} (\d+)/gm)) {
    out[m[1] ?? ''] = Number(m[2]);
  }
  return out;
}

const total = (counts: Record<string, number>): number => Object.values(counts).reduce((a, b) => a + b, 0);

describe('POST /oauth/token under a flood of failed client authentications', () => {
  const BUDGET = 10;
  let t: Offers;
  let client: OAuthClientCredentials;
  beforeAll(async () => {
    // The test's requests come from 127.0.0.1, trusted as the proxy that sets X-Forwarded-For.
    t = await startTestApp(offersService, { TRUST_PROXY: '127.0.0.1', OAUTH_TOKEN_FAILURES_PER_MINUTE: String(BUDGET) });
    client = await newOAuthClient(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  const attempt = (address: string, secret: string, clientId = client.client_id): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { ...FORM, 'x-forwarded-for': address },
      payload: form({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
    });

  const expectTooMany = (res: LightMyRequestResponse): void => {
    expect(res.statusCode).toBe(429);
    const body = res.json<{ error: string; error_description: string }>();
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
    expect(['slow_down', 'temporarily_unavailable']).toContain(body.error);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.headers['cache-control']).toBe('no-store');
  };

  it('verifies at most the budget of 300 concurrent failures from one address, refuses the rest, and serves another address meanwhile', async () => {
    const before = await verifications(t);
    const started = performance.now();
    let floodDone = 0;
    const flood = Array.from({ length: 300 }, (_, i) =>
      // half a wrong secret for a real client, half unknown clients (verified against the decoy)
      attempt('198.51.100.66', `cs_wrong_${i}`, i % 2 ? client.client_id : `client_unknown_${i}`).then((res) => {
        floodDone++;
        return res;
      }),
    );
    const validStarted = performance.now();
    const valid = await attempt('203.0.113.10', client.client_secret);
    const validMs = performance.now() - validStarted;
    const answeredBeforeValid = floodDone;
    const results = await Promise.all(flood);
    const floodMs = performance.now() - started;

    expect(valid.statusCode).toBe(200);
    expect((await listOffers(t, valid.json<{ access_token: string }>().access_token)).statusCode).toBe(200);

    const statuses = results.map((r) => r.statusCode);
    const failed = statuses.filter((s) => s === 401).length;
    const refused = results.filter((r) => r.statusCode === 429);
    expect(failed + refused.length).toBe(300);
    expect(failed).toBeLessThanOrEqual(BUDGET);
    for (const res of refused) expectTooMany(res);

    const after = await verifications(t);
    const ran = total(after) - total(before);
    expect(after['valid'] ?? 0).toBe((before['valid'] ?? 0) + 1); // the other address's request
    expect(ran).toBeLessThanOrEqual(BUDGET + 1);
    process.stdout.write(
      `[token flood] 300 failures from one address: ${failed} × 401, ${refused.length} × 429 ` +
        `(${refused.filter((r) => r.json<{ error: string }>().error === 'slow_down').length} slow_down), ` +
        `${ran} scrypt verifications, flood answered in ${floodMs.toFixed(0)} ms; ` +
        `valid request from another address: 200 in ${validMs.toFixed(0)} ms ` +
        `(${answeredBeforeValid} flood answers before it)\n`,
    );

    // The budget is spent: the address is refused until the window ends, even with the right secret.
    expectTooMany(await attempt('198.51.100.66', client.client_secret));
  });

  it('never limits a partner that authenticates correctly', async () => {
    for (let i = 0; i < 3 * BUDGET; i++) expect((await attempt('203.0.113.11', client.client_secret)).statusCode).toBe(200);
    const parallel = await Promise.all(Array.from({ length: 4 }, () => attempt('203.0.113.12', client.client_secret)));
    expect(parallel.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
  });

  it('bounds the verifications waiting in the process: a flood from many addresses gets 429 temporarily_unavailable, not a queue', async () => {
    const small = await startTestApp(offersService, {
      TRUST_PROXY: '127.0.0.1',
      OAUTH_HASH_CONCURRENCY: '2',
      OAUTH_HASH_QUEUE: '4',
      OAUTH_HASH_PER_ADDRESS: '1',
    });
    try {
      const other = await newOAuthClient(small);
      const before = await verifications(small);
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          small.app.inject({
            method: 'POST',
            url: '/oauth/token',
            headers: { ...FORM, 'x-forwarded-for': `192.0.2.${i + 1}` },
            payload: form({ grant_type: 'client_credentials', client_id: other.client_id, client_secret: `cs_wrong_${i}` }),
          }),
        ),
      );
      const refused = results.filter((r) => r.statusCode === 429);
      expect(results.filter((r) => r.statusCode === 401).length + refused.length).toBe(60);
      expect(refused.length).toBeGreaterThan(0);
      for (const res of refused) {
        expectTooMany(res);
        expect(res.json()).toEqual({
          error: 'temporarily_unavailable',
          error_description: 'The token endpoint is busy. Retry after 1 seconds.',
        });
      }
      expect(total(await verifications(small)) - total(before)).toBe(60 - refused.length);
    } finally {
      await small.close();
    }
  });
});
