/**
 * SSRF guard (docs/webhooks.md): with WEBHOOK_ALLOW_PRIVATE_URLS=false, endpoint creation
 * in both services refuses every private, loopback, link-local, reserved or otherwise
 * unsafe target, however it is spelled; and a delivery re-checks the very address it
 * connects to (a name that resolves to an internal address is refused at send time) and
 * never follows a redirect.
 */
import { randomBytes } from 'node:crypto';
import { PrismaService } from '@app/platform';
import type { LightMyRequestResponse } from 'fastify';
import { HttpSender } from '../../libs/webhooks/src/delivery/http-sender';
import { type OfferJson, OffersContext, type Partner } from '../offers-api/fixtures';
import { offersService } from '../../apps/offers-api/src/service';
import { newAccount, type PaymentsApp, startPayments } from '../payments-api/payments-context';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { eventually, Receiver } from '../webhooks/support/receiver';
import { type ErrorBody, sql } from './support';

/** Every spelling of a target a webhook must never reach. */
const REFUSED: readonly string[] = [
  'http://127.0.0.1/hook',
  'http://127.1/hook',
  'http://127.0.0.1:6379/',
  'http://127.255.255.254/',
  'http://localhost/hook',
  'http://LOCALHOST:8080/hook',
  'http://localhost./hook',
  'http://api.localhost/hook',
  'http://0.0.0.0/',
  'http://0/',
  'http://[::1]/',
  'http://[::]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[0:0:0:0:0:ffff:127.0.0.1]/',
  'http://[::127.0.0.1]/', // IPv4-compatible (deprecated)
  'http://[::ffff:0:127.0.0.1]/', // SIIT
  'http://[64:ff9b::127.0.0.1]/', // NAT64
  'http://[64:ff9b:1::a00:1]/', // local-use NAT64
  'http://[2002:7f00:1::]/', // 6to4 of 127.0.0.1
  'http://[::ffff:169.254.169.254]/',
  'http://10.0.0.1/',
  'http://10.255.255.255/',
  'http://172.16.0.1/',
  'http://172.31.255.255/',
  'http://192.168.0.1/',
  'http://192.168.255.255/',
  'http://169.254.169.254/latest/meta-data/',
  'http://169.254.0.1/',
  'http://100.64.0.1/',
  'http://100.127.255.254/',
  'http://[fc00::1]/',
  'http://[fd00:ec2::254]/',
  'http://[fdff:ffff::1]/',
  'http://[fe80::1]/',
  'http://[febf::1]/',
  'http://[ff02::1]/',
  'http://224.0.0.1/',
  'http://240.0.0.1/',
  'http://255.255.255.255/',
  'http://192.0.0.1/',
  'http://198.18.0.1/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://017700000001/',
  'http://0x7f.0.0.1/',
  'http://0177.0.0.1/',
  'http://127.000.000.001/',
  'http://3232235521/', // 192.168.0.1
  'http://2852039166/', // 169.254.169.254
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://metadata.google.internal./',
  'http://printer.local/',
  'file:///etc/passwd',
  'gopher://127.0.0.1:6379/_FLUSHALL',
  'ftp://example.com/',
  'ws://example.com/',
  'javascript:alert(1)',
  'data:text/plain,hello',
  'dict://127.0.0.1:6379/info',
  'http://user:pass@93.184.215.14/hook',
  'http://user@93.184.215.14/hook',
  'http://93.184.215.14:80@127.0.0.1/hook',
  'http://127.0.0.1#@93.184.215.14/',
  'http://127.0.0.1\\@93.184.215.14/',
  `http://93.184.215.14/${'a'.repeat(2100)}`,
  'not a url',
  '//93.184.215.14/hook',
  '',
];

/** Public literal addresses: accepted (so the refusals above are the guard's, not a blanket no). */
const ACCEPTED: readonly string[] = [
  'http://93.184.215.14/hook',
  'https://[2606:4700:4700::1111]/hook',
  'http://8.8.8.8:8080/x?y=1',
];

