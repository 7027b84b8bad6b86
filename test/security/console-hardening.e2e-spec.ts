/**
 * Console sign-in hardening (issue 31), in each service:
 *
 * - production refuses to boot without the service's `*_PUBLIC_URL`, naming it; sign-in
 *   links are built from it, and outside production without it from the service's own
 *   loopback address: never from the request's Host (or X-Forwarded-Host) header. The
 *   finding: `POST /admin/v1/console-links` with `Host: attacker.example` gave a link on
 *   attacker.example.
 * - failed `POST /console/sign-in` attempts are limited per client address (429
 *   rate_limit_exceeded with Retry-After), with the address taken as every per-address limit
 *   takes it (`request.ip`, TRUST_PROXY). The finding: 1,500 random well-formed tokens from one
 *   address all got 400, never 429.
 * - a session ends CONSOLE_SESSION_MAX_AGE_HOURS after its sign-in whatever its activity.
 *   The finding: sessions expired only after 12 h idle.
 *
 * Limits are lowered through configuration; the sign-in time is moved back in PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { offersService } from '../../apps/offers-api/src/service';
import { OffersConfig } from '../../apps/offers-api/src/config';
import { paymentsService } from '../../apps/payments-api/src/service';
import { PaymentsConfig } from '../../apps/payments-api/src/config';
import { vectorService } from '../../apps/vector-api/src/service';
import { VectorConfig } from '../../apps/vector-api/src/config';
import { ConfigError, loadConfig, type PlatformConfig, type ServiceDefinition } from '@app/platform';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../support/app';
import { consoleLink, consoleSession, type ConsoleService, newConsoleTenant } from '../support/console';
import { type ErrorBody, sql } from './support';

const ADMIN = { authorization: 'Bearer dev-admin-key' };

const SERVICES: Array<[ConsoleService, ServiceDefinition<PlatformConfig>, string, string]> = [
  ['offers', offersService as unknown as ServiceDefinition<PlatformConfig>, 'OFFERS_PUBLIC_URL', '/api/v1/offers'],
  ['vector', vectorService as unknown as ServiceDefinition<PlatformConfig>, 'VECTOR_PUBLIC_URL', '/v1/tables'],
  ['payments', paymentsService as unknown as ServiceDefinition<PlatformConfig>, 'PAYMENTS_PUBLIC_URL', '/v2/customers'],
];

const errorOf = (res: LightMyRequestResponse): [number, string | undefined] => {
  try {
    return [res.statusCode, res.json<ErrorBody>().error?.code];
  } catch {
    return [res.statusCode, undefined];
  }
};

/** A well-formed link token that no link has (the shape of the finding's 1,500 guesses). */
const randomToken = (): string =>
  `cl_${randomBytes(48)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 43)}`;

describe('production requires *_PUBLIC_URL (boot refuses, naming the variable)', () => {
  const production = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgresql://x@127.0.0.1:1/x',
    ADMIN_API_KEY: 'a'.repeat(40),
    OAUTH_JWT_KEYS: `k1:${'s'.repeat(40)}`,
    // payments-api's other production requirement (issue 31: sealed key idempotency)
    PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY: 'e'.repeat(40),
  };
  const configs: Array<[string, new () => PlatformConfig]> = [
    ['OFFERS_PUBLIC_URL', OffersConfig],
    ['VECTOR_PUBLIC_URL', VectorConfig],
    ['PAYMENTS_PUBLIC_URL', PaymentsConfig],
  ];

  it.each(configs)('without %s: ConfigError naming it; with it: boots', (variable, configClass) => {
    let error: unknown;
    try {
      loadConfig(configClass, production);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map(([name]) => name)).toEqual([variable]);
    expect((error as ConfigError).message).toContain(`${variable} is required in production`);
    const config = loadConfig(configClass, { ...production, [variable]: 'https://api.example.com/' });
    expect(config.publicUrl).toBe('https://api.example.com/');
    // outside production it stays optional
    expect(() => loadConfig(configClass, { ...production, NODE_ENV: 'development' })).not.toThrow();
  });

  it('the defaults: 20 failed sign-ins a minute per address, sessions of 168 hours', () => {
    const config = loadConfig(PaymentsConfig, { DATABASE_URL: 'postgresql://x@127.0.0.1:1/x' });
    expect(config.CONSOLE_SIGN_IN_FAILURES_PER_MINUTE).toBe(20);
    expect(config.CONSOLE_SESSION_MAX_AGE_HOURS).toBe(168);
  });
});

