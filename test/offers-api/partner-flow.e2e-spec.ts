/**
 * docs/offers.md, run end to end over HTTP: operator set-up → token → list → terms →
 * indicate → webhooks (a real receiver, signatures checked) → allocations. The lifecycle
 * runs on the real BullMQ worker with an offer that opens and closes within seconds.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { catalogueChecker, type EventTypeJson } from '../support/event-catalogue';
import { ADMIN, type ErrorJson, iso, type OfferJson, OffersContext, startOffers, waitFor } from './fixtures';

interface Delivery {
  readonly headers: IncomingHttpHeaders;
  readonly raw: string;
  readonly body: { id: string; event: string; timestamp: string; data: Record<string, unknown> };
}

function genuine(raw: string, header: string | string[] | undefined, secret: string): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(raw).digest('hex'));
  const given = Buffer.from(typeof header === 'string' ? header : '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('docs/offers.md partner flow, end to end', () => {
  let ctx: OffersContext;
  let receiver: Server;
  const deliveries: Delivery[] = [];
  let hookUrl = '';

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        deliveries.push({ headers: req.headers, raw, body: JSON.parse(raw) as Delivery['body'] });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/offers`;
    ctx = new OffersContext(await startOffers({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }));
  });
  afterAll(async () => {
    await ctx.t.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const delivered = (event: string): Promise<Delivery> =>
    waitFor(`${event} webhook`, () => Promise.resolve(deliveries.find((d) => d.body.event === event)));

  it('token → list → terms → indicate → webhooks → allocations', async () => {
    // 0. Operator: partner, client, terms, an offer opening in 2 s and closing 4 s later, agreement.
    const partner = await ctx.inject({
      method: 'POST',
      url: '/admin/v1/partners',
      headers: ADMIN,
      payload: { name: 'Acme Wealth', tier: 'growth' },
    });
    const partnerId = partner.json<{ id: string }>().id;
    const client = await ctx.inject({ method: 'POST', url: `/admin/v1/partners/${partnerId}/clients`, headers: ADMIN });
    const { client_id, client_secret } = client.json<{ client_id: string; client_secret: string }>();
    ctx.expectStatus(
      await ctx.inject({
        method: 'POST',
        url: '/admin/v1/terms',
        headers: ADMIN,
        payload: { version: '2026-11-01', title: 'Investor terms', body: 'Capital at risk.' },
      }),
      201,
    );
    const now = Date.now();
    const created = await ctx.inject({
      method: 'POST',
      url: '/admin/v1/offers',
      headers: ADMIN,
      payload: {
        company: 'Acme Robotics plc',
        ticker: 'ACME',
        type: 'ipo',
        price_per_share: 2.5,
        currency: 'gbp',
        minimum_investment: 250,
        opens_at: iso(now + 2_000),
        closes_at: iso(now + 6_000),
        shares_offered: 1_000,
      },
    });
    ctx.expectStatus(created, 201);
    const offerId = created.json<OfferJson>().id;
    ctx.expectStatus(
      await ctx.inject({ method: 'PUT', url: `/admin/v1/partners/${partnerId}/offers/${offerId}`, headers: ADMIN }),
      200,
    );

    // 1. Token (form fields; Basic works too).
    const tokenRes = await ctx.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }).toString(),
    });
    expect(tokenRes.json()).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    const auth = { authorization: `Bearer ${tokenRes.json<{ access_token: string }>().access_token}` };

    // 5 (set up before the offer opens). Webhook endpoint; the secret is shown once.
    const endpoint = await ctx.inject({
      method: 'POST',
      url: '/api/v1/webhook-endpoints',
      headers: auth,
      payload: { url: hookUrl },
    });
    ctx.expectStatus(endpoint, 201);
    const secret = endpoint.json<{ secret: string }>().secret;
    expect(secret).toMatch(/^whsec_/);

    // 2. List: upcoming now, live once opened (offer.opened arrives).
    const upcoming = await ctx.inject({ method: 'GET', url: '/api/v1/offers?limit=20&page=1', headers: auth });
    expect(upcoming.json<{ offers: OfferJson[]; total: number; page: number }>()).toMatchObject({
      offers: [{ id: offerId, status: 'upcoming', price_per_share: 2.5, minimum_investment: 250, currency: 'gbp' }],
      total: 1,
      page: 1,
    });
    const opened = await delivered('offer.opened');
    expect(opened.body.data).toMatchObject({ id: offerId, status: 'live' });
    const live = await ctx.inject({ method: 'GET', url: '/api/v1/offers?status=live&type=ipo', headers: auth });
    expect(live.json<{ offers: OfferJson[] }>().offers.map((o) => o.id)).toEqual([offerId]);

    // 3. Terms.
    const terms = await ctx.inject({ method: 'GET', url: '/api/v1/terms', headers: auth });
    const { version } = terms.json<{ version: string }>();
    expect(version).toBe('2026-11-01');

    // 4. Indicate, with an Idempotency-Key; a retry replays.
    const body = { investor_id: 'inv_8842', amount: 100_000, currency: 'gbp', terms_accepted: true, terms_version: version };
    const headers = { ...auth, 'idempotency-key': '6f1c0c1e-order-8842' };
    const ind = await ctx.inject({ method: 'POST', url: `/api/v1/offers/${offerId}/indications`, headers, payload: body });
    ctx.expectStatus(ind, 201);
    const retry = await ctx.inject({ method: 'POST', url: `/api/v1/offers/${offerId}/indications`, headers, payload: body });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(ind.json());
    const second = await ctx.inject({
      method: 'POST',
      url: `/api/v1/offers/${offerId}/indications`,
      headers: auth,
      payload: { ...body, investor_id: 'inv_9000', amount: 150_000 },
    });
    ctx.expectStatus(second, 201);
    const indicationId = ind.json<{ id: string }>().id;

    // 5. Webhooks: signed deliveries of indication.received, closing_soon and closed.
    const received = await delivered('indication.received');
    expect(genuine(received.raw, received.headers['service-signature'], secret)).toBe(true);
    expect(genuine(received.raw, received.headers['service-signature'], 'whsec_wrong')).toBe(false);
    expect(received.headers['webhook-id']).toBe(received.body.id);
    expect(received.body.data).toEqual(ind.json());
    expect((await delivered('offer.closing_soon')).body.data).toMatchObject({ id: offerId });
    const closed = await delivered('offer.closed');
    expect(closed.body.data).toMatchObject({ id: offerId, status: 'closed' });
    const late = await ctx.inject({ method: 'POST', url: `/api/v1/offers/${offerId}/indications`, headers: auth, payload: body });
    expect(late.json<ErrorJson>().error.code).toBe('offer_not_live');

    // 6. Allocation: 1000 shares asked (400 + 600), 500 available → scaled by half.
    const run = await ctx.inject({
      method: 'POST',
      url: `/admin/v1/offers/${offerId}/allocations`,
      headers: ADMIN,
      payload: { shares_available: 500, policy: 'pro_rata' },
    });
    ctx.expectStatus(run, 201);
    const scaled = await waitFor('two allocation.scaled webhooks', () => {
      const got = deliveries.filter((d) => d.body.event === 'allocation.scaled');
      return Promise.resolve(got.length === 2 ? got : undefined);
    });
    for (const d of scaled) expect(genuine(d.raw, d.headers['service-signature'], secret)).toBe(true);
    expect(scaled.find((d) => d.body.data['investor_id'] === 'inv_8842')?.body.data).toMatchObject({
      investor_id: 'inv_8842',
      offer_id: offerId,
      shares_allocated: 200,
      amount_allocated: 500,
      currency: 'gbp',
      amount_requested: 100_000,
      scaling_factor: 0.5,
    });
    const polled = await ctx.inject({ method: 'GET', url: `/api/v1/offers/${offerId}/allocations`, headers: auth });
    const allocations = polled.json<{ allocations: Array<Record<string, unknown>> }>().allocations;
    expect(allocations.find((a) => a['indication_id'] === indicationId)).toMatchObject({
      shares_allocated: 200,
      amount_refunded: 50_000,
      method: 'pro_rata',
      outcome: 'scaled',
    });
    // Each event was delivered once.
    const counts = deliveries.reduce<Record<string, number>>(
      (acc, d) => ({ ...acc, [d.body.event]: (acc[d.body.event] ?? 0) + 1 }),
      {},
    );
    expect(counts).toEqual({
      'offer.opened': 1,
      'offer.closing_soon': 1,
      'indication.received': 2,
      'offer.closed': 1,
      'allocation.scaled': 2,
    });

    // 7. The same events, polled: GET /api/v1/events holds every delivered one (same ids and
    // data), and each validates against its kind's schema in the catalogue.
    const polledEvents = await ctx.inject({ method: 'GET', url: '/api/v1/events?limit=100', headers: auth });
    ctx.expectStatus(polledEvents, 200);
    const events = polledEvents.json<{ data: Array<{ id: string; event: string; timestamp: string; data: unknown }> }>().data;
    const byId = new Map(events.map((e) => [e.id, e]));
    for (const d of deliveries) expect(byId.get(d.body.id)).toEqual({ object: 'event', ...d.body });
    expect(events).toHaveLength(deliveries.length);
    const catalogue = await ctx.inject({ method: 'GET', url: '/api/v1/webhook-endpoints/event-types', headers: auth });
    const check = catalogueChecker(catalogue.json<{ data: EventTypeJson[] }>().data);
    for (const e of events) expect([e.event, check(e.event, e.data)]).toEqual([e.event, '']);
  });
});