interface Target {
  readonly name: string;
  readonly create: (url: string) => Promise<LightMyRequestResponse>;
  /** PATCH of an existing endpoint's url. */
  readonly update: (id: string, url: string) => Promise<LightMyRequestResponse>;
  readonly count: () => Promise<number>;
}

/** The setting under test, in the env the app is started with (its config class carries the webhook settings). */
const STRICT = { WEBHOOK_ALLOW_PRIVATE_URLS: 'false' };

describe('SSRF guard at registration (WEBHOOK_ALLOW_PRIVATE_URLS=false)', () => {
  let offers: OffersContext;
  let payments: PaymentsApp;
  let targets: Target[];

  beforeAll(async () => {
    offers = new OffersContext(
      await startTestApp(offersService, { ...STRICT, ROLE: 'api', OAUTH_TOKEN_FAILURES_PER_MINUTE: '10000' }),
    );
    payments = await startPayments({ ...STRICT, ROLE: 'api' });
    const partner: Partner = await offers.newPartner('Ssrf', 'enterprise');
    const account = await newAccount(payments, 'Ssrf');
    const count = (url: string) => async () =>
      Number((await sql<{ n: string }>(url, 'SELECT count(*)::text AS n FROM webhook_endpoints'))[0]?.n);
    targets = [
      {
        name: 'offers-api',
        create: (url) =>
          offers.inject({ method: 'POST', url: '/api/v1/webhook-endpoints', headers: partner.auth, payload: { url } }),
        update: (id, url) =>
          offers.inject({ method: 'PATCH', url: `/api/v1/webhook-endpoints/${id}`, headers: partner.auth, payload: { url } }),
        count: count(offers.t.db.url),
      },
      {
        name: 'payments-api',
        create: (url) =>
          payments.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: account.test, payload: { url } }),
        update: (id, url) =>
          payments.app.inject({ method: 'PATCH', url: `/v2/webhook-endpoints/${id}`, headers: account.test, payload: { url } }),
        count: count(payments.db.url),
      },
    ];
  });
  afterAll(async () => {
    await offers.t.close();
    await payments.close();
  });

  it('refuses every private, loopback, link-local, reserved, non-http(s), credentialed or over-long target, creating nothing', async () => {
    for (const target of targets) {
      const before = await target.count();
      const outcomes = [];
      for (const url of REFUSED) {
        const res = await target.create(url);
        const error = res.statusCode === 400 ? res.json<ErrorBody>().error : undefined;
        const refusal = error?.param === 'url' && ['webhook_url_invalid', 'parameter_invalid'].includes(error.code);
        outcomes.push([target.name, url.slice(0, 60), res.statusCode, refusal ? 'refused' : res.body.slice(0, 200)]);
      }
      expect(outcomes).toEqual(REFUSED.map((url) => [target.name, url.slice(0, 60), 400, 'refused']));
      expect(await target.count()).toBe(before);
    }
  });

  it('applies the same check to a PATCH of the url, leaving the endpoint as it was', async () => {
    for (const target of targets) {
      const created = await target.create(ACCEPTED[0]);
      expect(created.statusCode).toBe(201);
      const id = created.json<{ id: string }>().id;
      const outcomes = [];
      for (const url of REFUSED) {
        const res = await target.update(id, url);
        const error = res.statusCode === 400 ? res.json<ErrorBody>().error : undefined;
        const refusal = error?.param === 'url' && ['webhook_url_invalid', 'parameter_invalid'].includes(error.code);
        outcomes.push([target.name, url.slice(0, 60), res.statusCode, refusal ? 'refused' : res.body.slice(0, 200)]);
      }
      expect(outcomes).toEqual(REFUSED.map((url) => [target.name, url.slice(0, 60), 400, 'refused']));
      const moved = await target.update(id, ACCEPTED[2]);
      expect([target.name, moved.statusCode, moved.json<{ url: string }>().url]).toEqual([target.name, 200, ACCEPTED[2]]);
    }
  });

  it('accepts public literal addresses', async () => {
    for (const target of targets) {
      for (const url of ACCEPTED)
        expect([target.name, url, (await target.create(url)).statusCode]).toEqual([target.name, url, 201]);
    }
  });
});

