/**
 * Console sessions against cross-site request forgery, for every service: EVERY operation of
 * the service's /openapi.json that takes the tenant credential (its security scheme) and
 * changes state (any method but GET and HEAD) is refused with 403 `csrf_token_invalid` when
 * a request carries the session cookie but no X-CSRF-Token, or a wrong one, and changes
 * nothing. The list comes from /openapi.json, so a route added later is covered without
 * touching this file (vector-api's Qdrant routes answer in Qdrant's body, the code in front
 * of its message). payments-api's Stripe-compatible `/v1` (tag `stripe`) takes no console
 * session at all, CSRF token or not: every one of its operations, GET included, answers a
 * cookie with 401 in Stripe's body (form-encoded POSTs are what a browser sends cross-site
 * without a preflight). Also: POST /console/sign-out, and a session cookie of one service is
 * nobody on another (401), even on the same database.
 */
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { vectorService } from '../../apps/vector-api/src/service';
import type { PlatformConfig, ServiceDefinition } from '@app/platform';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../support/app';
import { consoleLink, consoleSession, type ConsoleService, newConsoleTenant } from '../support/console';
import {
  type ErrorBody,
  fillPath,
  isStripeOperation,
  openApiOperations,
  opKey,
  type Operation,
  type QdrantErrorBody,
  snapshotDatabase,
  type StripeErrorBody,
} from './support';

const SERVICES: Array<[ConsoleService, ServiceDefinition<PlatformConfig>, string]> = [
  ['offers', offersService as unknown as ServiceDefinition<PlatformConfig>, 'partner'],
  ['vector', vectorService as unknown as ServiceDefinition<PlatformConfig>, 'vector_token'],
  ['payments', paymentsService as unknown as ServiceDefinition<PlatformConfig>, 'payments_key'],
];

/** The tables a refused request may touch: the session's last use (recorded on every authenticated request). */
const TOUCHED_BY_AUTHENTICATION = new Set(['console_sessions']);

function withoutTouched(snapshot: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(snapshot).filter(([table]) => !TOUCHED_BY_AUTHENTICATION.has(table)));
}

/** Status and code of an error: the platform's body, or Qdrant's (`{status: {error: "code: …"}}`) on vector-api's Qdrant routes. */
const errorOf = (res: LightMyRequestResponse): [number, string | undefined] => {
  let code: string | undefined;
  try {
    const body = res.json<Partial<ErrorBody> & Partial<QdrantErrorBody>>();
    code = body.error?.code ?? (typeof body.status?.error === 'string' ? /^([a-z_]+): /.exec(body.status.error)?.[1] : undefined);
  } catch {
    code = undefined;
  }
  return [res.statusCode, code];
};

describe.each(SERVICES)('console CSRF: %s', (service, definition, scheme) => {
  let t: TestApp<PlatformConfig>;
  let session: Awaited<ReturnType<typeof consoleSession>>;
  let other: Awaited<ReturnType<typeof consoleSession>>;
  let writes: Operation[];

  beforeAll(async () => {
    t = await startTestApp(definition);
    const tenant = await newConsoleTenant(t.app, service);
    session = await consoleSession(t.app, service, tenant);
    // another live session of the same tenant: its token is a real token, of the wrong session
    other = await consoleSession(t.app, service, tenant);
    writes = (await openApiOperations(t.app)).filter(
      (op) => op.security.includes(scheme) && op.method !== 'GET' && !isStripeOperation(op),
    );
  });
  afterAll(() => t.close());

  /** The request of `op` as the console would send it, with `headers` for the CSRF part. */
  const send = (op: Operation, headers: Record<string, string>): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: op.method,
      url: fillPath(op.path, {}, 'csrf_0000000000000000000000'),
      headers: { cookie: session.cookie, 'content-type': 'application/json', ...headers },
      payload: '{}',
    });

  it(`finds the state-changing ${scheme} operations in /openapi.json`, () => {
    expect(writes.length).toBeGreaterThan(5);
    expect(writes.some((op) => op.method === 'DELETE')).toBe(true);
    expect(writes.some((op) => op.path.includes('{'))).toBe(true);
  });

  it('refuses each one with the cookie alone, or with a wrong X-CSRF-Token (403 csrf_token_invalid), changing nothing', async () => {
    const before = withoutTouched(await snapshotDatabase(t.db.url));
    const wrong: Array<[string, Record<string, string>]> = [
      ['no token', {}],
      ['empty token', { 'x-csrf-token': '' }],
      ['junk token', { 'x-csrf-token': 'not-the-token' }],
      ["another session's token", { 'x-csrf-token': other.csrf }],
      ['the cookie as the token', { 'x-csrf-token': session.cookie.split('=')[1] ?? '' }],
    ];
    const answers: string[] = [];
    for (const op of writes) {
      for (const [label, headers] of wrong) {
        const [status, code] = errorOf(await send(op, headers));
        answers.push(`${opKey(op)} (${label}): ${status} ${code}`);
      }
    }
    expect(answers).toEqual(answers.map((a) => a.replace(/: \d+ .*$/, ': 403 csrf_token_invalid')));
    expect(withoutTouched(await snapshotDatabase(t.db.url))).toEqual(before);
  });

  it('lets each one past the CSRF check with the right token (so the refusals above are the check)', async () => {
    const passed: string[] = [];
    for (const op of writes) {
      const [status, code] = errorOf(await send(op, { 'x-csrf-token': session.csrf }));
      passed.push(`${opKey(op)}: ${code === 'csrf_token_invalid' || status === 401 ? `${status} ${code}` : 'past'}`);
    }
    expect(passed).toEqual(writes.map((op) => `${opKey(op)}: past`));
  });

  it('POST /console/sign-out needs the token too: without it, or with a wrong one, the session lives on', async () => {
    const fresh = await consoleSession(t.app, service, await newConsoleTenant(t.app, service));
    for (const headers of [{}, { 'x-csrf-token': 'wrong' }, { 'x-csrf-token': other.csrf }]) {
      const res = await t.app.inject({ method: 'POST', url: '/console/sign-out', headers: { cookie: fresh.cookie, ...headers } });
      expect(errorOf(res)).toEqual([403, 'csrf_token_invalid']);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    const alive = await t.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: fresh.cookie } });
    expect(alive.statusCode).toBe(200);
    const out = await t.app.inject({ method: 'POST', url: '/console/sign-out', headers: fresh.headers });
    expect(out.statusCode).toBe(200);
    const gone = await t.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: fresh.cookie } });
    expect(errorOf(gone)).toEqual([401, 'console_session_invalid']);
  });
});

