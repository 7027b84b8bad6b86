/**
 * No secret reaches a log line. Each service runs at LOG_LEVEL=trace through flows that
 * create and present every kind of secret — right, wrong, tampered, in headers, in forms,
 * in query strings — including 401s and forced 500s whose database error carries the
 * failing row (a webhook secret). Every captured line (in-process `logs`, and the stdout
 * and stderr of a spawned built service) is scanned for each secret, for pieces of it, and
 * for secret shapes.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@app/platform';
import type { LightMyRequestResponse } from 'fastify';
import { OffersConfig } from '../../apps/offers-api/src/config';
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { vectorService } from '../../apps/vector-api/src/service';
import { freePort } from '../../scripts/local-infra';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase } from '../support/database';
import { findLeaks, sql, waitFor } from './support';

const rand = (n = 24): string => randomBytes(n).toString('base64url').replace(/[-_]/g, 'x');
const ADMIN_KEY = `adminkey${rand()}`;
const JWT_SECRET = `jwtsigning${rand(32)}`;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Every secret value used by the flows (right or wrong), by label. */
const secrets: Array<[string, string]> = [
  ['ADMIN_API_KEY', ADMIN_KEY],
  ['OAUTH_JWT_KEYS secret', JWT_SECRET],
];
const remember = (label: string, value: string): string => {
  secrets.push([label, value]);
  return value;
};

const lines = (t: TestApp<never>): string[] => t.logs.map((l) => JSON.stringify(l));

function expectNoLeaks(where: string, captured: string[]): void {
  expect(captured.length).toBeGreaterThan(10);
  const leaks = findLeaks(captured, secrets);
  expect([where, leaks]).toEqual([where, []]);
}

