import { createHmac, timingSafeEqual } from 'node:crypto';
import { PrismaService, runTransaction } from '@app/platform';
import { type ListView, type WebhookDeliveryView, WebhookEmitter, type WebhookEndpointView } from '@app/webhooks';
import { OutboxDispatcher } from '../../libs/webhooks/src/delivery/outbox-dispatcher';
import { startTestApp, type TestApp } from '../support/app';
import { eventually, Receiver } from './support/receiver';
import { emitEvent, type ProbeConfig, webhooksProbe } from './support/webhooks-probe';

/** Independent of libs/webhooks: what a receiver following docs/webhooks.md does. */
function verifyServiceSignature(secret: string, rawBody: string, header: string | undefined): boolean {
  const expected = createHmac('sha256', secret).update(rawBody).digest('hex');
  return header !== undefined && header.length === expected.length && timingSafeEqual(Buffer.from(header), Buffer.from(expected));
}

function standardWebhookSignaturesValidFor(secret: string, headers: Record<string, unknown>, rawBody: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${rawBody}`)
    .digest('base64');
  return String(headers['webhook-signature'])
    .split(' ')
    .some((s) => s === `v1,${expected}`);
}

// asymmetric matchers are typed `any`; keep them behind `unknown`
const anyString: unknown = expect.any(String);
const anyNumber: unknown = expect.any(Number);
const timeoutError: unknown = expect.stringMatching(/timeout/);

describe('libs/webhooks delivery (real PostgreSQL, Redis and HTTP receiver)', () => {
  let t: TestApp<ProbeConfig>;
  let receiver: Receiver;
  let prisma: PrismaService;
  let owner = 'p_1';
  let ownerSeq = 0;

  beforeAll(async () => {
    t = await startTestApp(webhooksProbe, { WEBHOOK_TIMEOUT_MS: '500' });
    prisma = t.app.get(PrismaService);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  beforeEach(() => {
    // a fresh owner per test, so endpoints of earlier tests never receive its events
    owner = `partner_${++ownerSeq}`;
    receiver.requests.length = 0;
    receiver.handler = () => ({ status: 200, body: 'ok' });
  });
  afterEach(async () => {
    // a retry still scheduled (e.g. after Retry-After: 3) must not reach the receiver during a
    // later test: deleting the endpoints deletes their deliveries, and a job finds nothing to send
    await prisma.webhookEndpoint.deleteMany({ where: { ownerType: 'partner', ownerId: { in: [owner, `${owner}_other`] } } });
  });

  async function createEndpoint(
    body: Record<string, unknown> = {},
    as = owner,
  ): Promise<WebhookEndpointView & { secret: string }> {
    const res = await t.app.inject({
      method: 'POST',
      url: '/test/webhook-endpoints',
      headers: { 'x-test-owner': as },
      payload: { url: receiver.url, ...body },
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

  const emit = (
    event: 'offer.opened' | 'offer.closed' = 'offer.opened',
    data: Record<string, unknown> = { offer_id: 'offer_1' },
  ) => emitEvent(t.app, { ownerType: 'partner', ownerId: owner }, event, data);

  it('POSTs the signed envelope; both signatures verify independently', async () => {
    const endpoint = await createEndpoint();
    expect(endpoint).toMatchObject({ object: 'webhook_endpoint', url: receiver.url, events: ['*'], status: 'enabled' });
    expect(endpoint.id).toMatch(/^we_/);
    expect(endpoint.secret).toMatch(/^whsec_/);

    const eventId = await emit('offer.opened', { offer_id: 'offer_42', price: '250.00' });
    const req = await eventually(() => receiver.requests[0], 10_000, 'the delivery');

    const envelope = JSON.parse(req.body) as Record<string, unknown>;
    expect(envelope).toEqual({
      id: eventId,
      event: 'offer.opened',
      timestamp: anyString,
      data: { offer_id: 'offer_42', price: '250.00' },
    });
    expect(new Date(String(envelope.timestamp)).toISOString()).toBe(envelope.timestamp);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyServiceSignature(endpoint.secret, req.body, req.headers['service-signature'] as string)).toBe(true);
    expect(verifyServiceSignature(endpoint.secret, `${req.body} `, req.headers['service-signature'] as string)).toBe(false);
    expect(verifyServiceSignature('whsec_other', req.body, req.headers['service-signature'] as string)).toBe(false);
    expect(req.headers['webhook-id']).toBe(eventId);
    expect(Math.abs(Number(req.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
    expect(String(req.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(standardWebhookSignaturesValidFor(endpoint.secret, req.headers, req.body)).toBe(true);
    expect(standardWebhookSignaturesValidFor(endpoint.secret, req.headers, req.body.replace('offer_42', 'offer_43'))).toBe(false);

    const [delivery] = await eventually(async () => {
      const list = await deliveries(endpoint.id);
      return list[0]?.status === 'succeeded' ? list : undefined;
    });
    expect(delivery).toMatchObject({
      event_id: eventId,
      event: 'offer.opened',
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
    });
    expect(delivery?.attempts).toEqual([
      { status_code: 200, duration_ms: anyNumber, error: null, response_excerpt: 'ok', created_at: anyString },
    ]);
  });

  it('a receiver failing twice then succeeding gets the same event id three times', async () => {
    const endpoint = await createEndpoint();
    receiver.handler = (r) => (r.n <= 2 ? { status: 500, body: 'boom' } : { status: 204 });
    const eventId = await emit();
    await eventually(() => receiver.requests.length >= 3, 10_000, 'three attempts');
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId, eventId]);
    expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(endpoint.id);
      return list[0]?.status === 'succeeded' ? list : undefined;
    });
    expect(delivery?.attempts.map((a) => [a.status_code, a.error, a.response_excerpt])).toEqual([
      [500, 'HTTP 500', 'boom'],
      [500, 'HTTP 500', 'boom'],
      [204, null, null],
    ]);
    const healthy = await t.app.inject({
      method: 'GET',
      url: `/test/webhook-endpoints/${endpoint.id}`,
      headers: { 'x-test-owner': owner },
    });
    expect(healthy.json<WebhookEndpointView>().failing_since).toBeNull();
  });

  it('retries a receiver slower than the timeout', async () => {
    const endpoint = await createEndpoint();
    receiver.handler = (r) => (r.n === 1 ? { status: 200, delayMs: 2_000 } : { status: 200 });
    const eventId = await emit();
    const [delivery] = await eventually(async () => {
      const list = await deliveries(endpoint.id);
      return list[0]?.status === 'succeeded' ? list : undefined;
    });
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId]);
    expect(delivery?.attempts[0]).toMatchObject({ status_code: null, error: timeoutError });
    expect(delivery?.attempts[1]).toMatchObject({ status_code: 200, error: null });
  });

  it('fails the delivery after the last retry; redeliver and recover send it again', async () => {
    const endpoint = await createEndpoint();
    receiver.handler = () => ({ status: 503 });
    const since = new Date(Date.now() - 1_000).toISOString();
    await emit();
    const [failed] = await eventually(async () => {
      const list = await deliveries(endpoint.id, '?status=failed');
      return list.length === 1 ? list : undefined;
    });
    expect(failed?.attempt_count).toBe(4); // first try + 3 retries of the scaled-down schedule
    expect(receiver.requests).toHaveLength(4);
    expect(await deliveries(endpoint.id, '?status=succeeded')).toEqual([]);

    receiver.handler = () => ({ status: 200 });
    const retry = await t.app.inject({
      method: 'POST',
      url: `/test/webhook-endpoints/${endpoint.id}/deliveries/${failed?.id}/retry`,
      headers: { 'x-test-owner': owner },
    });
    expect(retry.statusCode).toBe(202);
    await eventually(async () => (await deliveries(endpoint.id, '?status=succeeded')).length === 1);
    expect(receiver.requests).toHaveLength(5);

    // two more failures, then recover both
    receiver.handler = () => ({ status: 500 });
    await emit('offer.closed');
    await emit('offer.closed');
    await eventually(async () => (await deliveries(endpoint.id, '?status=failed')).length === 2, 15_000);
    receiver.handler = () => ({ status: 200 });
    const recover = await t.app.inject({
      method: 'POST',
      url: `/test/webhook-endpoints/${endpoint.id}/recover`,
      headers: { 'x-test-owner': owner },
      payload: { since },
    });
    expect(recover.statusCode).toBe(202);
    expect(recover.json()).toEqual({ object: 'webhook_recovery', endpoint_id: endpoint.id, since, until: null, requeued: 2 });
    await eventually(async () => (await deliveries(endpoint.id, '?status=succeeded')).length === 3);
  });

  it('recovers only the failures created between since and until', async () => {
    const endpoint = await createEndpoint();
    receiver.handler = () => ({ status: 500 });
    const recover = (payload: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: `/test/webhook-endpoints/${endpoint.id}/recover`,
        headers: { 'x-test-owner': owner },
        payload,
      });
    const since = new Date(Date.now() - 1_000).toISOString();
    await emit('offer.opened');
    const [first] = await eventually(async () => {
      const list = await deliveries(endpoint.id, '?status=failed');
      return list.length === 1 ? list : undefined;
    }, 15_000);
    // the window ends (inclusive) just after the first delivery was created: its created_at is
    // shown to the ms, the stored one may carry µs; the second is created after the first failed
    const until = new Date(Date.parse(String(first?.created_at)) + 1).toISOString();
    await emit('offer.closed');
    await eventually(async () => (await deliveries(endpoint.id, '?status=failed')).length === 2, 15_000);
    const sent = receiver.requests.length;
    receiver.handler = () => ({ status: 200 });
    const res = await recover({ since, until });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ object: 'webhook_recovery', endpoint_id: endpoint.id, since, until, requeued: 1 });
    const [ok] = await eventually(async () => {
      const list = await deliveries(endpoint.id, '?status=succeeded');
      return list.length === 1 ? list : undefined;
    });
    expect(ok?.event).toBe('offer.opened');
    expect(receiver.requests.slice(sent).map((r) => (JSON.parse(r.body) as { event: string }).event)).toEqual(['offer.opened']);
    expect((await deliveries(endpoint.id, '?status=failed')).map((d) => d.event)).toEqual(['offer.closed']);
    const backwards = await recover({ since: until, until: since });
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json<{ error: { param: string } }>().error.param).toBe('until');
    const bad = await recover({ since, until: 'soon' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ error: { param: string } }>().error.param).toBe('until');
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const endpoint = await createEndpoint();
    receiver.handler = (r) => (r.n === 1 ? { status: 302, headers: { location: `${receiver.url}/elsewhere` } } : { status: 200 });
    await emit();
    const [delivery] = await eventually(async () => {
      const list = await deliveries(endpoint.id);
      return list[0]?.status === 'succeeded' ? list : undefined;
    });
    expect(delivery?.attempts.map((a) => [a.status_code, a.error])).toEqual([
      [302, 'HTTP 302'],
      [200, null],
    ]);
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hook', '/hook']); // never /hook/elsewhere
  });

  it('pages the delivery log newest first with limit and starting_after', async () => {
    const endpoint = await createEndpoint();
    const ids = [await emit(), await emit(), await emit()];
    await eventually(async () => (await deliveries(endpoint.id, '?status=succeeded')).length === 3);
    const first = await t.app.inject({
      method: 'GET',
      url: `/test/webhook-endpoints/${endpoint.id}/deliveries?limit=2`,
      headers: { 'x-test-owner': owner },
    });
    const page1 = first.json<ListView<WebhookDeliveryView>>();
    expect(page1.has_more).toBe(true);
    expect(page1.data).toHaveLength(2);
    const second = await t.app.inject({
      method: 'GET',
      url: `/test/webhook-endpoints/${endpoint.id}/deliveries?limit=2&starting_after=${page1.data[1]?.id}`,
      headers: { 'x-test-owner': owner },
    });
    const page2 = second.json<ListView<WebhookDeliveryView>>();
    expect(page2.has_more).toBe(false);
    expect([...page1.data, ...page2.data].map((d) => d.event_id).sort()).toEqual([...ids].sort());
    const tooMany = await t.app.inject({
      method: 'GET',
      url: `/test/webhook-endpoints/${endpoint.id}/deliveries?limit=101`,
      headers: { 'x-test-owner': owner },
    });
    expect(tooMany.json()).toMatchObject({ error: { code: 'parameter_invalid', param: 'limit' } });
  });

  it('waits at least Retry-After before the next attempt', async () => {
    const endpoint = await createEndpoint();
    receiver.handler = (r) => (r.n === 1 ? { status: 429, headers: { 'retry-after': '3' } } : { status: 200 });
    await emit();
    const row = await eventually(async () => {
      const d = await prisma.webhookDelivery.findFirst({ where: { endpointId: endpoint.id } });
      return d && d.attemptCount === 1 ? d : undefined;
    });
    expect(row.status).toBe('pending');
    // the schedule says 100 ms; the receiver asked for 3 s
    expect((row.nextAttemptAt?.getTime() ?? 0) - (row.lastAttemptAt?.getTime() ?? 0)).toBeGreaterThanOrEqual(3_000);
    // drop the retry still due in 3 s, so that it cannot reach the receiver during a later test
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/test/webhook-endpoints/${endpoint.id}`,
      headers: { 'x-test-owner': owner },
    });
    expect(deleted.statusCode).toBe(200);
  });

  it('410 Gone disables the endpoint; later events are logged, not sent; enable + recover sends them', async () => {
    const endpoint = await createEndpoint();
    receiver.handler = () => ({ status: 410 });
    await emit();
    await eventually(async () => (await deliveries(endpoint.id, '?status=failed')).length === 1);
    const res = await t.app.inject({
      method: 'GET',
      url: `/test/webhook-endpoints/${endpoint.id}`,
      headers: { 'x-test-owner': owner },
    });
    expect(res.json()).toMatchObject({ status: 'disabled', disabled_reason: 'endpoint answered 410 Gone' });
    expect(receiver.requests).toHaveLength(1);

    const other = await createEndpoint();
    receiver.handler = () => ({ status: 200 });
    await emit();
    await eventually(async () => (await deliveries(other.id, '?status=succeeded')).length === 1);
    expect(receiver.requests).toHaveLength(2); // the 410, then the other endpoint's one; none to the disabled one
    // the event emitted while disabled is in the disabled endpoint's log as failed, never attempted
    await eventually(async () => (await deliveries(endpoint.id)).length === 2);
    const missed = (await deliveries(endpoint.id))[0];
    expect(missed).toMatchObject({ status: 'failed', attempt_count: 0 });
    const recover = () =>
      t.app.inject({
        method: 'POST',
        url: `/test/webhook-endpoints/${endpoint.id}/recover`,
        headers: { 'x-test-owner': owner },
        payload: { since: '2020-01-01T00:00:00Z' },
      });
    const refused = await recover();
    expect(refused.statusCode).toBe(409);
    expect(refused.json<{ error: { code: string } }>().error.code).toBe('webhook_endpoint_disabled');

    // another owner cannot enable it
    const foreign = await t.app.inject({
      method: 'POST',
      url: `/test/webhook-endpoints/${endpoint.id}/enable`,
      headers: { 'x-test-owner': `${owner}_other` },
    });
    expect(foreign.statusCode).toBe(404);
    const enabled = await t.app.inject({
      method: 'POST',
      url: `/test/webhook-endpoints/${endpoint.id}/enable`,
      headers: { 'x-test-owner': owner },
    });
    expect(enabled.statusCode).toBe(200);
    expect(enabled.json()).toMatchObject({ id: endpoint.id, status: 'enabled', disabled_reason: null, failing_since: null });
    expect(enabled.json()).not.toHaveProperty('secret');

    // enabling an endpoint that is failing but not disabled changes nothing (its window keeps counting)
    const failing = await createEndpoint();
    const since = new Date(Date.now() - 3_600_000);
    await prisma.webhookEndpoint.update({ where: { id: failing.id }, data: { failingSince: since } });
    const noop = await t.app.inject({
      method: 'POST',
      url: `/test/webhook-endpoints/${failing.id}/enable`,
      headers: { 'x-test-owner': owner },
    });
    expect(noop.statusCode).toBe(200);
    expect(noop.json()).toMatchObject({ status: 'enabled', failing_since: since.toISOString() });
    await t.app.inject({ method: 'DELETE', url: `/test/webhook-endpoints/${failing.id}`, headers: { 'x-test-owner': owner } });

    const before = receiver.requests.length;
    const recovered = await recover();
    expect(recovered.statusCode).toBe(202);
    expect(recovered.json()).toMatchObject({ requeued: 2 });
    await eventually(async () => (await deliveries(endpoint.id, '?status=succeeded')).length === 2);
    const ids = receiver.requests.slice(before).map((r) => (JSON.parse(r.body) as { id: string }).id);
    expect(new Set(ids)).toEqual(new Set((await deliveries(endpoint.id)).map((d) => d.event_id)));
  });

  it('purges events past the retention period once their deliveries have finished', async () => {
    const endpoint = await createEndpoint();
    receiver.handler = () => ({ status: 200 });
    const old = await emit();
    await eventually(async () => (await deliveries(endpoint.id, '?status=succeeded')).length === 1);
    const stillPending = await emitEvent(t.app, { ownerType: 'partner', ownerId: owner }, 'offer.closed', { n: 2 });
    const recent = await emitEvent(t.app, { ownerType: 'partner', ownerId: owner }, 'offer.closed', { n: 3 });
    await eventually(async () => (await prisma.webhookDelivery.count({ where: { endpointId: endpoint.id } })) === 3);
    const longAgo = new Date(Date.now() - 31 * 86_400_000);
    await prisma.webhookEvent.updateMany({
      where: { id: { in: [old, stillPending] } },
      data: { createdAt: longAgo, dispatchedAt: longAgo },
    });
    // a delivery still pending keeps its event, however old
    await prisma.webhookDelivery.updateMany({
      where: { eventId: stillPending },
      data: { status: 'pending', nextAttemptAt: new Date(Date.now() + 3_600_000) },
    });

    const purged = await t.app.get(OutboxDispatcher).purgeExpired();
    expect(purged).toBe(1); // `old` only: no other test leaves events this old
    const left = await prisma.webhookEvent.findMany({ where: { id: { in: [old, stillPending, recent] } }, select: { id: true } });
    expect(left.map((e) => e.id).sort()).toEqual([stillPending, recent].sort());
    expect(await prisma.webhookDelivery.count({ where: { eventId: old } })).toBe(0);
    expect(await prisma.webhookAttempt.count({ where: { delivery: { eventId: old } } })).toBe(0);
  });

  it('disables an endpoint that has been failing for the configured period (5 days)', async () => {
    const endpoint = await createEndpoint();
    await prisma.webhookEndpoint.update({
      where: { id: endpoint.id },
      data: { failingSince: new Date(Date.now() - 5 * 24 * 3_600_000 - 1_000) },
    });
    receiver.handler = () => ({ status: 500 });
    await emit();
    const res = await eventually(async () => {
      const r = await t.app.inject({
        method: 'GET',
        url: `/test/webhook-endpoints/${endpoint.id}`,
        headers: { 'x-test-owner': owner },
      });
      return r.json<WebhookEndpointView>().status === 'disabled' ? r.json<WebhookEndpointView>() : undefined;
    });
    expect(res.disabled_reason).toBe('failing continuously for 120 h');
    expect(receiver.requests).toHaveLength(1);
  });

  it('during a rotation grace both secrets sign; afterwards only the new one', async () => {
    const endpoint = await createEndpoint();
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/test/webhook-endpoints/${endpoint.id}/rotate-secret`,
      headers: { 'x-test-owner': owner },
    });
    expect(rotated.statusCode).toBe(200);
    const { secret: newSecret, previous_secret_expires_at } = rotated.json<WebhookEndpointView & { secret: string }>();
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(endpoint.secret);
    expect(Date.parse(String(previous_secret_expires_at)) - Date.now()).toBeGreaterThan(23 * 3_600_000);

    await emit();
    const req = await eventually(() => receiver.requests[0]);
    expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(standardWebhookSignaturesValidFor(newSecret, req.headers, req.body)).toBe(true);
    expect(standardWebhookSignaturesValidFor(endpoint.secret, req.headers, req.body)).toBe(true);
    expect(verifyServiceSignature(newSecret, req.body, req.headers['service-signature'] as string)).toBe(true);
    expect(verifyServiceSignature(endpoint.secret, req.body, req.headers['service-signature-previous'] as string)).toBe(true);

    // grace over
    await prisma.webhookEndpoint.update({
      where: { id: endpoint.id },
      data: { previousSecretExpiresAt: new Date(Date.now() - 1) },
    });
    await emit();
    const second = await eventually(() => receiver.requests[1]);
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(standardWebhookSignaturesValidFor(newSecret, second.headers, second.body)).toBe(true);
    expect(standardWebhookSignaturesValidFor(endpoint.secret, second.headers, second.body)).toBe(false);
    expect(second.headers['service-signature-previous']).toBeUndefined();
  });

  it('sends only the event types an endpoint asked for', async () => {
    const closedOnly = await createEndpoint({ events: ['offer.closed'] });
    expect(closedOnly.events).toEqual(['offer.closed']);
    await emit('offer.opened');
    const closedId = await emit('offer.closed');
    const req = await eventually(() => receiver.requests[0]);
    expect(req.headers['webhook-id']).toBe(closedId);
    await eventually(async () => (await deliveries(closedOnly.id, '?status=succeeded')).length === 1);
    expect(await deliveries(closedOnly.id)).toHaveLength(1);

    const bad = await t.app.inject({
      method: 'POST',
      url: '/test/webhook-endpoints',
      headers: { 'x-test-owner': owner },
      payload: { url: receiver.url, events: ['offer.opened', 'payment.succeeded'] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'parameter_invalid', param: 'events[1]' } });
  });

  it('does not deliver an event whose transaction rolled back', async () => {
    const endpoint = await createEndpoint();
    await expect(
      runTransaction(prisma, async (tx, closing) => {
        t.app
          .get(WebhookEmitter)
          .emit(closing, { ownerType: 'partner', ownerId: owner, event: 'offer.opened', data: {} }, undefined);
        await closing.flush(tx); // the outbox row is written (and notified) in the transaction, then rolled back
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    const committed = await emit('offer.closed');
    const req = await eventually(() => receiver.requests[0]);
    expect(req.headers['webhook-id']).toBe(committed);
    expect(await deliveries(endpoint.id)).toHaveLength(1);
    expect(await prisma.webhookEvent.count({ where: { ownerId: owner } })).toBe(1);
  });

  it('keeps every owner to its own endpoints and deliveries (404 resource_missing)', async () => {
    const mine = await createEndpoint();
    const stranger = { 'x-test-owner': `${owner}_other` };
    for (const [method, url] of [
      ['GET', `/test/webhook-endpoints/${mine.id}`],
      ['DELETE', `/test/webhook-endpoints/${mine.id}`],
      ['POST', `/test/webhook-endpoints/${mine.id}/rotate-secret`],
      ['GET', `/test/webhook-endpoints/${mine.id}/deliveries`],
      ['POST', `/test/webhook-endpoints/${mine.id}/deliveries/dlv_x/retry`],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: stranger });
      expect([method, url, res.statusCode, res.json<{ error: { code: string } }>().error.code]).toEqual([
        method,
        url,
        404,
        'resource_missing',
      ]);
    }
    const list = await t.app.inject({ method: 'GET', url: '/test/webhook-endpoints', headers: stranger });
    expect(list.json()).toEqual({ object: 'list', data: [], has_more: false });
    // the stranger's events never reach my endpoint
    await emitEvent(t.app, { ownerType: 'partner', ownerId: `${owner}_other` }, 'offer.opened', {});
    await emit('offer.closed');
    await eventually(async () => (await deliveries(mine.id, '?status=succeeded')).length === 1);
    expect(receiver.requests).toHaveLength(1);
  });

  it('shows the secret only on create and rotate, and never logs it', async () => {
    const endpoint = await createEndpoint();
    const get = await t.app.inject({
      method: 'GET',
      url: `/test/webhook-endpoints/${endpoint.id}`,
      headers: { 'x-test-owner': owner },
    });
    const list = await t.app.inject({ method: 'GET', url: '/test/webhook-endpoints', headers: { 'x-test-owner': owner } });
    expect(get.body).not.toContain('whsec_');
    expect(list.body).not.toContain('whsec_');
    expect(get.json()).not.toHaveProperty('secret');
    await emit();
    await eventually(async () => (await deliveries(endpoint.id, '?status=succeeded')).length === 1);
    expect(JSON.stringify(t.logs)).not.toContain(endpoint.secret.slice(6));

    const del = await t.app.inject({
      method: 'DELETE',
      url: `/test/webhook-endpoints/${endpoint.id}`,
      headers: { 'x-test-owner': owner },
    });
    expect(del.json()).toEqual({ id: endpoint.id, object: 'webhook_endpoint', deleted: true });
    const gone = await t.app.inject({
      method: 'GET',
      url: `/test/webhook-endpoints/${endpoint.id}`,
      headers: { 'x-test-owner': owner },
    });
    expect(gone.statusCode).toBe(404);
  });

  it('validates request bodies and queries at the edge', async () => {
    const h = { 'x-test-owner': owner };
    const missing = await t.app.inject({ method: 'POST', url: '/test/webhook-endpoints', headers: h, payload: {} });
    expect(missing.json()).toMatchObject({ error: { code: 'parameter_missing', param: 'url' } });
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/test/webhook-endpoints',
      headers: h,
      payload: { url: receiver.url, secret: 'mine' },
    });
    expect(unknown.json()).toMatchObject({ error: { code: 'parameter_unknown', param: 'secret' } });
    const notUrl = await t.app.inject({
      method: 'POST',
      url: '/test/webhook-endpoints',
      headers: h,
      payload: { url: 'ftp://x' },
    });
    expect(notUrl.statusCode).toBe(400);
    expect(notUrl.json()).toMatchObject({ error: { code: 'webhook_url_invalid', param: 'url' } });
    const endpoint = await createEndpoint();
    const badStatus = await t.app.inject({
      method: 'GET',
      url: `/test/webhook-endpoints/${endpoint.id}/deliveries?status=lost`,
      headers: h,
    });
    expect(badStatus.json()).toMatchObject({ error: { code: 'parameter_invalid', param: 'status' } });
    const badSince = await t.app.inject({
      method: 'POST',
      url: `/test/webhook-endpoints/${endpoint.id}/recover`,
      headers: h,
      payload: { since: 'yesterday' },
    });
    expect(badSince.json()).toMatchObject({ error: { code: 'parameter_invalid', param: 'since' } });
  });

  it('exposes delivery outcomes, attempt latency, outbox lag and queue depth in /metrics', async () => {
    const metrics = async (): Promise<string> => (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const line = (name: string, labels: Record<string, string>): RegExp =>
      new RegExp(
        `^${name}\\{${Object.entries(labels)
          .map(([k, v]) => `(?=[^}]*${k}="${v}")`)
          .join('')}[^}]*\\} ([\\d.]+)$`,
        'm',
      );
    const value = (body: string, name: string, labels: Record<string, string>): number =>
      Number(line(name, labels).exec(body)?.[1] ?? 0);
    const counted: Array<[string, Record<string, string>]> = [
      ['webhook_deliveries_total', { outcome: 'succeeded' }],
      ['webhook_deliveries_total', { outcome: 'retry_scheduled' }],
      ['webhook_deliveries_total', { outcome: 'endpoint_disabled' }],
      ['webhook_attempt_duration_seconds_count', { result: '2xx' }],
      ['webhook_attempt_duration_seconds_count', { result: 'non_2xx' }],
      ['webhook_attempt_duration_seconds_count', { result: 'error' }],
    ];
    const before = await metrics();

    // one event to two endpoints: one times out, answers 500, then 200; the other answers 410
    const flaky = await createEndpoint();
    const gone = await createEndpoint({ url: `${receiver.url}?gone` });
    receiver.handler = (r) => {
      if (r.path.endsWith('?gone')) return { status: 410 };
      const n = receiver.requests.filter((x) => !x.path.endsWith('?gone')).indexOf(r) + 1;
      return n === 1 ? { status: 200, delayMs: 2_000 } : n === 2 ? { status: 500 } : { status: 200 };
    };
    await emit();
    await eventually(async () => (await deliveries(flaky.id, '?status=succeeded')).length === 1);
    await eventually(async () => (await deliveries(gone.id, '?status=failed')).length === 1);

    const deltas = (after: string): number[] =>
      counted.map(([name, labels]) => value(after, name, labels) - value(before, name, labels));
    // the counters move just after the delivery rows are written: wait for the last two
    const after = await eventually(async () => {
      const body = await metrics();
      const [succeeded, , disabled] = deltas(body);
      return succeeded === 1 && disabled === 1 ? body : undefined;
    });
    expect(deltas(after)).toEqual([1, 2, 1, 1, 2, 1]);
    expect(after).toMatch(line('webhook_outbox_lag_seconds', { service: 'webhooks-probe' }));
    expect(after).toMatch(line('webhook_queue_depth', { state: 'waiting' }));
    expect(after).toMatch(line('webhook_queue_depth', { state: 'delayed' }));
  });
});