describe("console CSRF: payments-api's Stripe-compatible /v1 takes no console session at all", () => {
  let t: TestApp<PlatformConfig>;
  let session: Awaited<ReturnType<typeof consoleSession>>;
  let account: string;
  let stripeOps: Operation[];
  let customer: string;

  beforeAll(async () => {
    t = await startTestApp(paymentsService as unknown as ServiceDefinition<PlatformConfig>);
    account = await newConsoleTenant(t.app, 'payments');
    session = await consoleSession(t.app, 'payments', account);
    stripeOps = (await openApiOperations(t.app)).filter(isStripeOperation);
    // an object of the session's own account, so a path that names it would find it
    const created = await t.app.inject({ method: 'POST', url: '/v2/customers', headers: session.headers, payload: {} });
    expect(created.statusCode).toBe(201);
    customer = created.json<{ id: string }>().id;
  });
  afterAll(() => t.close());

  /** Stripe's 401 (type invalid_request_error, no request_id: not the platform's body), or what came instead. */
  const stripe401 = (res: LightMyRequestResponse): string => {
    if (res.statusCode !== 401) return `${res.statusCode} ${res.body.slice(0, 200)}`;
    const e = res.json<Partial<StripeErrorBody>>().error;
    return e?.type === 'invalid_request_error' && typeof e.message === 'string' && !('request_id' in e)
      ? "refused in Stripe's body"
      : `401 not in Stripe's body: ${res.body.slice(0, 200)}`;
  };

  it('finds the /v1 operations (tag stripe) in /openapi.json, reads and writes', () => {
    expect(stripeOps.length).toBeGreaterThanOrEqual(5);
    expect(stripeOps.some((op) => op.method === 'GET')).toBe(true);
    expect(stripeOps.some((op) => op.method === 'POST' && op.path.includes('{'))).toBe(true);
    expect(stripeOps.every((op) => op.path.startsWith('/v1/'))).toBe(true);
  });

  it('refuses each one, GET included, to the cookie with or without the right X-CSRF-Token and Console-Mode (401), changing nothing', async () => {
    const before = withoutTouched(await snapshotDatabase(t.db.url));
    const variants: Array<[string, Record<string, string>]> = [
      ['cookie alone', { cookie: session.cookie }],
      ['cookie and the right X-CSRF-Token', session.headers],
      ['cookie, token and Console-Mode: test', { ...session.headers, 'console-mode': 'test' }],
      ['cookie, token and Console-Mode: live', { ...session.headers, 'console-mode': 'live' }],
    ];
    const answers: string[] = [];
    for (const op of stripeOps) {
      const url = fillPath(op.path, { id: customer }, 'csrf_0000000000000000000000');
      for (const [label, headers] of variants) {
        const write = op.method !== 'GET';
        const res = await t.app.inject({
          method: op.method,
          url,
          headers: { ...headers, ...(write ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
          ...(write ? { payload: 'metadata[pwned]=yes' } : {}),
        });
        answers.push(`${opKey(op)} (${label}): ${stripe401(res)}`);
      }
    }
    expect(answers).toEqual(answers.map((a) => a.replace(/\): .*$/s, "): refused in Stripe's body")));
    expect(withoutTouched(await snapshotDatabase(t.db.url))).toEqual(before);
  });

  it('refuses the classic cross-site form POST (Origin elsewhere, no preflight, the cookie the browser adds)', async () => {
    const before = withoutTouched(await snapshotDatabase(t.db.url));
    for (const [url, payload] of [
      ['/v1/customers', 'email=attacker%40evil.example&metadata[via]=csrf'],
      [`/v1/customers/${customer}`, 'name=pwned&metadata[via]=csrf'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: {
          cookie: session.cookie,
          origin: 'https://evil.example',
          referer: 'https://evil.example/form.html',
          'content-type': 'application/x-www-form-urlencoded',
          'sec-fetch-site': 'cross-site',
          'sec-fetch-mode': 'navigate',
        },
        payload,
      });
      expect([url, stripe401(res)]).toEqual([url, "refused in Stripe's body"]);
    }
    expect(withoutTouched(await snapshotDatabase(t.db.url))).toEqual(before);
    // and /v2 still takes the session with its token (unchanged), not without it
    const v2 = await t.app.inject({ method: 'GET', url: `/v2/customers/${customer}`, headers: { cookie: session.cookie } });
    expect(v2.statusCode).toBe(200);
    const v2Write = await t.app.inject({
      method: 'POST',
      url: '/v2/customers',
      headers: { cookie: session.cookie },
      payload: {},
    });
    expect(errorOf(v2Write)).toEqual([403, 'csrf_token_invalid']);
  });

  it('lets each one past authentication with the account key beside the cookie (so the 401s above are the cookie)', async () => {
    const key = await t.app.inject({
      method: 'POST',
      url: '/v2/api-keys/roll',
      headers: session.headers,
      payload: { mode: 'test', expires_in_hours: 1 },
    });
    expect(key.statusCode).toBe(201);
    const bearer = { authorization: `Bearer ${key.json<{ secret: string }>().secret}` };
    const passed: string[] = [];
    for (const op of stripeOps) {
      const res = await t.app.inject({
        method: op.method,
        url: fillPath(op.path, {}, 'csrf_0000000000000000000000'),
        headers: { ...bearer, cookie: session.cookie },
      });
      passed.push(`${opKey(op)}: ${res.statusCode === 401 ? `401 ${res.body.slice(0, 120)}` : 'past'}`);
    }
    expect(passed).toEqual(stripeOps.map((op) => `${opKey(op)}: past`));
  });
});

describe("a console session is nobody on another service (one database, the session's service checked)", () => {
  let payments: TestApp<PlatformConfig>;
  let offers: TestApp<PlatformConfig>;
  let vector: TestApp<PlatformConfig>;

  beforeAll(async () => {
    payments = await startTestApp(paymentsService as unknown as ServiceDefinition<PlatformConfig>);
    offers = await startTestApp(offersService as unknown as ServiceDefinition<PlatformConfig>, {}, { db: payments.db });
    vector = await startTestApp(vectorService as unknown as ServiceDefinition<PlatformConfig>, {}, { db: payments.db });
  });
  afterAll(async () => {
    await vector?.close();
    await offers?.close();
    await payments?.close();
  });

  it('a payments cookie on offers-api and vector-api: GET /console/session and the tenant routes → 401', async () => {
    const account = await newConsoleTenant(payments.app, 'payments');
    const session = await consoleSession(payments.app, 'payments', account);
    expect(
      (await payments.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: session.cookie } })).statusCode,
    ).toBe(200);
    for (const [app, url] of [
      [offers, '/api/v1/offers'],
      [vector, '/v1/tables'],
    ] as const) {
      const who = await app.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: session.cookie } });
      expect(errorOf(who)).toEqual([401, 'console_session_invalid']);
      const read = await app.app.inject({ method: 'GET', url, headers: { cookie: session.cookie } });
      expect(read.statusCode).toBe(401);
      // signing out there does not end it here
      const out = await app.app.inject({ method: 'POST', url: '/console/sign-out', headers: session.headers });
      expect(out.statusCode).toBe(401);
    }
    expect(
      (await payments.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: session.cookie } })).statusCode,
    ).toBe(200);
  });

  it('an offers link cannot be redeemed at payments-api, and an offers cookie is nobody there', async () => {
    const partner = await newConsoleTenant(offers.app, 'offers');
    const link = await consoleLink(offers.app, 'offers', partner);
    const elsewhere = await payments.app.inject({ method: 'POST', url: '/console/sign-in', payload: { token: link.token } });
    expect(errorOf(elsewhere)).toEqual([400, 'console_link_invalid']);
    expect(elsewhere.headers['set-cookie']).toBeUndefined();
    // the link is still good where it belongs
    const home = await offers.app.inject({ method: 'POST', url: '/console/sign-in', payload: { token: link.token } });
    expect(home.statusCode).toBe(200);
    const offersSession = await consoleSession(offers.app, 'offers', partner);
    const who = await payments.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: offersSession.cookie } });
    expect(errorOf(who)).toEqual([401, 'console_session_invalid']);
  });
});
