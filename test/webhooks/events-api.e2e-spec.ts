/**
 * Platform contract, "Events API" and "Webhooks, more", over HTTP on the real apps: the
 * events API of offers (/api/v1/events) and payments (/v2/events), the event-type
 * catalogue, endpoint updates, test events, and retention.
 */
import { PrismaService } from '@app/platform';
import { Webhook } from 'standardwebhooks';
import { OutboxDispatcher } from '../../libs/webhooks/src/delivery/outbox-dispatcher';
import { newAccount, newCustomer, type PaymentsApp, startPayments } from '../payments-api/payments-context';
import { type ErrorJson, type OfferJson, OffersContext, type Partner, startOffers, waitFor } from '../offers-api/fixtures';
import { catalogueChecker, type EventTypeJson } from '../support/event-catalogue';
import { Receiver } from './support/receiver';

interface EventJson {
  id: string;
  object: string;
  event: string;
  timestamp: string;
  data: Record<string, unknown>;
}
interface ListJson<T> {
  object: string;
  data: T[];
  has_more: boolean;
}
interface EndpointJson {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  rate_limit_per_second: number | null;
  status: string;
  disabled_reason: string | null;
  secret?: string;
}

const OFFER_KINDS = [
  'offer.opened',
  'offer.closing_soon',
  'offer.closed',
  'indication.received',
  'indication.updated',
  'allocation.confirmed',
  'allocation.scaled',
];