describe('secrets never reach the logs', () => {
  const apps: Array<TestApp<never>> = [];
  const start = async (def: unknown, env: Record<string, string>): Promise<TestApp<never>> => {
    const t = (await startTestApp(def as typeof offersService, {
      LOG_LEVEL: 'trace',
      ADMIN_API_KEY: ADMIN_KEY,
      OAUTH_TOKEN_FAILURES_PER_MINUTE: '10000',
      WEBHOOK_SWEEP_INTERVAL_MS: '200',
      ...env,
    })) as unknown as TestApp<never>;
    apps.push(t);
    return t;
  };
  afterAll(async () => {
    for (const t of apps) await t.close();
  });

  const admin = { authorization: `Bearer ${ADMIN_KEY}` };
  const ok = (res: LightMyRequestResponse, status: number): void => {
    if (res.statusCode !== status) throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body}`);
  };

  it('the scanner finds a planted secret, a piece of one and a secret shape (so it can fail)', () => {
    const planted = `sk_test_${rand()}`;
    const found = findLeaks(
      [`{"msg":"x ${planted.slice(12, 30)} y"}`, '{"msg":"whsec_abc"}', '{"msg":"Basic dXNlcjpwYXNz"}', '{"msg":"rk_live_abc"}'],
      [['planted', planted]],
    );
    expect([...new Set(found.map((f) => f.line))]).toEqual([0, 1, 2, 3]);
  });

  it('offers-api: admin key, client secrets (form, Basic, wrong), access tokens (tampered), webhook secrets, forced 500s', async () => {
    const t = await start(offersService, { OAUTH_JWT_KEYS: `sec:${JWT_SECRET}` });
    const inject = (o: Parameters<typeof t.app.inject>[0]) => t.app.inject(o as never);
    // the admin key, wrong and right
    for (const wrong of [
      `${ADMIN_KEY}x`,
      `x${ADMIN_KEY}`,
      ADMIN_KEY.slice(0, -1),
      remember('wrong admin key', `adminkey${rand()}`),
    ]) {
      ok(await inject({ method: 'GET', url: '/admin/v1/info', headers: { authorization: `Bearer ${wrong}` } }), 401);
    }
    const partner = await inject({
      method: 'POST',
      url: '/admin/v1/partners',
      headers: admin,
      payload: { name: 'Logs', tier: 'growth' },
    });
    ok(partner, 201);
    const client = await inject({
      method: 'POST',
      url: `/admin/v1/partners/${partner.json<{ id: string }>().id}/clients`,
      headers: admin,
    });
    ok(client, 201);
    const { client_id } = client.json<{ client_id: string }>();
    const secret = remember('client_secret', client.json<{ client_secret: string }>().client_secret);
    const wrongSecret = remember('wrong client_secret', `cs_${rand(32)}`);

    // client credentials in every form, right and wrong
    const token = async (
      fields: Record<string, string>,
      headers: Record<string, string> = {},
      query = '',
    ): Promise<LightMyRequestResponse> =>
      inject({
        method: 'POST',
        url: `/oauth/token${query}`,
        headers: { ...FORM, ...headers },
        payload: new URLSearchParams({ grant_type: 'client_credentials', ...fields }).toString(),
      });
    const basic = (id: string, s: string): Record<string, string> => ({
      authorization: remember('Basic header', `Basic ${Buffer.from(`${id}:${s}`).toString('base64')}`),
    });
    const good = await token({ client_id, client_secret: secret });
    ok(good, 200);
    const access = remember('access token', good.json<{ access_token: string }>().access_token);
    ok(await token({}, basic(client_id, secret)), 200);
    ok(await token({ client_id, client_secret: wrongSecret }), 401);
    ok(await token({ client_id, client_secret: `${secret}x` }), 401);
    ok(await token({ client_id: 'client_nobody', client_secret: secret }), 401);
    ok(await token({}, basic(client_id, wrongSecret)), 401);
    ok(await token({}, { authorization: `Basic ${remember('malformed Basic', rand(30))}` }), 401);
    ok(await token({ client_secret: secret }, basic(client_id, secret)), 400); // both methods
    // a secret in the URL (RFC 6749 §2.3.1: never) is an unknown query parameter: refused, and logged nowhere
    ok(await token({ client_id, client_secret: secret }, {}, `?client_secret=${encodeURIComponent(secret)}`), 400);
    ok(
      await inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/json' },
        payload: { client_id, client_secret: secret },
      }),
      400,
    );

    // access tokens: right, tampered, in the query string
    const [h, p, s] = access.split('.');
    const tampered = remember(
      'tampered token',
      `${h}.${Buffer.from('{"client_id":"x","partner_id":"y","tier":"enterprise"}').toString('base64url')}.${s}`,
    );
    const otherSig = remember('re-signed token', `${h}.${p}.${rand(32)}`);
    ok(await inject({ method: 'GET', url: '/api/v1/offers', headers: { authorization: `Bearer ${access}` } }), 200);
    for (const bad of [tampered, otherSig, `${access}x`, 'not.a.jwt']) {
      ok(await inject({ method: 'GET', url: '/api/v1/offers', headers: { authorization: `Bearer ${bad}` } }), 401);
    }
    ok(await inject({ method: 'GET', url: `/api/v1/offers?access_token=${access}` }), 401);
    ok(await inject({ method: 'GET', url: `/api/v1/offers/${access}`, headers: { authorization: `Bearer ${access}` } }), 404);

    // webhook secrets: create, rotate, list
    const auth = { authorization: `Bearer ${access}` };
    const ep = await inject({
      method: 'POST',
      url: '/api/v1/webhook-endpoints',
      headers: auth,
      payload: { url: 'http://127.0.0.1:9/logs' },
    });
    ok(ep, 201);
    remember('webhook secret', ep.json<{ secret: string }>().secret);
    const epId = ep.json<{ id: string }>().id;
    const rotated = await inject({ method: 'POST', url: `/api/v1/webhook-endpoints/${epId}/rotate-secret`, headers: auth });
    ok(rotated, 200);
    remember('rotated webhook secret', rotated.json<{ secret: string }>().secret);
    ok(await inject({ method: 'GET', url: '/api/v1/webhook-endpoints', headers: auth }), 200);

    // OAuth clients the partner manages itself: create, rotate (with a grace), use, list, delete
    const own = await inject({ method: 'POST', url: '/api/v1/clients', headers: auth, payload: { name: 'logs' } });
    ok(own, 201);
    const ownId = own.json<{ client_id: string }>().client_id;
    const ownSecret = remember('self-service client_secret', own.json<{ client_secret: string }>().client_secret);
    const roll = await inject({
      method: 'POST',
      url: `/api/v1/clients/${ownId}/rotate-secret`,
      headers: auth,
      payload: { expires_in_hours: 1 },
    });
    ok(roll, 200);
    const rolledSecret = remember('rotated client_secret', roll.json<{ client_secret: string }>().client_secret);
    ok(await token({ client_id: ownId, client_secret: ownSecret }), 200); // in its grace
    ok(await token({}, basic(ownId, rolledSecret)), 200);
    ok(await token({ client_id: ownId, client_secret: `${rolledSecret}x` }), 401);
    const rollNow = await inject({ method: 'POST', url: `/api/v1/clients/${ownId}/rotate-secret`, headers: auth });
    ok(rollNow, 200);
    remember('rotated-at-once client_secret', rollNow.json<{ client_secret: string }>().client_secret);
    ok(await token({ client_id: ownId, client_secret: ownSecret }), 401); // its grace ended with the second rotation
    ok(await inject({ method: 'GET', url: '/api/v1/clients', headers: auth }), 200);
    ok(await inject({ method: 'DELETE', url: `/api/v1/clients/${ownId}`, headers: auth }), 200);
    ok(await token({ client_id: ownId, client_secret: rolledSecret }), 401);

    // forced 500s: the database refuses the row, and its error carries the row (with the secret)
    await sql(
      t.db.url,
      `ALTER TABLE webhook_endpoints ADD CONSTRAINT sec_boom CHECK (url NOT LIKE '%boom%' OR previous_secret IS NULL) NOT VALID`,
    );
    await sql(t.db.url, `ALTER TABLE webhook_endpoints ADD CONSTRAINT sec_bang CHECK (url NOT LIKE '%bang%') NOT VALID`);
    const boom = await inject({
      method: 'POST',
      url: '/api/v1/webhook-endpoints',
      headers: auth,
      payload: { url: 'http://127.0.0.1:9/boom' },
    });
    ok(boom, 201);
    remember('webhook secret before a failed rotation', boom.json<{ secret: string }>().secret);
    ok(
      await inject({
        method: 'POST',
        url: `/api/v1/webhook-endpoints/${boom.json<{ id: string }>().id}/rotate-secret`,
        headers: auth,
      }),
      500,
    );
    ok(
      await inject({
        method: 'POST',
        url: '/api/v1/webhook-endpoints',
        headers: auth,
        payload: { url: 'http://127.0.0.1:9/bang' },
      }),
      500,
    );
    // a 500 on the token endpoint while it holds the client secret
    await sql(t.db.url, `ALTER TABLE oauth_clients RENAME COLUMN secret_hash TO secret_hash_gone`);
    try {
      ok(await token({ client_id, client_secret: secret }), 500);
      ok(await token({}, basic(client_id, secret)), 500);
    } finally {
      await sql(t.db.url, `ALTER TABLE oauth_clients RENAME COLUMN secret_hash_gone TO secret_hash`);
    }

    const captured = lines(t);
    expect(captured.filter((l) => /"level":50/.test(l)).length).toBeGreaterThanOrEqual(4); // the 500s were logged
    expect(captured.some((l) => l.includes('/oauth/token'))).toBe(true); // request lines were captured
    expectNoLeaks('offers-api', captured);
  });

  it('payments-api: sk_/rk_ keys (right, wrong, rolled, revoked, in the query), webhook secrets, a forced 500', async () => {
    const t = await start(paymentsService, {});
    const inject = (o: Parameters<typeof t.app.inject>[0]) => t.app.inject(o as never);
    const acct = await inject({ method: 'POST', url: '/admin/v1/accounts', headers: admin, payload: { name: 'Logs' } });
    ok(acct, 201);
    const testKey = remember('sk_test key', acct.json<{ test_key: string }>().test_key);
    const liveKey = remember('sk_live key', acct.json<{ live_key: string }>().live_key);
    const wrongKeys = [
      remember('wrong sk_test key', `sk_test_${rand(32)}`),
      remember('wrong sk_live key', `sk_live_${rand(32)}`),
      `${testKey}x`,
      testKey.slice(0, -3),
      'sk_test_short',
    ];
    for (const key of wrongKeys)
      ok(await inject({ method: 'GET', url: '/v2/customers', headers: { authorization: `Bearer ${key}` } }), 401);
    ok(await inject({ method: 'GET', url: `/v2/customers?api_key=${testKey}` }), 401);
    const auth = { authorization: `Bearer ${testKey}` };
    const customer = await inject({
      method: 'POST',
      url: '/v2/customers',
      headers: { ...auth, 'idempotency-key': 'fine-to-log-1' },
      payload: { email: 'a@b.example' },
    });
    ok(customer, 201);
    const cus = customer.json<{ id: string }>().id;
    ok(
      await inject({
        method: 'POST',
        url: '/v2/payments',
        headers: auth,
        payload: { amount: 500, currency: 'gbp', customer_id: cus },
      }),
      201,
    );
    ok(
      await inject({
        method: 'POST',
        url: '/v2/payments',
        headers: { authorization: `Bearer ${liveKey}` },
        payload: { amount: 500, currency: 'gbp', customer_id: cus },
      }),
      403,
    );
    const ep = await inject({
      method: 'POST',
      url: '/v2/webhook-endpoints',
      headers: auth,
      payload: { url: 'http://127.0.0.1:9/pay' },
    });
    ok(ep, 201);
    remember('payments webhook secret', ep.json<{ secret: string }>().secret);
    const rotated = await inject({
      method: 'POST',
      url: `/v2/webhook-endpoints/${ep.json<{ id: string }>().id}/rotate-secret`,
      headers: auth,
    });
    remember('payments rotated webhook secret', rotated.json<{ secret: string }>().secret);
    // Stripe's /v1: a form-encoded create (its answer, with the secret, is also the stored
    // Idempotency-Key answer), its replay, a list and a retrieve
    const form = { ...auth, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': 'v1-hook-1' };
    const v1Body = 'url=http%3A%2F%2F127.0.0.1%3A9%2Fv1&enabled_events[]=*';
    const v1Ep = await inject({ method: 'POST', url: '/v1/webhook_endpoints', headers: form, payload: v1Body });
    ok(v1Ep, 200);
    remember('/v1 webhook secret', v1Ep.json<{ secret: string }>().secret);
    ok(await inject({ method: 'POST', url: '/v1/webhook_endpoints', headers: form, payload: v1Body }), 200);
    ok(await inject({ method: 'GET', url: '/v1/webhook_endpoints', headers: auth }), 200);
    ok(await inject({ method: 'GET', url: `/v1/webhook_endpoints/${v1Ep.json<{ id: string }>().id}`, headers: auth }), 200);
    // restricted and rolled keys: made, used (allowed and denied), revoked, presented wrong
    const rk = await inject({
      method: 'POST',
      url: '/v2/api-keys',
      headers: auth,
      payload: { mode: 'test', name: 'logs', permissions: { customers: 'read' } },
    });
    ok(rk, 201);
    const rkKey = remember('rk_test key', rk.json<{ secret: string }>().secret);
    ok(await inject({ method: 'GET', url: '/v2/customers', headers: { authorization: `Bearer ${rkKey}` } }), 200);
    ok(await inject({ method: 'GET', url: '/v2/payments', headers: { authorization: `Bearer ${rkKey}` } }), 403);
    ok(await inject({ method: 'GET', url: '/v2/api-keys', headers: { authorization: `Bearer ${rkKey}` } }), 403);
    ok(await inject({ method: 'DELETE', url: `/v2/api-keys/${rk.json<{ id: string }>().id}`, headers: auth }), 200);
    ok(await inject({ method: 'GET', url: '/v2/customers', headers: { authorization: `Bearer ${rkKey}` } }), 401);
    const wrongRk = remember('wrong rk_live key', `rk_live_${rand(32)}`);
    ok(await inject({ method: 'GET', url: '/v2/customers', headers: { authorization: `Bearer ${wrongRk}` } }), 401);
    const rolled = await inject({
      method: 'POST',
      url: '/v2/api-keys/roll',
      headers: auth,
      payload: { mode: 'test', expires_in_hours: 1 },
    });
    ok(rolled, 201);
    remember('rolled sk_test key', rolled.json<{ secret: string }>().secret);
    ok(await inject({ method: 'GET', url: '/v2/api-keys', headers: auth }), 200);
    await sql(t.db.url, `ALTER TABLE webhook_endpoints ADD CONSTRAINT sec_bang CHECK (url NOT LIKE '%bang%') NOT VALID`);
    ok(
      await inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: auth, payload: { url: 'http://127.0.0.1:9/bang' } }),
      500,
    );
    ok(
      await inject({
        method: 'POST',
        url: '/v1/webhook_endpoints',
        headers: { ...form, 'idempotency-key': 'v1-hook-bang' },
        payload: 'url=http%3A%2F%2F127.0.0.1%3A9%2Fbang&enabled_events[]=*',
      }),
      500,
    );
    const captured = lines(t);
    expect(captured.some((l) => l.includes('"level":50'))).toBe(true);
    expectNoLeaks('payments-api', captured);
  });

  it('vector-api: tokens (right, wrong, revoked, in the query)', async () => {
    const t = await start(vectorService, {});
    const inject = (o: Parameters<typeof t.app.inject>[0]) => t.app.inject(o as never);
    const created = await inject({ method: 'POST', url: '/admin/v1/tokens', headers: admin, payload: { name: 'logs' } });
    ok(created, 201);
    const token = remember('vector token', created.json<{ token: string }>().token);
    const auth = { authorization: `Bearer ${token}` };
    ok(await inject({ method: 'POST', url: '/v1/tables', headers: auth, payload: { name: 'logs', dimension: 2 } }), 201);
    ok(
      await inject({
        method: 'GET',
        url: '/v1/tables',
        headers: { authorization: `Bearer ${remember('wrong vector token', `vt_${rand(32)}`)}` },
      }),
      401,
    );
    ok(await inject({ method: 'GET', url: `/v1/tables?token=${token}` }), 401);
    ok(await inject({ method: 'GET', url: '/admin/v1/tokens', headers: admin }), 200);
    ok(await inject({ method: 'DELETE', url: `/admin/v1/tokens/${created.json<{ id: string }>().id}`, headers: admin }), 200);
    ok(await inject({ method: 'GET', url: '/v1/tables', headers: auth }), 401);
    ok(await inject({ method: 'GET', url: '/admin/v1/tokens', headers: auth }), 401);
    expectNoLeaks('vector-api', lines(t));
  });

  /** Per service: the admin route that makes a tenant, the link body's field, a read and a write of the tenant. */
  const CONSOLES: Array<{
    name: string;
    def: unknown;
    env: Record<string, string>;
    tenant: { url: string; body: object; field: string };
    read: string;
    write: { url: string; payload: object };
  }> = [
    {
      name: 'offers-api',
      def: offersService,
      env: { OAUTH_JWT_KEYS: `sec:${JWT_SECRET}` },
      tenant: { url: '/admin/v1/partners', body: { name: 'Console Logs', tier: 'growth' }, field: 'partner_id' },
      read: '/api/v1/offers',
      write: { url: '/api/v1/clients', payload: { name: 'from the console' } },
    },
    {
      name: 'vector-api',
      def: vectorService,
      env: {},
      tenant: { url: '/admin/v1/projects', body: { name: 'Console Logs' }, field: 'project_id' },
      read: '/v1/tables',
      write: { url: '/v1/tokens', payload: { name: 'from the console' } },
    },
    {
      name: 'payments-api',
      def: paymentsService,
      env: {},
      tenant: { url: '/admin/v1/accounts', body: { name: 'Console Logs' }, field: 'account_id' },
      read: '/v2/customers',
      write: { url: '/v2/customers', payload: { description: 'from the console' } },
    },
  ];

  it.each(CONSOLES)(
    '$name console: link tokens, session cookies and CSRF tokens (sign-in, requests, refusals, sign-out)',
    async (c) => {
      const t = await start(c.def, c.env);
      const inject = (o: Parameters<typeof t.app.inject>[0]) => t.app.inject(o as never);
      const tenant = await inject({ method: 'POST', url: c.tenant.url, headers: admin, payload: c.tenant.body });
      ok(tenant, 201);
      const tenantId = tenant.json<{ id: string }>().id;
      const newLink = async (): Promise<string> => {
        const res = await inject({
          method: 'POST',
          url: '/admin/v1/console-links',
          headers: admin,
          payload: { [c.tenant.field]: tenantId },
        });
        ok(res, 201);
        const url = res.json<{ url: string }>().url;
        return remember('console link token', /#token=(cl_\w+)$/.exec(url)?.[1] ?? 'missing');
      };
      // sign in by link, then the same link again (used), an unknown one, and one in a query string
      const link = await newLink();
      const signIn = await inject({ method: 'POST', url: '/console/sign-in', payload: { token: link } });
      ok(signIn, 200);
      const setCookie = /(console_session_[a-z]+)=(cs_\w+)/.exec(String(signIn.headers['set-cookie']));
      const cookieName = setCookie?.[1] ?? 'console_session_missing';
      const cookieValue = remember('console session cookie', setCookie?.[2] ?? '');
      const csrf = remember('console CSRF token', signIn.json<{ csrf_token: string }>().csrf_token);
      ok(await inject({ method: 'POST', url: '/console/sign-in', payload: { token: link } }), 400);
      ok(
        await inject({
          method: 'POST',
          url: '/console/sign-in',
          payload: { token: remember('wrong link token', `cl_${rand(32)}`) },
        }),
        400,
      );
      const other = await newLink();
      ok(await inject({ method: 'GET', url: `/console/sign-in?token=${other}` }), 200);
      // the console at work: the page, the session, a read, a write, and writes refused for CSRF
      const cookie = { cookie: `${cookieName}=${cookieValue}` };
      ok(await inject({ method: 'GET', url: '/console/offers', headers: cookie }), 200);
      ok(await inject({ method: 'GET', url: '/console/session', headers: cookie }), 200);
      ok(await inject({ method: 'GET', url: c.read, headers: cookie }), 200);
      const write = { method: 'POST' as const, url: c.write.url, payload: c.write.payload };
      ok(await inject({ ...write, headers: { ...cookie, 'x-csrf-token': csrf } }), 201);
      ok(await inject({ ...write, headers: cookie }), 403);
      ok(await inject({ ...write, headers: { ...cookie, 'x-csrf-token': remember('wrong CSRF token', rand(32)) } }), 403);
      ok(
        await inject({
          method: 'GET',
          url: c.read,
          headers: { cookie: `${cookieName}=${remember('unknown cookie', `cs_${rand(32)}`)}` },
        }),
        401,
      );
      // sign out, and the ended session refused
      ok(await inject({ method: 'POST', url: '/console/sign-out', headers: { ...cookie, 'x-csrf-token': csrf } }), 200);
      ok(await inject({ method: 'GET', url: c.read, headers: cookie }), 401);
      ok(await inject({ method: 'POST', url: '/console/sign-out', headers: { ...cookie, 'x-csrf-token': csrf } }), 401);
      expectNoLeaks(`${c.name} console`, lines(t));
    },
  );

  it('a built service (node dist/…/main.js) at LOG_LEVEL=trace writes no secret to stdout or stderr', async () => {
    const main = join(process.cwd(), 'dist', 'apps', 'payments-api', 'src', 'main.js');
    if (!existsSync(main)) throw new Error('dist/ is missing: run `npm run build` (npm test does it in pretest)');
    const db = await createTestDatabase();
    const port = await freePort(0);
    const child = spawn(process.execPath, [main], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: db.url,
        REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        QUEUE_PREFIX: `test-${randomBytes(4).toString('hex')}`,
        PAYMENTS_PORT: String(port),
        HOST: '127.0.0.1',
        NODE_ENV: 'test',
        LOG_LEVEL: 'trace',
        ADMIN_API_KEY: ADMIN_KEY,
        PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY: remember('PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY', `sealing${rand(32)}`),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitFor('the built service to be live', async () => (await fetch(`${base}/health/live`)).ok, {
        timeoutMs: 15_000,
        retryErrors: true, // connection refused until it listens
      }).catch((err: unknown) => {
        throw new Error(`${err instanceof Error ? err.message : String(err)}\n${out}`);
      });
      const call = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, init);
      const json = { 'content-type': 'application/json' };
      const acct = await call('/admin/v1/accounts', {
        method: 'POST',
        headers: { ...admin, ...json },
        body: '{"name":"Spawned"}',
      });
      const keys = (await acct.json()) as { test_key: string; live_key: string };
      remember('spawned sk_test key', keys.test_key);
      remember('spawned sk_live key', keys.live_key);
      const auth = { authorization: `Bearer ${keys.test_key}` };
      expect((await call('/v2/customers', { headers: auth })).status).toBe(200);
      expect((await call('/v2/customers', { headers: { authorization: `Bearer ${keys.test_key}x` } })).status).toBe(401);
      expect((await call(`/v2/customers?api_key=${keys.live_key}`)).status).toBe(401);
      expect((await call('/admin/v1/info', { headers: { authorization: `Bearer ${ADMIN_KEY}x` } })).status).toBe(401);
      const ep = await call('/v2/webhook-endpoints', {
        method: 'POST',
        headers: { ...auth, ...json },
        body: '{"url":"http://127.0.0.1:9/x"}',
      });
      remember('spawned webhook secret', ((await ep.json()) as { secret: string }).secret);
      // a roll with an Idempotency-Key, then its replay (the answer is sealed and opened again)
      const roll = () =>
        call('/v2/api-keys/roll', {
          method: 'POST',
          headers: { ...auth, ...json, 'idempotency-key': 'spawned-roll-1' },
          body: '{"mode":"test","expires_in_hours":1}',
        });
      const rolled = (await (await roll()).json()) as { secret: string };
      remember('spawned rolled key', rolled.secret);
      const replayed = await roll();
      expect([replayed.headers.get('idempotent-replayed'), ((await replayed.json()) as { secret: string }).secret]).toEqual([
        'true',
        rolled.secret,
      ]);
    } finally {
      child.kill('SIGTERM');
      await exited;
      await db.drop();
    }
    const captured = out.split('\n').filter((l) => l.trim() !== '');
    expect(captured.some((l) => l.includes('"msg":"request completed"'))).toBe(true);
    expectNoLeaks('spawned payments-api', captured);
  });

  it('config errors name a bad secret variable but never echo its value', () => {
    const base = { DATABASE_URL: 'postgresql://u@127.0.0.1:5432/x' };
    const [shortKey, bareSecret, shortSecret, dbPassword] = [rand(5), rand(30), rand(12), rand(12)];
    const attempts: Array<[Record<string, string>, string, string]> = [
      [{ ADMIN_API_KEY: shortKey }, 'ADMIN_API_KEY', shortKey],
      [{ OAUTH_JWT_KEYS: bareSecret }, 'OAUTH_JWT_KEYS', bareSecret],
      [{ OAUTH_JWT_KEYS: `k1:${shortSecret}` }, 'OAUTH_JWT_KEYS', shortSecret],
      [{ DATABASE_URL: `mysql://admin:${dbPassword}@db.example/x` }, 'DATABASE_URL', dbPassword],
    ];
    for (const [env, variable, value] of attempts) {
      let message = '';
      try {
        loadConfig(OffersConfig, { ...base, ...env });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toContain(variable);
      for (let i = 0; i + 6 <= value.length; i++)
        expect([variable, message.includes(value.slice(i, i + 6))]).toEqual([variable, false]);
    }
  });
});
