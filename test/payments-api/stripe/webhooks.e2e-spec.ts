/**
 * Stripe's /v1 webhook endpoints and events through the official `stripe` SDK's own methods,
 * unmodified (issue 35): a local receiver verifies every /v1 delivery with
 * `stripe.webhooks.constructEvent` (and a tampered body is refused); one stored event is seen
 * under its /v2 kind by /v2 and under its Stripe type by /v1; each API's endpoints and events
 * stay out of the other's routes.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrismaService, TransactionRunner } from '@app/platform';
import Stripe from 'stripe';
import { PAYMENT_EVENT_KINDS, PaymentEvents } from '../../../apps/payments-api/src/common/events';
import { waitFor } from '../../support/wait';
import { startStripeApp, type StripeApp, stripeRejection } from './stripe-context';

interface Delivery {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A receiver on 127.0.0.1 that records every request (raw body) and answers 200. */
class Receiver {
  readonly deliveries: Delivery[] = [];
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.deliveries.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('ok');
    });
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  at(path: string): Delivery[] {
    return this.deliveries.filter((d) => d.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

interface V2Envelope {
  id: string;
  event: string;
  data: { id?: string };
}

describe('/v1 webhook endpoints and events with the official Stripe SDK', () => {
  let s: StripeApp;
  let stripe: Stripe;
  let receiver: Receiver;
  let v2: (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: object,
  ) => Promise<{ status: number; body: unknown }>;

  beforeAll(async () => {
    s = await startStripeApp();
    stripe = s.stripe;
    receiver = await new Receiver().start();
    v2 = async (method, url, payload) => {
      const res = await s.t.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${s.secretKey}` },
        ...(payload === undefined ? {} : { payload }),
      });
      return { status: res.statusCode, body: res.json<unknown>() };
    };
  });
  afterAll(async () => {
    await receiver.close();
    await s.close();
  });

  /** Verifies a /v1 delivery as a Stripe receiver does (throws StripeSignatureVerificationError). */
  const verify = (d: Delivery, secret: string): Stripe.Event => {
    const header = d.headers['stripe-signature'];
    if (typeof header !== 'string') throw new Error('no Stripe-Signature header');
    return stripe.webhooks.constructEvent(d.body, header, secret);
  };

  /** Writes one event with both sides, as a confirmed intent's payment does (a stand-in until intents emit it). */
  const emitBothSides = async (): Promise<string> => {
    const events = s.t.app.get(PaymentEvents);
    const data = PAYMENT_EVENT_KINDS['payment.succeeded'].example();
    const intent = {
      id: 'pi_standin',
      object: 'payment_intent',
      amount: data.amount,
      currency: data.currency,
      status: 'succeeded',
    };
    return s.t.app.get(TransactionRunner).run((_tx, closing) =>
      Promise.resolve(
        events.emit(closing, { accountId: s.accountId, mode: 'test' }, 'payment.succeeded', data, {
          type: 'payment_intent.succeeded',
          object: intent,
        }),
      ),
    );
  };

  it('creates, retrieves, lists, updates and deletes an endpoint in Stripe shape; the secret shows once', async () => {
    const created = await stripe.webhookEndpoints.create({
      url: receiver.url('/crud'),
      enabled_events: ['customer.created', 'payment_intent.succeeded'],
      description: 'orders service',
      metadata: { team: 'payments', env: 'staging' },
      api_version: '2020-08-27',
    });
    expect(created).toMatchObject({
      object: 'webhook_endpoint',
      application: null,
      description: 'orders service',
      enabled_events: ['customer.created', 'payment_intent.succeeded'],
      livemode: false,
      metadata: { team: 'payments', env: 'staging' },
      status: 'enabled',
      url: receiver.url('/crud'),
      api_version: '2026-10-28.endive',
    });
    expect(created.id).toMatch(/^we_/);
    expect(created.secret).toMatch(/^whsec_/);
    expect(Number.isInteger(created.created)).toBe(true);

    const { secret: _secret, ...withoutSecret } = created;
    const fetched = await stripe.webhookEndpoints.retrieve(created.id);
    expect(fetched.secret).toBeUndefined();
    expect(fetched).toEqual(withoutSecret);

    const updated = await stripe.webhookEndpoints.update(created.id, {
      disabled: true,
      enabled_events: ['*'],
      description: '',
      metadata: { env: '', region: 'eu' },
    });
    expect(updated).toMatchObject({
      status: 'disabled',
      enabled_events: ['*'],
      description: null,
      metadata: { team: 'payments', region: 'eu' },
    });
    expect((await stripe.webhookEndpoints.update(created.id, { disabled: false, metadata: '' })).metadata).toEqual({});
    expect((await stripe.webhookEndpoints.retrieve(created.id)).status).toBe('enabled');

    // at most 50 keys once merged: a merge past it changes nothing
    const keys = (prefix: string, n: number): Record<string, string> =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 'v']));
    await stripe.webhookEndpoints.update(created.id, { metadata: keys('a', 30) });
    const tooMany = await stripeRejection(stripe.webhookEndpoints.update(created.id, { metadata: keys('b', 25) }));
    expect(tooMany).toMatchObject({ statusCode: 400, param: 'metadata' });
    expect(Object.keys((await stripe.webhookEndpoints.retrieve(created.id)).metadata)).toHaveLength(30);
    await stripe.webhookEndpoints.update(created.id, { metadata: '' });

    const second = await stripe.webhookEndpoints.create({ url: receiver.url('/crud2'), enabled_events: ['*'] });
    const third = await stripe.webhookEndpoints.create({ url: receiver.url('/crud3'), enabled_events: ['refund.created'] });
    const all = await stripe.webhookEndpoints.list({ limit: 2 }).autoPagingToArray({ limit: 100 });
    expect(all.map((e) => e.id).slice(0, 3)).toEqual([third.id, second.id, created.id]);
    const page = await stripe.webhookEndpoints.list({ limit: 1, starting_after: third.id });
    expect(page).toMatchObject({ object: 'list', has_more: true, url: '/v1/webhook_endpoints' });
    expect(page.data.map((e) => e.id)).toEqual([second.id]);
    const newer = await stripe.webhookEndpoints.list({ limit: 5, ending_before: created.id });
    expect(newer.data.map((e) => e.id)).toEqual([third.id, second.id]);

    for (const e of [created, second, third]) {
      expect(await stripe.webhookEndpoints.del(e.id)).toEqual({ id: e.id, object: 'webhook_endpoint', deleted: true });
    }
    const gone = await stripeRejection(stripe.webhookEndpoints.retrieve(created.id));
    expect(gone).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(gone).toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it('replays a create under the same Idempotency-Key (the same endpoint and secret), and refuses the key with another body', async () => {
    const params = { url: receiver.url('/idem'), enabled_events: ['customer.created' as const] };
    const first = await stripe.webhookEndpoints.create(params, { idempotencyKey: 'we-create-0001' });
    const again = await stripe.webhookEndpoints.create(params, { idempotencyKey: 'we-create-0001' });
    expect(again).toEqual(first);
    expect(again.secret).toMatch(/^whsec_/);
    const mine = (await stripe.webhookEndpoints.list({ limit: 100 })).data.filter((e) => e.url === receiver.url('/idem'));
    expect(mine.map((e) => e.id)).toEqual([first.id]);
    const reused = await stripeRejection(
      stripe.webhookEndpoints.create({ ...params, description: 'other body' }, { idempotencyKey: 'we-create-0001' }),
    );
    expect(reused).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    // an update replays too, and the replay changes nothing more
    const update = { metadata: { n: '1' } };
    const updated = await stripe.webhookEndpoints.update(first.id, update, { idempotencyKey: 'we-update-0001' });
    await stripe.webhookEndpoints.update(first.id, { metadata: { n: '2' } });
    expect(await stripe.webhookEndpoints.update(first.id, update, { idempotencyKey: 'we-update-0001' })).toEqual(updated);
    expect((await stripe.webhookEndpoints.retrieve(first.id)).metadata).toEqual({ n: '2' });
    await stripe.webhookEndpoints.del(first.id);
  });

  it('refuses what Stripe refuses, and what this API does not send, naming the parameter', async () => {
    const missing = await stripeRejection(
      stripe.webhookEndpoints.create({ url: receiver.url('/x') } as Stripe.WebhookEndpointCreateParams),
    );
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing).toMatchObject({ statusCode: 400, param: 'enabled_events' });

    const charge = await stripeRejection(
      stripe.webhookEndpoints.create({ url: receiver.url('/x'), enabled_events: ['customer.created', 'charge.succeeded'] }),
    );
    expect(charge).toMatchObject({ statusCode: 400, param: 'enabled_events[1]' });
    expect(charge.message).toContain('charge.succeeded');

    const scheme = await stripeRejection(
      stripe.webhookEndpoints.create({ url: 'ftp://example.com/hook', enabled_events: ['*'] }),
    );
    expect(scheme).toMatchObject({ statusCode: 400, code: 'webhook_url_invalid', param: 'url' });

    const unknown = await stripeRejection(
      stripe.webhookEndpoints.create({
        url: receiver.url('/x'),
        enabled_events: ['*'],
        rate_limit_per_second: 5,
      } as Stripe.WebhookEndpointCreateParams),
    );
    expect(unknown).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'rate_limit_per_second' });

    const connect = await stripeRejection(
      stripe.webhookEndpoints.create({ url: receiver.url('/x'), enabled_events: ['*'], connect: true }),
    );
    expect(connect).toMatchObject({ statusCode: 400, param: 'connect' });
    // nothing was made by any of these
    expect((await stripe.webhookEndpoints.list()).data.filter((e) => e.url === receiver.url('/x'))).toEqual([]);
  });

  it('delivers /v1 types to a /v1 endpoint and /v2 kinds to a /v2 endpoint, one stored event seen by both, each /v1 delivery verified by constructEvent', async () => {
    const v1Endpoint = await stripe.webhookEndpoints.create({
      url: receiver.url('/v1hook'),
      enabled_events: ['customer.created', 'payment_intent.succeeded'],
    });
    const secret = v1Endpoint.secret ?? '';
    const v2Endpoint = await v2('POST', '/v2/webhook-endpoints', { url: receiver.url('/v2hook'), events: ['*'] });
    expect(v2Endpoint.status).toBe(201);

    // customer.* exists on /v1 only; customer.updated is not in the endpoint's filter
    const customer = await stripe.customers.create({ email: 'hooks@example.com', metadata: { plan: 'pro' } });
    await stripe.customers.update(customer.id, { name: 'Hook Receiver' });
    // a /v2 payment is not an intent: /v2 only
    const payment = await v2('POST', '/v2/payments', { amount: 1500, currency: 'gbp', customer_id: customer.id });
    expect(payment.status).toBe(201);
    const paymentId = (payment.body as { id: string }).id;
    // an event both APIs have: one row
    const both = await emitBothSides();

    const v1Got = await waitFor('the /v1 deliveries', () => {
      const got = receiver.at('/v1hook');
      return got.length >= 2 && got;
    });
    const v2Got = await waitFor('the /v2 deliveries of the payment and the shared event', () => {
      const got = receiver.at('/v2hook').map((d) => JSON.parse(d.body) as V2Envelope);
      return got.some((e) => e.id === both) && got.some((e) => e.data.id === paymentId) && got;
    });

    // every /v1 delivery verifies with the endpoint's secret; Stripe's event shape with data.object
    const v1Events = v1Got.map((d) => verify(d, secret));
    expect(v1Events.map((e) => e.type).sort()).toEqual(['customer.created', 'payment_intent.succeeded']);
    const created = v1Events.find((e) => e.type === 'customer.created');
    expect(created).toMatchObject({
      object: 'event',
      api_version: '2026-10-28.endive',
      livemode: false,
      data: { object: { id: customer.id, object: 'customer', email: 'hooks@example.com', metadata: { plan: 'pro' } } },
    });
    expect(created?.id).toMatch(/^evt_/);
    for (const d of v1Got) {
      expect(d.headers['webhook-signature']).toBeUndefined();
      expect(d.headers['service-signature']).toBeUndefined();
    }
    // a tampered delivery is refused
    const original = v1Got[0];
    const tampered = { ...original, body: original.body.replace('"livemode":false', '"livemode":true') };
    expect(tampered.body).not.toBe(original.body);
    expect(() => verify(tampered, secret)).toThrow(Stripe.errors.StripeSignatureVerificationError);
    expect(() => verify(original, 'whsec_not_the_secret')).toThrow(Stripe.errors.StripeSignatureVerificationError);

    // the shared event: the same id on both sides, each in its API's name and shape
    const shared = v1Events.find((e) => e.type === 'payment_intent.succeeded');
    expect(shared?.id).toBe(both);
    expect(shared?.data.object).toMatchObject({ id: 'pi_standin', object: 'payment_intent' });
    const sharedV2 = v2Got.find((e) => e.id === both);
    expect(sharedV2?.event).toBe('payment.succeeded');
    expect(v2Got.every((e) => !e.event.startsWith('customer.') && !e.event.startsWith('payment_intent.'))).toBe(true);
    const prisma = s.t.app.get(PrismaService);
    const rows = await prisma.webhookEvent.findMany({ where: { id: both } });
    expect(rows.map((r) => [r.event, r.dialectEvent])).toEqual([['payment.succeeded', 'payment_intent.succeeded']]);

    // the fan-out's record: the /v1 endpoint got exactly these two events, the /v2 one no /v1-only event
    const v1Deliveries = await prisma.webhookDelivery.findMany({
      where: { endpointId: v1Endpoint.id },
      include: { event: true },
    });
    expect(v1Deliveries.map((d) => d.event.dialectEvent).sort()).toEqual(['customer.created', 'payment_intent.succeeded']);
    const v2Id = (v2Endpoint.body as { id: string }).id;
    const v2Deliveries = await prisma.webhookDelivery.findMany({ where: { endpointId: v2Id }, include: { event: true } });
    expect(v2Deliveries.every((d) => d.event.event !== null)).toBe(true);
    // the /v2 delivery log names the /v2 kind of the shared event
    const log = await v2('GET', `/v2/webhook-endpoints/${v2Id}/deliveries?limit=100`);
    expect((log.body as { data: Array<{ event_id: string; event: string }> }).data.find((d) => d.event_id === both)?.event).toBe(
      'payment.succeeded',
    );

    await stripe.webhookEndpoints.del(v1Endpoint.id);
    await v2('DELETE', `/v2/webhook-endpoints/${v2Id}`);
  });

  it('keeps /v1 and /v2 endpoints apart: neither lists, reads or changes the other', async () => {
    const v1Endpoint = await stripe.webhookEndpoints.create({ url: receiver.url('/apart1'), enabled_events: ['*'] });
    const made = await v2('POST', '/v2/webhook-endpoints', { url: receiver.url('/apart2') });
    const v2Id = (made.body as { id: string }).id;

    const v2List = (await v2('GET', '/v2/webhook-endpoints')).body as { data: Array<{ id: string }> };
    expect(v2List.data.map((e) => e.id)).toContain(v2Id);
    expect(v2List.data.map((e) => e.id)).not.toContain(v1Endpoint.id);
    for (const [method, path, payload] of [
      ['GET', '', undefined],
      ['PATCH', '', { description: 'x' }],
      ['POST', '/rotate-secret', undefined],
      ['POST', '/enable', undefined],
      ['POST', '/test', {}],
      ['GET', '/deliveries', undefined],
      ['GET', '/stats', undefined],
      ['POST', '/recover', { since: '2026-01-01T00:00:00Z' }],
      ['DELETE', '', undefined],
    ] as const) {
      const res = await v2(method, `/v2/webhook-endpoints/${v1Endpoint.id}${path}`, payload);
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }

    const v1List = await stripe.webhookEndpoints.list({ limit: 100 });
    expect(v1List.data.map((e) => e.id)).toContain(v1Endpoint.id);
    expect(v1List.data.map((e) => e.id)).not.toContain(v2Id);
    for (const call of [
      stripe.webhookEndpoints.retrieve(v2Id),
      stripe.webhookEndpoints.update(v2Id, { description: 'x' }),
      stripe.webhookEndpoints.del(v2Id),
    ]) {
      expect(await stripeRejection(call)).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    }
    const cursor = await stripeRejection(stripe.webhookEndpoints.list({ starting_after: v2Id }));
    expect(cursor).toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'starting_after' });

    // both still there, unchanged
    expect((await stripe.webhookEndpoints.retrieve(v1Endpoint.id)).status).toBe('enabled');
    expect((await v2('GET', `/v2/webhook-endpoints/${v2Id}`)).status).toBe(200);
    // a live key sees none of the test endpoints, nor does another account reach one
    const live = s.sdk(s.liveKey);
    expect((await live.webhookEndpoints.list()).data).toEqual([]);
    const foreign = s.sdk((await s.newAccount('Endpoint thief')).secretKey);
    for (const sdk of [live, foreign]) {
      for (const call of [
        sdk.webhookEndpoints.retrieve(v1Endpoint.id),
        sdk.webhookEndpoints.update(v1Endpoint.id, { url: receiver.url('/stolen') }),
        sdk.webhookEndpoints.del(v1Endpoint.id),
      ]) {
        expect(await stripeRejection(call)).toMatchObject({ statusCode: 404, code: 'resource_missing' });
      }
    }
    expect((await stripe.webhookEndpoints.retrieve(v1Endpoint.id)).url).toBe(receiver.url('/apart1'));

    await stripe.webhookEndpoints.del(v1Endpoint.id);
    await v2('DELETE', `/v2/webhook-endpoints/${v2Id}`);
  });

  it('lists and retrieves events by type, prefix, types[] and created; /v2/events has none of the /v1-only ones', async () => {
    const other = await s.newAccount('Events shop');
    const shop = s.sdk(other.secretKey);
    const headers = { authorization: `Bearer ${other.secretKey}` };
    const since = Math.floor(Date.now() / 1000) - 1;
    const customers: string[] = [];
    for (let i = 0; i < 5; i += 1) customers.push((await shop.customers.create({ email: `c${i}@example.com` })).id);
    await shop.customers.update(customers[0] ?? '', { name: 'Renamed' });
    const payment = await s.t.app.inject({
      method: 'POST',
      url: '/v2/payments',
      headers,
      payload: { amount: 700, currency: 'usd', customer_id: customers[1] },
    });
    expect(payment.statusCode).toBe(201);

    // newest first, across pages of 2, every customer.created exactly once
    const createdEvents = await shop.events.list({ type: 'customer.created', limit: 2 }).autoPagingToArray({ limit: 100 });
    expect(createdEvents.map((e) => (e.data.object as { id: string }).id)).toEqual([...customers].reverse());
    expect(createdEvents.every((e) => e.object === 'event' && e.type === 'customer.created')).toBe(true);

    const prefixed = await shop.events.list({ type: 'customer.*', limit: 100 });
    expect(prefixed.data.map((e) => e.type).sort()).toEqual(
      [...Array<string>(5).fill('customer.created'), 'customer.updated'].sort(),
    );
    expect(prefixed.data[0]).toMatchObject({
      type: 'customer.updated',
      data: { object: { id: customers[0], name: 'Renamed' }, previous_attributes: { name: null } },
    });
    const typed = await shop.events.list({ types: ['customer.updated', 'refund.created'] });
    expect(typed.data.map((e) => e.type)).toEqual(['customer.updated']);
    // a type this API never sends matches nothing (not an error)
    expect((await shop.events.list({ type: 'charge.succeeded' })).data).toEqual([]);

    const recent = await shop.events.list({ created: { gte: since }, limit: 100 });
    expect(recent.data).toHaveLength(6);
    const future = await shop.events.list({ created: { gt: since + 3600 } });
    expect(future.data).toEqual([]);
    // the /v2 payment's payment.succeeded is not a /v1 event
    expect(recent.data.some((e) => e.type.startsWith('payment'))).toBe(false);

    const first = createdEvents[createdEvents.length - 1];
    expect(await shop.events.retrieve(first.id)).toEqual(first);

    // /v2/events: only the /v2 payment's event; neither lists nor reads a /v1-only one
    const v2Events = await s.t.app.inject({ method: 'GET', url: '/v2/events?limit=100', headers });
    const v2Data = v2Events.json<{ data: Array<{ id: string; event: string }> }>().data;
    expect(v2Data.map((e) => e.event)).toEqual(['payment.succeeded']);
    const v2Read = await s.t.app.inject({ method: 'GET', url: `/v2/events/${first.id}`, headers });
    expect(v2Read.statusCode).toBe(404);
    // ...and /v1 does not read the /v2-only one
    const v2Only = v2Data[0]?.id ?? '';
    expect(await stripeRejection(shop.events.retrieve(v2Only))).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    const badCursor = await stripeRejection(shop.events.list({ starting_after: v2Only }));
    expect(badCursor).toMatchObject({ statusCode: 400, param: 'starting_after' });

    // another account, or the live mode, sees none of them
    expect(await stripeRejection(stripe.events.retrieve(first.id))).toMatchObject({ statusCode: 404 });
    expect((await s.sdk(other.liveKey).events.list({ limit: 100 })).data).toEqual([]);
  });

  it('answers malformed parameters with a 400 naming one, never a 5xx', async () => {
    const form = { authorization: `Bearer ${s.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' };
    const hook = encodeURIComponent(receiver.url('/bad'));
    const cases: Array<[string, string, string | undefined, string]> = [
      ['POST', '/v1/webhook_endpoints', `url[]=${hook}&enabled_events[]=*`, 'url'],
      ['POST', '/v1/webhook_endpoints', `url=${hook}&enabled_events[a][b]=x`, 'enabled_events[0]'],
      ['POST', '/v1/webhook_endpoints', `url=${hook}&enabled_events=`, 'enabled_events'],
      ['POST', '/v1/webhook_endpoints', `url=${hook}&enabled_events[]=*&metadata=abc`, 'metadata'],
      ['POST', '/v1/webhook_endpoints', `url=${hook}&enabled_events[]=*&metadata[k][x]=1`, 'metadata[k]'],
      ['POST', '/v1/webhook_endpoints', `url=${hook}&enabled_events[]=*&description=${'d'.repeat(501)}`, 'description'],
      ['POST', '/v1/webhook_endpoints', `url=&enabled_events[]=*`, 'url'],
      ['POST', '/v1/webhook_endpoints', `url=${hook}&enabled_events[]=*&expand[]=secret`, 'expand[0]'],
      ['GET', '/v1/webhook_endpoints?limit=abc', undefined, 'limit'],
      ['GET', '/v1/webhook_endpoints?limit=1000', undefined, 'limit'],
      ['GET', '/v1/events?created[foo]=1', undefined, 'created[foo]'],
      ['GET', '/v1/events?created=yesterday', undefined, 'created'],
      ['GET', '/v1/events?type=customer.created&types[]=refund.created', undefined, 'types'],
      ['GET', `/v1/events?${Array.from({ length: 21 }, (_, i) => `types[]=t${i}`).join('&')}`, undefined, 'types'],
      ['GET', '/v1/events?delivery_success=true', undefined, 'delivery_success'],
      ['GET', '/v1/events?starting_after=evt_a&ending_before=evt_b', undefined, 'ending_before'],
      ['GET', '/v1/events/evt_nope?expand[]=data', undefined, 'expand[0]'],
    ];
    for (const [method, url, payload, param] of cases) {
      const res = await s.t.app.inject({
        method: method as 'GET' | 'POST',
        url,
        headers: form,
        ...(payload === undefined ? {} : { payload }),
      });
      const error = res.json<{ error?: { param?: string } }>().error;
      expect([method, url, res.statusCode, error?.param]).toEqual([method, url, 400, param]);
    }
  });

  it("holds a restricted key's permissions: webhooks for endpoints, events for events", async () => {
    const made = await s.t.app.inject({
      method: 'POST',
      url: '/v2/api-keys',
      headers: { authorization: `Bearer ${s.secretKey}` },
      payload: { name: 'event reader', mode: 'test', permissions: { events: 'read', webhooks: 'read' } },
    });
    expect(made.statusCode).toBe(201);
    const rk = s.sdk(made.json<{ secret: string }>().secret);
    await expect(rk.events.list({ limit: 1 })).resolves.toMatchObject({ object: 'list' });
    await expect(rk.webhookEndpoints.list({ limit: 1 })).resolves.toMatchObject({ object: 'list' });
    const denied = await stripeRejection(rk.webhookEndpoints.create({ url: receiver.url('/rk'), enabled_events: ['*'] }));
    expect(denied).toBeInstanceOf(Stripe.errors.StripePermissionError);

    const none = await s.t.app.inject({
      method: 'POST',
      url: '/v2/api-keys',
      headers: { authorization: `Bearer ${s.secretKey}` },
      payload: { name: 'customers only', mode: 'test', permissions: { customers: 'write' } },
    });
    const customersOnly = s.sdk(none.json<{ secret: string }>().secret);
    expect(await stripeRejection(customersOnly.events.list())).toBeInstanceOf(Stripe.errors.StripePermissionError);
    expect(await stripeRejection(customersOnly.webhookEndpoints.list())).toBeInstanceOf(Stripe.errors.StripePermissionError);
  });
});