describe('offers-api: events API, catalogue, endpoint updates, test events', () => {
  let ctx: OffersContext;
  let alice: Partner;
  let bob: Partner;
  let offer: OfferJson;
  let receiver: Receiver;
  const indicationIds: string[] = [];

  const get = <T>(url: string, p: Partner) =>
    ctx.inject({ method: 'GET', url, headers: p.auth }).then((r) => ({ r, body: r.json<T>() }));
  const error = (r: { json<T>(): T }) => r.json<ErrorJson>().error;

  beforeAll(async () => {
    receiver = await Receiver.start();
    ctx = new OffersContext(await startOffers({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }));
    alice = await ctx.newPartner('Alice Invest');
    bob = await ctx.newPartner('Bob Shares');
    await ctx.publishTerms('tc-1');
    // opens in a moment, so that the lifecycle worker emits offer.opened for both partners
    offer = await ctx.newOffer({ opens_at: new Date(Date.now() + 1_500).toISOString() });
    await ctx.share(alice, offer.id);
    await ctx.share(bob, offer.id);
    await waitFor('offer.opened of alice', async () =>
      (await ctx.events(alice.id, 'offer.opened')).length > 0 ? true : undefined,
    );
    for (const investor of ['inv_1', 'inv_2', 'inv_3']) {
      const res = await ctx.indicate(alice, offer.id, {
        investor_id: investor,
        amount: 100_000,
        currency: 'gbp',
        terms_accepted: true,
        terms_version: 'tc-1',
      });
      ctx.expectStatus(res, 201);
      indicationIds.push(res.json<{ id: string }>().id);
    }
  });
  afterAll(async () => {
    await ctx.t.close();
    await receiver.close();
  });

  describe('GET /api/v1/events', () => {
    it('lists every event of the partner, newest first, as the webhook envelope plus object', async () => {
      const { r, body } = await get<ListJson<EventJson>>('/api/v1/events?limit=100', alice);
      expect(r.statusCode).toBe(200);
      expect(body.object).toBe('list');
      expect(body.has_more).toBe(false);
      const outbox = await ctx.events(alice.id);
      expect(body.data.map((e) => e.event).sort()).toEqual(outbox.map((e) => e.event).sort());
      const received = body.data.filter((e) => e.event === 'indication.received');
      expect(received.map((e) => e.data['id'])).toEqual([...indicationIds].reverse());
      for (const e of body.data) {
        expect(Object.keys(e).sort()).toEqual(['data', 'event', 'id', 'object', 'timestamp']);
        expect(e.object).toBe('event');
        expect(e.id).toMatch(/^evt_/);
      }
      const times = body.data.map((e) => Date.parse(e.timestamp));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
    });

    it('gets one event; another partner gets 404 for it and never sees it', async () => {
      const list = (await get<ListJson<EventJson>>('/api/v1/events', alice)).body;
      const first = list.data[0];
      const one = await get<EventJson>(`/api/v1/events/${first.id}`, alice);
      expect(one.r.statusCode).toBe(200);
      expect(one.body).toEqual(first);
      const theirs = await get<EventJson>(`/api/v1/events/${first.id}`, bob);
      expect(theirs.r.statusCode).toBe(404);
      expect(error(theirs.r).code).toBe('resource_missing');
      const bobs = (await get<ListJson<EventJson>>('/api/v1/events?limit=100', bob)).body.data;
      expect(bobs.map((e) => e.event)).toEqual(['offer.opened']);
      expect(bobs.map((e) => e.id)).not.toContain(first.id);
      // a cursor naming another partner's event is refused, not followed
      const cursor = await get<ListJson<EventJson>>(`/api/v1/events?starting_after=${first.id}`, bob);
      expect(cursor.r.statusCode).toBe(400);
      expect(error(cursor.r)).toMatchObject({ code: 'resource_missing', param: 'starting_after' });
      const missing = await get<EventJson>('/api/v1/events/evt_nope', alice);
      expect(missing.r.statusCode).toBe(404);
    });

    it('filters by exact type and by prefix.*; an unknown type is a 400 naming the kinds', async () => {
      const exact = (await get<ListJson<EventJson>>('/api/v1/events?type=indication.received&limit=100', alice)).body;
      expect(exact.data.map((e) => e.event)).toEqual(['indication.received', 'indication.received', 'indication.received']);
      const prefix = (await get<ListJson<EventJson>>('/api/v1/events?type=offer.*&limit=100', alice)).body;
      expect(prefix.data.length).toBeGreaterThan(0);
      expect(prefix.data.every((e) => e.event.startsWith('offer.'))).toBe(true);
      const star = (await get<ListJson<EventJson>>('/api/v1/events?type=*&limit=100', alice)).body;
      expect(star.data).toHaveLength(exact.data.length + prefix.data.length);
      for (const bad of ['payment.succeeded', 'nothing.*', 'offer.', 'OFFER.opened']) {
        const res = await get<ListJson<EventJson>>(`/api/v1/events?type=${encodeURIComponent(bad)}`, alice);
        expect(res.r.statusCode).toBe(400);
        expect(error(res.r).param).toBe('type');
      }
    });

    it('filters by created[gte] and created[lte] (ISO 8601 or Unix seconds)', async () => {
      const all = (await get<ListJson<EventJson>>('/api/v1/events?type=indication.received&limit=100', alice)).body.data;
      const middle = all[1];
      const gte = (
        await get<ListJson<EventJson>>(
          `/api/v1/events?type=indication.received&created[gte]=${encodeURIComponent(middle.timestamp)}`,
          alice,
        )
      ).body.data;
      expect(gte.map((e) => e.id)).toEqual(all.filter((e) => e.timestamp >= middle.timestamp).map((e) => e.id));
      const lte = (
        await get<ListJson<EventJson>>(
          `/api/v1/events?type=indication.received&created%5Blte%5D=${encodeURIComponent(middle.timestamp)}`,
          alice,
        )
      ).body.data;
      expect(lte.map((e) => e.id)).toEqual(all.filter((e) => e.timestamp <= middle.timestamp).map((e) => e.id));
      const future = Math.floor(Date.now() / 1000) + 3600;
      expect((await get<ListJson<EventJson>>(`/api/v1/events?created[gte]=${future}`, alice)).body.data).toEqual([]);
      const bad = await get<ListJson<EventJson>>('/api/v1/events?created[gte]=yesterday', alice);
      expect(bad.r.statusCode).toBe(400);
      expect(error(bad.r).param).toBe('created[gte]');
    });

    it('pages with limit, starting_after and ending_before', async () => {
      const all = (await get<ListJson<EventJson>>('/api/v1/events?limit=100', alice)).body.data;
      expect(all.length).toBeGreaterThanOrEqual(4);
      const ids = all.map((e) => e.id);
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = (await get<ListJson<EventJson>>(`/api/v1/events?limit=2${after ? `&starting_after=${after}` : ''}`, alice))
          .body;
        seen.push(...page.data.map((e) => e.id));
        if (!page.has_more) break;
        after = page.data.at(-1)?.id;
      }
      expect(seen).toEqual(ids);
      const before = (await get<ListJson<EventJson>>(`/api/v1/events?limit=2&ending_before=${ids[3]}`, alice)).body;
      expect(before.data.map((e) => e.id)).toEqual(ids.slice(1, 3));
      expect(before.has_more).toBe(true);
      const defaults = (await get<ListJson<EventJson>>('/api/v1/events', alice)).body;
      expect(defaults.data.length).toBe(Math.min(10, ids.length));
      for (const q of ['limit=0', 'limit=101', `starting_after=${ids[0]}&ending_before=${ids[1]}`]) {
        const res = await get<ListJson<EventJson>>(`/api/v1/events?${q}`, alice);
        expect(res.r.statusCode).toBe(400);
      }
    });

    it('requires a partner token', async () => {
      const res = await ctx.inject({ method: 'GET', url: '/api/v1/events' });
      expect(res.statusCode).toBe(401);
    });
  });

  describe('GET /api/v1/webhook-endpoints/event-types', () => {
    it('lists every kind with a description, a JSON Schema and an example envelope that validates against it', async () => {
      const { r, body } = await get<ListJson<EventTypeJson>>('/api/v1/webhook-endpoints/event-types', alice);
      expect(r.statusCode).toBe(200);
      expect(body.data.map((k) => k.type)).toEqual(OFFER_KINDS);
      const check = catalogueChecker(body.data);
      for (const kind of body.data) {
        expect(kind.object).toBe('webhook_event_type');
        expect(kind.description.length).toBeGreaterThan(10);
        expect(kind.example).toMatchObject({ event: kind.type });
        expect(Object.keys(kind.example).sort()).toEqual(['data', 'event', 'id', 'timestamp']);
        expect(check(kind.type, kind.example.data)).toBe('');
        // the schemas are strict: a field the class does not declare, or a missing one, fails
        expect(check(kind.type, { ...kind.example.data, surprise: 1 })).not.toBe('');
        const firstKey = Object.keys(kind.example.data)[0];
        const { [firstKey]: _dropped, ...missing } = kind.example.data;
        expect(check(kind.type, missing)).not.toBe('');
      }
    });

    it('describes the events the flows really emit: every listed event validates against its kind', async () => {
      const kinds = (await get<ListJson<EventTypeJson>>('/api/v1/webhook-endpoints/event-types', alice)).body.data;
      const check = catalogueChecker(kinds);
      const events = (await get<ListJson<EventJson>>('/api/v1/events?limit=100', alice)).body.data;
      expect(new Set(events.map((e) => e.event))).toEqual(new Set(['offer.opened', 'indication.received']));
      for (const e of events) expect(check(e.event, e.data)).toBe('');
    });
  });

  describe('endpoints: "*", description, rate_limit_per_second, PATCH', () => {
    const create = (p: Partner, payload: Record<string, unknown>) =>
      ctx.inject({ method: 'POST', url: '/api/v1/webhook-endpoints', headers: p.auth, payload });
    const patch = (p: Partner, id: string, payload: Record<string, unknown>) =>
      ctx.inject({ method: 'PATCH', url: `/api/v1/webhook-endpoints/${id}`, headers: p.auth, payload });

    it('creates with "*" by default, a description and a rate limit', async () => {
      const plain = await create(alice, { url: receiver.url });
      expect(plain.statusCode).toBe(201);
      expect(plain.json<EndpointJson>()).toMatchObject({ events: ['*'], description: null, rate_limit_per_second: null });
      const full = await create(alice, {
        url: receiver.url,
        events: ['indication.received', '*'],
        description: 'CRM sync',
        rate_limit_per_second: 5,
      });
      expect(full.statusCode).toBe(201);
      expect(full.json<EndpointJson>()).toMatchObject({ events: ['*'], description: 'CRM sync', rate_limit_per_second: 5 });
      for (const [payload, param] of [
        [{ url: receiver.url, rate_limit_per_second: 0 }, 'rate_limit_per_second'],
        [{ url: receiver.url, rate_limit_per_second: 10_001 }, 'rate_limit_per_second'],
        [{ url: receiver.url, rate_limit_per_second: 1.5 }, 'rate_limit_per_second'],
        [{ url: receiver.url, description: 'x'.repeat(501) }, 'description'],
        [{ url: receiver.url, events: ['offer.*'] }, 'events[0]'],
      ] as const) {
        const res = await create(alice, payload);
        expect(res.statusCode).toBe(400);
        expect(error(res).param).toBe(param);
      }
      for (const id of [plain.json<EndpointJson>().id, full.json<EndpointJson>().id]) {
        await ctx.inject({ method: 'DELETE', url: `/api/v1/webhook-endpoints/${id}`, headers: alice.auth });
      }
    });

    it('updates url, events, description, rate limit and disabled; only the fields sent change', async () => {
      const created = (await create(alice, { url: receiver.url, events: ['offer.opened'] })).json<EndpointJson>();
      const url2 = `${receiver.url}?v=2`;
      const res = await patch(alice, created.id, {
        url: url2,
        events: ['offer.closed', 'indication.received', 'offer.closed'],
        description: 'ops',
        rate_limit_per_second: 20,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json<EndpointJson>()).toMatchObject({
        id: created.id,
        url: url2,
        events: ['indication.received', 'offer.closed'],
        description: 'ops',
        rate_limit_per_second: 20,
        status: 'enabled',
      });
      expect(res.json<EndpointJson>().secret).toBeUndefined();
      const cleared = await patch(alice, created.id, { description: null, rate_limit_per_second: null, events: ['*'] });
      expect(cleared.json<EndpointJson>()).toMatchObject({
        url: url2,
        events: ['*'],
        description: null,
        rate_limit_per_second: null,
      });
      const off = await patch(alice, created.id, { disabled: true });
      expect(off.json<EndpointJson>()).toMatchObject({ status: 'disabled', disabled_reason: 'disabled by its owner' });
      const on = await patch(alice, created.id, { disabled: false });
      expect(on.json<EndpointJson>()).toMatchObject({ status: 'enabled', disabled_reason: null });
      const same = await patch(alice, created.id, {});
      expect(same.statusCode).toBe(200);
      expect(same.json<EndpointJson>()).toEqual(on.json<EndpointJson>());
      const read = await get<EndpointJson>(`/api/v1/webhook-endpoints/${created.id}`, alice);
      expect(read.body).toEqual(on.json<EndpointJson>());
      await ctx.inject({ method: 'DELETE', url: `/api/v1/webhook-endpoints/${created.id}`, headers: alice.auth });
    });

    it('refuses a bad update with the parameter, and another partner gets 404', async () => {
      const created = (await create(alice, { url: receiver.url })).json<EndpointJson>();
      for (const [payload, param, code] of [
        [{ url: 'ftp://example.com/hook' }, 'url', 'webhook_url_invalid'],
        [{ url: 'http://user:pw@example.com/hook' }, 'url', 'webhook_url_invalid'],
        [{ url: null }, 'url', 'parameter_invalid'],
        [{ events: [] }, 'events', 'parameter_invalid'],
        [{ events: ['nope.event'] }, 'events[0]', 'parameter_invalid'],
        [{ disabled: 'yes' }, 'disabled', 'parameter_invalid'],
        [{ rate_limit_per_second: 0 }, 'rate_limit_per_second', 'parameter_invalid'],
        [{ secret: 'whsec_mine' }, 'secret', 'parameter_unknown'],
      ] as const) {
        const res = await patch(alice, created.id, payload);
        expect({ status: res.statusCode, param: error(res).param }).toEqual({ status: 400, param });
        expect(error(res).code).toBe(code);
      }
      const theirs = await patch(bob, created.id, { description: 'mine now' });
      expect(theirs.statusCode).toBe(404);
      const theirsBadUrl = await patch(bob, created.id, { url: 'ftp://x' });
      expect(theirsBadUrl.statusCode).toBe(404);
      expect((await get<EndpointJson>(`/api/v1/webhook-endpoints/${created.id}`, alice)).body.description).toBeNull();
      await ctx.inject({ method: 'DELETE', url: `/api/v1/webhook-endpoints/${created.id}`, headers: alice.auth });
    });

    it('a disabled endpoint gets nothing; "*" gets every kind', async () => {
      const star = (await create(alice, { url: `${receiver.url}?star` })).json<EndpointJson>();
      const off = (await create(alice, { url: `${receiver.url}?off` })).json<EndpointJson>();
      expect((await patch(alice, off.id, { disabled: true })).statusCode).toBe(200);
      const res = await ctx.indicate(alice, offer.id, {
        investor_id: 'inv_star',
        amount: 100_000,
        currency: 'gbp',
        terms_accepted: true,
        terms_version: 'tc-1',
      });
      ctx.expectStatus(res, 201);
      const hit = await waitFor('delivery to the "*" endpoint', () =>
        Promise.resolve(receiver.requests.find((q) => q.path.endsWith('?star') && q.body.includes('inv_star'))),
      );
      expect(JSON.parse(hit.body)).toMatchObject({ event: 'indication.received' });
      const offLog = (
        await get<ListJson<{ status: string; attempt_count: number }>>(`/api/v1/webhook-endpoints/${off.id}/deliveries`, alice)
      ).body.data;
      expect(offLog).toEqual([expect.objectContaining({ status: 'failed', attempt_count: 0 })]);
      expect(receiver.requests.some((q) => q.path.endsWith('?off'))).toBe(false);
      for (const id of [star.id, off.id]) {
        await ctx.inject({ method: 'DELETE', url: `/api/v1/webhook-endpoints/${id}`, headers: alice.auth });
      }
    });
  });

  describe('POST /api/v1/webhook-endpoints/{id}/test', () => {
    it('sends a signed example event marked "test": true, logged as a delivery, not listed as an event', async () => {
      const created = await ctx.inject({
        method: 'POST',
        url: '/api/v1/webhook-endpoints',
        headers: alice.auth,
        payload: { url: `${receiver.url}?test`, events: ['offer.opened'] },
      });
      const endpoint = created.json<EndpointJson>();
      const sent = await ctx.inject({
        method: 'POST',
        url: `/api/v1/webhook-endpoints/${endpoint.id}/test`,
        headers: alice.auth,
        payload: { event: 'allocation.scaled' },
      });
      expect(sent.statusCode).toBe(202);
      const delivery = sent.json<{ id: string; event: string; event_id: string; status: string }>();
      expect(delivery).toMatchObject({ event: 'allocation.scaled', status: 'pending' });
      const hit = await waitFor('the test event', () =>
        Promise.resolve(receiver.requests.find((q) => q.path.endsWith('?test') && q.headers['webhook-id'] === delivery.event_id)),
      );
      // verified by the Standard Webhooks reference library with the endpoint's secret
      const verified = new Webhook(endpoint.secret as string).verify(hit.body, {
        'webhook-id': String(hit.headers['webhook-id']),
        'webhook-timestamp': String(hit.headers['webhook-timestamp']),
        'webhook-signature': String(hit.headers['webhook-signature']),
      }) as Record<string, unknown>;
      const kinds = (await get<ListJson<EventTypeJson>>('/api/v1/webhook-endpoints/event-types', alice)).body.data;
      const example = kinds.find((k) => k.type === 'allocation.scaled')?.example;
      expect(verified).toMatchObject({ id: delivery.event_id, event: 'allocation.scaled', test: true, data: example?.data });
      expect(() =>
        new Webhook('whsec_' + Buffer.alloc(32, 1).toString('base64')).verify(hit.body, hit.headers as Record<string, string>),
      ).toThrow();
      // logged as a delivery of that endpoint
      const log = await waitFor('the test delivery to succeed', async () => {
        const d = (
          await get<ListJson<{ id: string; status: string }>>(`/api/v1/webhook-endpoints/${endpoint.id}/deliveries`, alice)
        ).body.data;
        return d.find((x) => x.id === delivery.id && x.status === 'succeeded');
      });
      expect(log.id).toBe(delivery.id);
      // not an event of the partner
      const events = (await get<ListJson<EventJson>>('/api/v1/events?limit=100', alice)).body.data;
      expect(events.map((e) => e.id)).not.toContain(delivery.event_id);
      expect((await get<EventJson>(`/api/v1/events/${delivery.event_id}`, alice)).r.statusCode).toBe(404);

      const byDefault = await ctx.inject({
        method: 'POST',
        url: `/api/v1/webhook-endpoints/${endpoint.id}/test`,
        headers: alice.auth,
      });
      expect(byDefault.statusCode).toBe(202);
      expect(byDefault.json<{ event: string }>().event).toBe('offer.opened');
      const unknown = await ctx.inject({
        method: 'POST',
        url: `/api/v1/webhook-endpoints/${endpoint.id}/test`,
        headers: alice.auth,
        payload: { event: 'payment.succeeded' },
      });
      expect(unknown.statusCode).toBe(400);
      expect(error(unknown).param).toBe('event');
      const theirs = await ctx.inject({
        method: 'POST',
        url: `/api/v1/webhook-endpoints/${endpoint.id}/test`,
        headers: bob.auth,
      });
      expect(theirs.statusCode).toBe(404);
      await ctx.inject({
        method: 'PATCH',
        url: `/api/v1/webhook-endpoints/${endpoint.id}`,
        headers: alice.auth,
        payload: { disabled: true },
      });
      const disabled = await ctx.inject({
        method: 'POST',
        url: `/api/v1/webhook-endpoints/${endpoint.id}/test`,
        headers: alice.auth,
      });
      expect(disabled.statusCode).toBe(409);
      expect(error(disabled).code).toBe('webhook_endpoint_disabled');
    });
  });

  describe('retention (EVENT_RETENTION_DAYS, default 30)', () => {
    it('hides events past retention at once, and the purge job removes them with their deliveries', async () => {
      const prisma = ctx.t.app.get(PrismaService);
      const [newest] = (await get<ListJson<EventJson>>('/api/v1/events?type=indication.received&limit=1', alice)).body.data;
      const id = newest.id;
      const old = new Date(Date.now() - 31 * 86_400_000);
      await prisma.webhookEvent.update({ where: { id }, data: { createdAt: old, dispatchedAt: old } });
      await prisma.webhookDelivery.updateMany({ where: { eventId: id }, data: { status: 'succeeded' } });
      expect((await get<EventJson>(`/api/v1/events/${id}`, alice)).r.statusCode).toBe(404);
      const listed = (await get<ListJson<EventJson>>('/api/v1/events?limit=100', alice)).body.data;
      expect(listed.map((e) => e.id)).not.toContain(id);
      const purged = await ctx.t.app.get(OutboxDispatcher).purgeExpired();
      expect(purged).toBeGreaterThanOrEqual(1);
      expect(await prisma.webhookEvent.findUnique({ where: { id } })).toBeNull();
      expect(await prisma.webhookDelivery.count({ where: { eventId: id } })).toBe(0);
      // younger events stay
      expect((await get<ListJson<EventJson>>('/api/v1/events?limit=100', alice)).body.data.length).toBe(listed.length);
    });
  });
});