describe.each(SERVICES)('console hardening: %s', (service, definition, publicUrlVariable, tenantRoute) => {
  const FAILURES = 5;
  const PUBLIC_URL = `https://${service}.console.example.com/base`;
  let t: TestApp<PlatformConfig>;
  let tenant: string;

  beforeAll(async () => {
    t = await startTestApp(definition, {
      [publicUrlVariable]: `${PUBLIC_URL}/`,
      CONSOLE_SIGN_IN_FAILURES_PER_MINUTE: String(FAILURES),
      CONSOLE_SESSION_MAX_AGE_HOURS: '1',
    });
    tenant = await newConsoleTenant(t.app, service);
  });
  afterAll(() => t?.close());

  it('builds sign-in links from the public URL, whatever the Host and X-Forwarded-Host say', async () => {
    const field = { offers: 'partner_id', vector: 'project_id', payments: 'account_id' }[service];
    for (const headers of [
      { host: 'attacker.example' },
      { host: 'attacker.example:8443', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
      {},
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/console-links',
        headers: { ...ADMIN, ...headers },
        payload: { [field]: tenant },
      });
      expect(res.statusCode).toBe(201);
      const url = res.json<{ url: string }>().url;
      expect(url).toMatch(new RegExp(`^${PUBLIC_URL.replace(/[.]/g, '\\.')}/console/sign-in#token=cl_[A-Za-z0-9]{43}$`));
      expect(url).not.toContain('attacker');
      expect(url).not.toContain('evil');
    }
  });

  it(`limits failed sign-ins per address: ${FAILURES} → 400, then 429 with Retry-After, a right token too`, async () => {
    const from = '198.51.100.7';
    const answers: string[] = [];
    for (let i = 0; i < FAILURES + 3; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/console/sign-in',
        remoteAddress: from,
        payload: { token: randomToken() },
      });
      answers.push(errorOf(res).join(' '));
      if (res.statusCode === 429) {
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
        expect(res.json<ErrorBody>().error.message).toContain('CONSOLE_SIGN_IN_FAILURES_PER_MINUTE');
      }
    }
    expect(answers).toEqual([
      ...Array<string>(FAILURES).fill('400 console_link_invalid'),
      ...Array<string>(3).fill('429 rate_limit_exceeded'),
    ]);
    // a good link from that address is refused too (guessing must not go on), and stays unused
    const link = await consoleLink(t.app, service, tenant);
    const blocked = await t.app.inject({
      method: 'POST',
      url: '/console/sign-in',
      remoteAddress: from,
      payload: { token: link.token },
    });
    expect(errorOf(blocked)).toEqual([429, 'rate_limit_exceeded']);
    expect(blocked.headers['set-cookie']).toBeUndefined();
    // another address has its own budget, and the link still opens a session there
    const elsewhere = await t.app.inject({
      method: 'POST',
      url: '/console/sign-in',
      remoteAddress: '198.51.100.8',
      payload: { token: link.token },
    });
    expect(elsewhere.statusCode).toBe(200);
  });

  it('successful sign-ins do not spend the budget', async () => {
    const from = '198.51.100.9';
    for (let i = 0; i < FAILURES + 2; i++) {
      const { token } = await consoleLink(t.app, service, tenant);
      const res = await t.app.inject({ method: 'POST', url: '/console/sign-in', remoteAddress: from, payload: { token } });
      expect(res.statusCode).toBe(200);
    }
    const failed = await t.app.inject({
      method: 'POST',
      url: '/console/sign-in',
      remoteAddress: from,
      payload: { token: randomToken() },
    });
    expect(errorOf(failed)).toEqual([400, 'console_link_invalid']);
  });

  it('ends a session CONSOLE_SESSION_MAX_AGE_HOURS after its sign-in, however active it is', async () => {
    const session = await consoleSession(t.app, service, tenant);
    const cookieValue = session.cookie.split('=')[1] ?? '';
    const described = await t.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: session.cookie } });
    expect(described.statusCode).toBe(200);
    const endsAt = Date.parse(described.json<{ ends_at: string }>().ends_at);
    const [row] = await sql<{ id: string; created_at: Date }>(
      t.db.url,
      `SELECT id, created_at FROM console_sessions WHERE token_hash = encode(sha256($1::bytea), 'hex')`,
      [cookieValue],
    );
    expect(row).toBeDefined();
    expect(endsAt - (row?.created_at.getTime() ?? 0)).toBe(60 * 60 * 1000);

    // signed in 59 minutes ago, used just now: alive
    await sql(
      t.db.url,
      `UPDATE console_sessions SET created_at = now() - interval '59 minutes', last_seen_at = now() WHERE id = $1`,
      [row?.id],
    );
    expect((await t.app.inject({ method: 'GET', url: tenantRoute, headers: { cookie: session.cookie } })).statusCode).toBe(200);
    // signed in 61 minutes ago, used just now (never idle): over
    await sql(
      t.db.url,
      `UPDATE console_sessions SET created_at = now() - interval '61 minutes', last_seen_at = now() WHERE id = $1`,
      [row?.id],
    );
    const ended = await t.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: session.cookie } });
    expect(errorOf(ended)).toEqual([401, 'console_session_invalid']);
    expect(ended.json<ErrorBody>().error.message).toContain('CONSOLE_SESSION_MAX_AGE_HOURS');
    const api = await t.app.inject({ method: 'GET', url: tenantRoute, headers: { cookie: session.cookie } });
    expect(api.statusCode).toBe(401);
  });
});

