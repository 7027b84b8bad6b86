/**
 * The receiver's controls over delivery (platform contract, "Webhooks, more"): a
 * `webhook-delivery: abort` answer stops the retries of that one delivery, and an
 * endpoint's `rate_limit_per_second` makes deliveries beyond it wait — none dropped.
 * Real PostgreSQL, Redis and HTTP receiver; no timing assertion beyond the spacing the
 * limit itself guarantees (a lower bound).
 */
import { PrismaService } from '@app/platform';
import type { ListView, WebhookDeliveryView, WebhookEndpointView } from '@app/webhooks';
import { DeliveryQueue } from '../../libs/webhooks/src/delivery/delivery-queue';
import { startTestApp, type TestApp } from '../support/app';
import { eventually, Receiver } from './support/receiver';
import { emitEvent, type ProbeConfig, webhooksProbe } from './support/webhooks-probe';

describe('libs/webhooks delivery controls (real PostgreSQL, Redis and HTTP receiver)', () => {
  let t: TestApp<ProbeConfig>;
  let receiver: Receiver;
  let prisma: PrismaService;
  let owner = 'controls_0';
  let ownerSeq = 0;

  beforeAll(async () => {
    t = await startTestApp(webhooksProbe, {});
    prisma = t.app.get(PrismaService);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  beforeEach(() => {
    owner = `controls_${++ownerSeq}`;
    receiver.requests.length = 0;
    receiver.handler = () => ({ status: 200, body: 'ok' });
  });
  afterEach(async () => {
    await prisma.webhookEndpoint.deleteMany({ where: { ownerType: 'partner', ownerId: owner } });
  });

  async function createEndpoint(): Promise<WebhookEndpointView & { secret: string }> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/test/webhook-endpoints',
      headers: { 'x-test-owner': owner },
      payload: { url: receiver.url },
    });
    expect(res.statusCode).toBe(201);
    return res.json();
  }

  async function deliveries(endpointId: string, query = ''): Promise<readonly WebhookDeliveryView[]> {
    const res = await t.app.inject({
      method: 'GET',
      url: `/test/webhook-endpoints/${endpointId}/deliveries${query}`,
      headers: { 'x-test-owner': owner },
    });
    expect(res.statusCode).toBe(200);
    return res.json<ListView<WebhookDeliveryView>>().data;
  }

  async function endpointView(endpointId: string): Promise<WebhookEndpointView> {
    const res = await t.app.inject({
      method: 'GET',
      url: `/test/webhook-endpoints/${endpointId}`,
      headers: { 'x-test-owner': owner },
    });
    expect(res.statusCode).toBe(200);
    return res.json();
  }

  const emit = (data: Record<string, unknown> = { offer_id: 'offer_1' }) =>
    emitEvent(t.app, { ownerType: 'partner', ownerId: owner }, 'offer.opened', data);

  it('webhook-delivery: abort on a 500 ends that delivery after one attempt, without touching the endpoint', async () => {
    const endpoint = await createEndpoint();
    receiver.handler = () => ({ status: 500, headers: { 'webhook-delivery': 'Abort' }, body: 'not this one' });
    const eventId = await emit();

    const [delivery] = await eventually(async () => {
      const list = await deliveries(endpoint.id, '?status=failed');
      return list.length === 1 ? list : undefined;
    });
    expect(delivery).toMatchObject({ event_id: eventId, status: 'failed', attempt_count: 1, next_attempt_at: null });
    expect(delivery?.attempts).toEqual([expect.objectContaining({ status_code: 500, response_excerpt: 'not this one' })]);
    // a retry keeps the delivery's job (job id = delivery id) in the delayed set; the job is
    // gone (completed and removed) once the delivery is over: no retry can follow
    const queue = t.app.get(DeliveryQueue).queue;
    await eventually(async () => (await queue.getJob(String(delivery?.id))) === undefined, 15_000, 'the job to be finished');
    expect(receiver.requests).toHaveLength(1);
    expect((await deliveries(endpoint.id))[0]).toMatchObject({ status: 'failed', attempt_count: 1 });
    // the receiver answered deliberately: the endpoint is neither disabled nor failing
    expect(await endpointView(endpoint.id)).toMatchObject({ status: 'enabled', failing_since: null, disabled_reason: null });

    // and the next event is delivered as usual
    receiver.handler = () => ({ status: 204 });
    await emit({ offer_id: 'offer_2' });
    await eventually(async () => (await deliveries(endpoint.id, '?status=succeeded')).length === 1);
  });

  it('a 2xx with webhook-delivery: abort is still a success', async () => {
    const endpoint = await createEndpoint();
    receiver.handler = () => ({ status: 200, headers: { 'webhook-delivery': 'abort' } });
    await emit();
    const [delivery] = await eventually(async () => {
      const list = await deliveries(endpoint.id, '?status=succeeded');
      return list.length === 1 ? list : undefined;
    });
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 1 });
  });

  it('rate_limit_per_second: every event of a backlog arrives, none dropped, spaced by the limit', async () => {
    const endpoint = await createEndpoint();
    const rate = 4;
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/test/webhook-endpoints/${endpoint.id}`,
      headers: { 'x-test-owner': owner },
      payload: { rate_limit_per_second: rate },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json<WebhookEndpointView>().rate_limit_per_second).toBe(rate);
    const n = 10;
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(await emit({ offer_id: `offer_${i}` }));

    await eventually(() => receiver.requests.length >= n, 30_000, `${n} deliveries`);
    const arrived = receiver.requests.map((r) => String(r.headers['webhook-id']));
    expect(new Set(arrived)).toEqual(new Set(ids));
    expect(arrived).toHaveLength(n); // each once: waiting is not an attempt that failed
    // n deliveries at `rate`/s take at least (n-1)/rate s (a slot may go up to 10 ms early)
    const times = receiver.requests.map((r) => r.at);
    const spreadMs = Math.max(...times) - Math.min(...times);
    expect(spreadMs).toBeGreaterThanOrEqual(((n - 1) / rate) * 1000 - 100);
    // waiting counted no attempt
    const list = await eventually(async () => {
      const all = await deliveries(endpoint.id, '?status=succeeded');
      return all.length === n ? all : undefined;
    });
    expect(list.every((d) => d.attempt_count === 1)).toBe(true);
  });
});
