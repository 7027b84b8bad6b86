/**
 * The library as the two apps mount it: real authentication ('@app/auth'), the app's
 * owner mapping (partner; payments account + mode) and base paths.
 */
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import type { ListView, WebhookEndpointView } from '@app/webhooks';
import { startTestApp, type TestApp } from '../support/app';
import { eventually, Receiver } from './support/receiver';
import type { OffersConfig } from '../../apps/offers-api/src/config';
import type { PaymentsConfig } from '../../apps/payments-api/src/config';

const ADMIN = { authorization: 'Bearer dev-admin-key' };
const HOOK = 'http://127.0.0.1:9/hook';

describe('offers-api: /api/v1/webhook-endpoints belong to the calling partner', () => {
  let t: TestApp<OffersConfig>;
  beforeAll(async () => {
    t = await startTestApp(offersService);
  });
  afterAll(async () => {
    await t.close();
  });

  async function partnerToken(name: string): Promise<string> {
    const partner = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/partners',
      headers: ADMIN,
      payload: { name, tier: 'growth' },
    });
    expect(partner.statusCode).toBe(201);
    const { id } = partner.json<{ id: string }>();
    const client = await t.app.inject({ method: 'POST', url: `/admin/v1/partners/${id}/clients`, headers: ADMIN });
    const { client_id, client_secret } = client.json<{ client_id: string; client_secret: string }>();
    const token = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }).toString(),
    });
    expect(token.statusCode).toBe(200);
    return token.json<{ access_token: string }>().access_token;
  }

  it('requires a partner token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/webhook-endpoints' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('creates, lists and isolates endpoints per partner', async () => {
    const [a, b] = [await partnerToken('A'), await partnerToken('B')];
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhook-endpoints',
      headers: { authorization: `Bearer ${a}` },
      payload: { url: HOOK, events: ['offer.opened'] },
    });
    expect(created.statusCode).toBe(201);
    const endpoint = created.json<WebhookEndpointView & { secret: string }>();
    expect(endpoint).toMatchObject({ url: HOOK, events: ['offer.opened'], status: 'enabled' });
    expect(endpoint.secret).toMatch(/^whsec_/);

    const mine = await t.app.inject({
      method: 'GET',
      url: '/api/v1/webhook-endpoints',
      headers: { authorization: `Bearer ${a}` },
    });
    expect(mine.json<ListView<WebhookEndpointView>>().data.map((e) => e.id)).toEqual([endpoint.id]);
    const theirs = await t.app.inject({
      method: 'GET',
      url: `/api/v1/webhook-endpoints/${endpoint.id}`,
      headers: { authorization: `Bearer ${b}` },
    });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json<{ error: { code: string } }>().error.code).toBe('resource_missing');
  });
});

describe('payments-api: /v2/webhook-endpoints belong to the account, per mode', () => {
  let t: TestApp<PaymentsConfig>;
  beforeAll(async () => {
    t = await startTestApp(paymentsService);
  });
  afterAll(async () => {
    await t.close();
  });

  it('keeps test-mode and live-mode endpoints apart, and accounts apart', async () => {
    const account = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: ADMIN, payload: { name: 'Shop' } });
    expect(account.statusCode).toBe(201);
    const { test_key, live_key } = account.json<{ test_key: string; live_key: string }>();
    const other = (
      await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: ADMIN, payload: { name: 'Other' } })
    ).json<{
      test_key: string;
    }>();

    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/webhook-endpoints',
      headers: { authorization: `Bearer ${test_key}` },
      payload: { url: HOOK, events: ['payment.succeeded'] },
    });
    expect(created.statusCode).toBe(201);
    const { id } = created.json<WebhookEndpointView>();

    const list = (key: string) =>
      t.app.inject({ method: 'GET', url: '/v2/webhook-endpoints', headers: { authorization: `Bearer ${key}` } });
    expect((await list(test_key)).json<ListView<WebhookEndpointView>>().data.map((e) => e.id)).toEqual([id]);
    expect((await list(live_key)).json<ListView<WebhookEndpointView>>().data).toEqual([]);
    expect((await list(other.test_key)).json<ListView<WebhookEndpointView>>().data).toEqual([]);
    const cross = await t.app.inject({
      method: 'GET',
      url: `/v2/webhook-endpoints/${id}`,
      headers: { authorization: `Bearer ${live_key}` },
    });
    expect(cross.statusCode).toBe(404);
  });

  it('delivers payment.succeeded of a test-mode payment to the test-mode endpoint only', async () => {
    const receiver = await Receiver.start();
    try {
      const account = (
        await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: ADMIN, payload: { name: 'Events' } })
      ).json<{
        test_key: string;
        live_key: string;
      }>();
      const test = { authorization: `Bearer ${account.test_key}` };
      const live = { authorization: `Bearer ${account.live_key}` };
      const endpointIds: string[] = [];
      for (const headers of [test, live]) {
        const res = await t.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers, payload: { url: receiver.url } });
        expect(res.statusCode).toBe(201);
        endpointIds.push(res.json<WebhookEndpointView>().id);
      }
      const [testEndpoint, liveEndpoint] = endpointIds;
      const customer = await t.app.inject({ method: 'POST', url: '/v2/customers', headers: test, payload: { name: 'Ada' } });
      expect([200, 201]).toContain(customer.statusCode);
      const payment = await t.app.inject({
        method: 'POST',
        url: '/v2/payments',
        headers: test,
        payload: { amount: 1234, currency: 'usd', customer_id: customer.json<{ id: string }>().id },
      });
      expect([200, 201]).toContain(payment.statusCode);
      const req = await eventually(() => receiver.requests[0], 15_000, 'payment.succeeded');
      const body = JSON.parse(req.body) as { event: string; data: { id: string } };
      expect(body.event).toBe('payment.succeeded');
      expect(body.data.id).toBe(payment.json<{ id: string }>().id);
      // The event's deliveries were all created in one transaction before any was sent, so
      // the live-mode endpoint's empty log means it never gets this event.
      const log = async (id: string | undefined, headers: Record<string, string>): Promise<string[]> => {
        const res = await t.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${id}/deliveries`, headers });
        expect(res.statusCode).toBe(200);
        return res.json<ListView<{ event_id: string }>>().data.map((d) => d.event_id);
      };
      expect(await log(testEndpoint, test)).toEqual([req.headers['webhook-id']]);
      expect(await log(liveEndpoint, live)).toEqual([]);
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