describe('without *_PUBLIC_URL outside production, and behind TRUST_PROXY', () => {
  let t: TestApp<PlatformConfig>;

  beforeAll(async () => {
    t = await startTestApp(offersService as unknown as ServiceDefinition<PlatformConfig>, {
      TRUST_PROXY: '127.0.0.1',
      CONSOLE_SIGN_IN_FAILURES_PER_MINUTE: '2',
    });
  });
  afterAll(() => t?.close());

  it("links go to the service's own loopback port, never to the Host header", async () => {
    const partner = await newConsoleTenant(t.app, 'offers');
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/console-links',
      headers: { ...ADMIN, host: 'attacker.example', 'x-forwarded-host': 'evil.example' },
      payload: { partner_id: partner },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json<{ url: string }>().url).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${t.config.port}/console/sign-in#token=cl_[A-Za-z0-9]{43}$`),
    );
  });

  it("counts failures per client address as X-Forwarded-For gives it through a trusted proxy, and ignores an untrusted peer's", async () => {
    const signIn = (headers: Record<string, string>, remoteAddress = '127.0.0.1'): Promise<LightMyRequestResponse> =>
      t.app.inject({ method: 'POST', url: '/console/sign-in', remoteAddress, headers, payload: { token: randomToken() } });
    const first = { 'x-forwarded-for': '203.0.113.1' };
    expect(errorOf(await signIn(first))[0]).toBe(400);
    expect(errorOf(await signIn(first))[0]).toBe(400);
    expect(errorOf(await signIn(first))).toEqual([429, 'rate_limit_exceeded']);
    // another client behind the same proxy: its own budget
    expect(errorOf(await signIn({ 'x-forwarded-for': '203.0.113.2' }))[0]).toBe(400);
    // an untrusted peer cannot choose its address: its X-Forwarded-For is ignored
    const peer = '192.0.2.50';
    expect(errorOf(await signIn({ 'x-forwarded-for': '203.0.113.3' }, peer))[0]).toBe(400);
    expect(errorOf(await signIn({ 'x-forwarded-for': '203.0.113.4' }, peer))[0]).toBe(400);
    expect(errorOf(await signIn({ 'x-forwarded-for': '203.0.113.5' }, peer))).toEqual([429, 'rate_limit_exceeded']);
  });
});