describe('SSRF guard at delivery', () => {
  let receiver: Receiver;
  let other: Receiver;
  const sender = new HttpSender();
  const send = (url: string, allowPrivateUrls: boolean) =>
    sender.send({ url, headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 3000, allowPrivateUrls });

  beforeAll(async () => {
    receiver = await Receiver.start();
    other = await Receiver.start();
  });
  beforeEach(() => {
    // each test counts requests from zero and sets its own answer (the redirect cases change it)
    for (const r of [receiver, other]) {
      r.requests.length = 0;
      r.handler = () => ({ status: 200, body: 'ok' });
    }
  });
  afterAll(async () => {
    sender.close();
    await receiver.close();
    await other.close();
  });

  it('checks the address a name resolves to at send time (DNS rebinding), and literal spellings of loopback', async () => {
    const port = new URL(receiver.url).port;
    for (const url of [
      `http://localhost:${port}/hook`,
      `http://[::ffff:7f00:1]:${port}/hook`,
      `http://2130706433:${port}/hook`,
    ]) {
      const result = await send(url, false);
      expect([url, result.statusCode, result.error]).toEqual([url, null, expect.stringMatching(/blocked|resolved to/)]);
    }
    expect(receiver.requests).toHaveLength(0);
    // the same URL is delivered when private URLs are allowed: the refusal above is the guard's
    expect((await send(`http://localhost:${port}/hook`, true)).statusCode).toBe(200);
    expect(receiver.requests).toHaveLength(1);
  });

  it.each([301, 302, 303, 307, 308])('never follows a %i redirect (to a private address or anywhere)', async (status) => {
    receiver.handler = () => ({ status, headers: { location: other.url } });
    const result = await send(receiver.url, true);
    expect([result.statusCode, result.error]).toEqual([status, `HTTP ${status}`]);
    expect(other.requests).toHaveLength(0);
  });
});

describe('SSRF guard end to end: an endpoint registered while allowed is refused by a strict delivery worker', () => {
  let db: TestDatabase;
  const apps: Array<TestApp<InstanceType<typeof offersService.configClass>>> = [];
  let receiver: Receiver;

  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    for (const t of apps) await t.close();
    await receiver.close();
    await db.drop();
  });

  it('does not deliver to a name that resolves to loopback; the attempt records the block', async () => {
    const prefix = `test-${randomBytes(4).toString('hex')}`;
    const common = { QUEUE_PREFIX: prefix, WEBHOOK_SWEEP_INTERVAL_MS: '200', OAUTH_TOKEN_FAILURES_PER_MINUTE: '10000' };
    // registered through an API process that allows private URLs (or while DNS pointed elsewhere) ...
    const api = await startTestApp(offersService, { ...common, ROLE: 'api' }, { db });
    apps.push(api);
    // ... and delivered by a worker that does not
    apps.push(await startTestApp(offersService, { ...common, ...STRICT, ROLE: 'worker' }, { db }));

    const ctx = new OffersContext(api);
    const partner = await ctx.newPartner('Rebind');
    await ctx.publishTerms('ssrf-1');
    const offer: OfferJson = await ctx.newOffer();
    await ctx.share(partner, offer.id);
    const port = new URL(receiver.url).port;
    const ep = await ctx.inject({
      method: 'POST',
      url: '/api/v1/webhook-endpoints',
      headers: partner.auth,
      payload: { url: `http://localhost:${port}/hook` },
    });
    ctx.expectStatus(ep, 201);
    const ind = await ctx.indicate(partner, offer.id, {
      investor_id: 'inv_ssrf',
      amount: 100_000,
      currency: offer.currency,
      terms_accepted: true,
      terms_version: 'ssrf-1',
    });
    ctx.expectStatus(ind, 201);

    const prisma = api.app.get(PrismaService);
    const attempt = await eventually(
      async () =>
        (await prisma.webhookAttempt.findFirst({ where: { delivery: { endpointId: ep.json<{ id: string }>().id } } })) ??
        undefined,
      20_000,
      'a delivery attempt by the strict worker',
    );
    expect(attempt).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/localhost resolved to (127\.0\.0\.1|::1)/) as unknown,
    });
    expect(receiver.requests).toHaveLength(0);
  });
});