describe('payments-api: /v2/events per account and mode, and its catalogue', () => {
  let t: PaymentsApp;
  beforeAll(async () => {
    t = await startPayments();
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists the payment and refund events of the key’s account and mode only; they validate against the catalogue', async () => {
    const shop = await newAccount(t, 'Events shop');
    const other = await newAccount(t, 'Other shop');
    const customer = await newCustomer(t, shop.test);
    const pay = async (payment_method: string): Promise<string> => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2/payments',
        headers: shop.test,
        payload: { amount: 2_000, currency: 'gbp', customer_id: customer, payment_method },
      });
      expect([201, 402]).toContain(res.statusCode);
      return res.json<{ id?: string; error?: { payment_id?: string } }>().id ?? '';
    };
    const ok = await pay('pm_card_visa');
    await pay('pm_card_insufficient_funds');
    const refund = await t.app.inject({
      method: 'POST',
      url: '/v2/refunds',
      headers: shop.test,
      payload: { payment_id: ok, amount: 500 },
    });
    expect(refund.statusCode).toBe(201);

    const list = await t.app.inject({ method: 'GET', url: '/v2/events?limit=100', headers: shop.test });
    expect(list.statusCode).toBe(200);
    const events = list.json<ListJson<EventJson>>().data;
    expect(events.map((e) => e.event)).toEqual(['refund.succeeded', 'payment.failed', 'payment.succeeded']);
    expect(events.map((e) => e.object)).toEqual(['event', 'event', 'event']);

    const catalogue = await t.app.inject({ method: 'GET', url: '/v2/webhook-endpoints/event-types', headers: shop.test });
    expect(catalogue.statusCode).toBe(200);
    const kinds = catalogue.json<ListJson<EventTypeJson>>().data;
    expect(kinds.map((k) => k.type)).toEqual([
      'payment.succeeded',
      'payment.failed',
      'payment.requires_capture',
      'payment.captured',
      'payment.canceled',
      'refund.succeeded',
    ]);
    const check = catalogueChecker(kinds);
    for (const k of kinds) expect(check(k.type, k.example.data)).toBe('');
    for (const e of events) expect(check(e.event, e.data)).toBe('');

    // authorize-and-capture events, in another account so the lists below stay as they are
    const acct = await newAccount(t, 'Capture shop');
    const buyer = await newCustomer(t, acct.test);
    const authorize = async (): Promise<string> => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2/payments',
        headers: acct.test,
        payload: { amount: 900, currency: 'gbp', customer_id: buyer, capture_method: 'manual' },
      });
      return res.json<{ id: string }>().id;
    };
    const captured = await authorize();
    const canceled = await authorize();
    const post = (url: string) => t.app.inject({ method: 'POST', url, headers: acct.test, payload: {} });
    expect((await post(`/v2/payments/${captured}/capture`)).statusCode).toBe(200);
    expect((await post(`/v2/payments/${canceled}/cancel`)).statusCode).toBe(200);
    const more = (await t.app.inject({ method: 'GET', url: '/v2/events?limit=100', headers: acct.test })).json<
      ListJson<EventJson>
    >().data;
    expect(more.map((e) => e.event).sort()).toEqual(
      [
        'payment.canceled',
        'payment.captured',
        'payment.requires_capture',
        'payment.requires_capture',
        'payment.succeeded',
      ].sort(),
    );
    for (const e of more) expect(check(e.event, e.data)).toBe('');

    const prefix = await t.app.inject({ method: 'GET', url: '/v2/events?type=payment.*', headers: shop.test });
    expect(prefix.json<ListJson<EventJson>>().data.map((e) => e.event)).toEqual(['payment.failed', 'payment.succeeded']);
    // live mode and other accounts see none of them
    for (const headers of [shop.live, other.test]) {
      const res = await t.app.inject({ method: 'GET', url: '/v2/events', headers });
      expect(res.json<ListJson<EventJson>>().data).toEqual([]);
      const one = await t.app.inject({ method: 'GET', url: `/v2/events/${events[0]?.id ?? ''}`, headers });
      expect(one.statusCode).toBe(404);
    }
    const one = await t.app.inject({ method: 'GET', url: `/v2/events/${events[0]?.id ?? ''}`, headers: shop.test });
    expect(one.json<EventJson>()).toEqual(events[0]);
    const noKey = await t.app.inject({ method: 'GET', url: '/v2/events' });
    expect(noKey.statusCode).toBe(401);
  });
});
