import { Clock, QueueRegistry } from '@app/platform';
import { jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { AUTHORIZATION_QUEUE, expireJobId } from '../../apps/payments-api/src/payments/authorization-expiry.jobs';
import { AuthorizationsService } from '../../apps/payments-api/src/payments/authorizations.service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { startTestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { waitFor } from '../support/wait';
import { newAccount, newCustomer, startPayments, type Account, type ErrorJson, type PaymentsApp } from './payments-context';

interface Payment {
  id: string;
  status: string;
  amount: number;
  capture_method: string;
  amount_capturable: number;
  amount_received: number;
  amount_refunded: number;
  refunded: boolean;
  capture_before: string | null;
  captured_at: string | null;
  canceled_at: string | null;
  cancellation_reason: string | null;
  description: string | null;
  metadata: Record<string, string>;
  payment_method: string;
}
interface EventJson {
  id: string;
  object: string;
  event: string;
  data: { id: string; status: string };
}

const HOUR = 3_600_000;

describe('payments-api: authorize and capture, cancel, update, refund metadata, aliases', () => {
  let t: PaymentsApp;
  let acct: Account;
  let customer: string;
  beforeAll(async () => {
    t = await startPayments();
    acct = await newAccount(t);
    customer = await newCustomer(t, acct.test);
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (url: string, payload: object = {}, headers = acct.test) =>
    t.app.inject({ method: 'POST', url, headers, payload });
  const get = (url: string, headers = acct.test) => t.app.inject({ method: 'GET', url, headers });
  const authorize = async (amount = 5000, fields: object = {}): Promise<Payment> => {
    const res = await post('/v2/payments', {
      amount,
      currency: 'gbp',
      customer_id: customer,
      capture_method: 'manual',
      ...fields,
    });
    expect(res.statusCode).toBe(201);
    return res.json<Payment>();
  };
  const eventsOf = async (type: string, paymentId: string): Promise<EventJson[]> => {
    const res = await get(`/v2/events?type=${type}&limit=100`);
    expect(res.statusCode).toBe(200);
    return res.json<{ data: EventJson[] }>().data.filter((e) => e.data.id === paymentId);
  };

  it('manual: requires_capture with what is capturable and when it expires; payment.requires_capture is listed', async () => {
    const before = Date.now();
    const p = await authorize(5000);
    expect(p).toMatchObject({
      status: 'requires_capture',
      capture_method: 'manual',
      amount_capturable: 5000,
      amount_received: 0,
      captured_at: null,
      canceled_at: null,
      cancellation_reason: null,
      refunded: false,
    });
    const expires = Date.parse(p.capture_before ?? '');
    expect(expires).toBeGreaterThanOrEqual(before + 168 * HOUR);
    expect(expires).toBeLessThanOrEqual(Date.now() + 168 * HOUR);
    const [event] = await eventsOf('payment.requires_capture', p.id);
    expect(event).toMatchObject({ object: 'event', event: 'payment.requires_capture', data: { status: 'requires_capture' } });
    expect(await eventsOf('payment.succeeded', p.id)).toEqual([]);

    const automatic = await post('/v2/payments', { amount: 700, currency: 'gbp', customer_id: customer });
    expect(automatic.json<Payment>()).toMatchObject({
      status: 'succeeded',
      capture_method: 'automatic',
      amount_capturable: 0,
      amount_received: 700,
      capture_before: null,
    });
  });

  it('a declined authorization still fails with 402 and holds nothing', async () => {
    const res = await post('/v2/payments', {
      amount: 100,
      currency: 'gbp',
      customer_id: customer,
      capture_method: 'manual',
      payment_method: 'pm_card_declined',
    });
    expect(res.statusCode).toBe(402);
    const stored = await get(`/v2/payments/${String(res.json<ErrorJson>().error['payment_id'])}`);
    expect(stored.json<Payment>()).toMatchObject({ status: 'failed', amount_capturable: 0, capture_before: null });
  });

  it('refuses to capture more than was authorized (400 amount_exceeds_capturable), then captures in part', async () => {
    const p = await authorize(5000);

    const tooMuch = await post(`/v2/payments/${p.id}/capture`, { amount_to_capture: 5001 });
    expect(tooMuch.statusCode).toBe(400);
    expect(tooMuch.json<ErrorJson>().error).toMatchObject({
      type: 'invalid_request_error',
      code: 'amount_exceeds_capturable',
      param: 'amount_to_capture',
    });
    expect((await get(`/v2/payments/${p.id}`)).json<Payment>().status).toBe('requires_capture');

    const captured = await post(`/v2/payments/${p.id}/capture`, { amount_to_capture: 3000 });
    expect(captured.statusCode).toBe(200);
    expect(captured.json<Payment>()).toMatchObject({
      status: 'succeeded',
      amount: 5000,
      amount_capturable: 0,
      amount_received: 3000,
      refunded: false,
    });
    expect(captured.json<Payment>().captured_at).not.toBeNull();
    expect(await eventsOf('payment.captured', p.id)).toHaveLength(1);
    expect(await eventsOf('payment.succeeded', p.id)).toHaveLength(1);

    // Only what was captured is refundable.
    const over = await post('/v2/refunds', { payment_id: p.id, amount: 3001 });
    expect(over.json<ErrorJson>().error.code).toBe('amount_exceeds_refundable');
    const all = await post('/v2/refunds', { payment_id: p.id });
    expect(all.json<{ amount: number }>().amount).toBe(3000);
    expect((await get(`/v2/payments/${p.id}`)).json<Payment>()).toMatchObject({ amount_refunded: 3000, refunded: true });

    const again = await post(`/v2/payments/${p.id}/capture`);
    expect(again.statusCode).toBe(400);
    expect(again.json<ErrorJson>().error.code).toBe('payment_unexpected_state');
    expect(again.json<ErrorJson>().error.message).toContain('succeeded');
  });

  it('captures in full by default', async () => {
    const p = await authorize(1234);
    const res = await post(`/v2/payments/${p.id}/capture`);
    expect(res.json<Payment>()).toMatchObject({ status: 'succeeded', amount_received: 1234, amount_capturable: 0 });
  });

  it('capture and cancel take a request without a body, as Stripe does (curl -X POST)', async () => {
    const first = await authorize(700);
    const bare = (url: string) => t.app.inject({ method: 'POST', url, headers: acct.test });
    const captured = await bare(`/v2/payments/${first.id}/capture`);
    expect(captured.statusCode).toBe(200);
    expect(captured.json<Payment>()).toMatchObject({ status: 'succeeded', amount_received: 700 });
    const second = await authorize(800);
    const canceled = await bare(`/v2/payments/${second.id}/cancel`);
    expect(canceled.statusCode).toBe(200);
    expect(canceled.json<Payment>()).toMatchObject({ status: 'canceled', amount_received: 0 });
  });

  it('refuses to refund an uncaptured or canceled payment (400 payment_not_refundable)', async () => {
    const p = await authorize(2000);
    const uncaptured = await post('/v2/refunds', { payment_id: p.id });
    expect(uncaptured.statusCode).toBe(400);
    expect(uncaptured.json<ErrorJson>().error).toMatchObject({ code: 'payment_not_refundable', param: 'payment_id' });

    const canceled = await post(`/v2/payments/${p.id}/cancel`, { cancellation_reason: 'abandoned' });
    expect(canceled.statusCode).toBe(200);
    expect(canceled.json<Payment>()).toMatchObject({
      status: 'canceled',
      amount_capturable: 0,
      cancellation_reason: 'abandoned',
    });
    expect(canceled.json<Payment>().canceled_at).not.toBeNull();
    expect(await eventsOf('payment.canceled', p.id)).toHaveLength(1);
    const after = await post('/v2/refunds', { payment_id: p.id, amount: 1 });
    expect(after.json<ErrorJson>().error.code).toBe('payment_not_refundable');

    for (const action of ['capture', 'cancel']) {
      const res = await post(`/v2/payments/${p.id}/${action}`);
      expect([action, res.statusCode, res.json<ErrorJson>().error.code]).toEqual([action, 400, 'payment_unexpected_state']);
    }
  });

  it('cancel of an automatic payment is payment_unexpected_state; unknown reasons and ids are refused', async () => {
    const paid = await post('/v2/payments', { amount: 900, currency: 'gbp', customer_id: customer });
    const id = paid.json<Payment>().id;
    const cancel = await post(`/v2/payments/${id}/cancel`);
    expect(cancel.json<ErrorJson>().error.code).toBe('payment_unexpected_state');
    const reason = await post(`/v2/payments/${id}/cancel`, { cancellation_reason: 'automatic' });
    expect(reason.json<ErrorJson>().error).toMatchObject({ code: 'parameter_invalid', param: 'cancellation_reason' });
    const missing = await post('/v2/payments/pay_nope/capture');
    expect(missing.statusCode).toBe(404);
  });

  it('concurrent capture and cancel: exactly one wins, and only its event is written', async () => {
    for (let round = 0; round < 5; round++) {
      const p = await authorize(4000);
      const [capture, cancel] = await Promise.all([
        post(`/v2/payments/${p.id}/capture`, { amount_to_capture: 4000 }),
        post(`/v2/payments/${p.id}/cancel`),
      ]);
      const codes = [capture.statusCode, cancel.statusCode].sort();
      expect(codes).toEqual([200, 400]);
      const loser = capture.statusCode === 400 ? capture : cancel;
      expect(loser.json<ErrorJson>().error.code).toBe('payment_unexpected_state');
      const final = (await get(`/v2/payments/${p.id}`)).json<Payment>();
      expect(final.status).toBe(capture.statusCode === 200 ? 'succeeded' : 'canceled');
      const captured = await eventsOf('payment.captured', p.id);
      const canceled = await eventsOf('payment.canceled', p.id);
      expect([captured.length, canceled.length]).toEqual(capture.statusCode === 200 ? [1, 0] : [0, 1]);
    }
  });

  it('replays capture under the same Idempotency-Key', async () => {
    const p = await authorize(800);
    const headers = { ...acct.test, 'idempotency-key': `cap-${p.id}` };
    const first = await post(`/v2/payments/${p.id}/capture`, { amount_to_capture: 500 }, headers);
    const second = await post(`/v2/payments/${p.id}/capture`, { amount_to_capture: 500 }, headers);
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
    expect(await eventsOf('payment.captured', p.id)).toHaveLength(1);
  });

  it('updates description and metadata with Stripe merge semantics', async () => {
    const created = await post('/v2/payments', {
      amount: 300,
      currency: 'gbp',
      customer_id: customer,
      description: 'Order 7',
      metadata: { order: '7', channel: 'web', gift: 'yes' },
    });
    const id = created.json<Payment>().id;
    const res = await post(`/v2/payments/${id}`, { metadata: { channel: '', gift: null, tier: 'gold' } });
    expect(res.statusCode).toBe(200);
    expect(res.json<Payment>()).toMatchObject({ description: 'Order 7', metadata: { order: '7', tier: 'gold' } });
    expect(Object.keys(res.json<Payment>().metadata).sort()).toEqual(['order', 'tier']);

    const described = await post(`/v2/payments/${id}`, { description: 'Order 7 (gift)' });
    expect(described.json<Payment>()).toMatchObject({ description: 'Order 7 (gift)', metadata: { order: '7', tier: 'gold' } });
    const cleared = await post(`/v2/payments/${id}`, { metadata: null, description: '' });
    expect(cleared.json<Payment>()).toMatchObject({ description: null, metadata: {} });
    expect((await get(`/v2/payments/${id}`)).json()).toEqual(cleared.json());

    for (const [payload, param] of [
      [{ amount: 1 }, 'amount'],
      [{ metadata: { n: 1 } }, 'metadata'],
      [{ metadata: 'x' }, 'metadata'],
    ] as const) {
      const bad = await post(`/v2/payments/${id}`, payload);
      expect([payload, bad.statusCode, bad.json<ErrorJson>().error.param]).toEqual([payload, 400, param]);
    }
    const full = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    expect((await post(`/v2/payments/${id}`, { metadata: full })).statusCode).toBe(200);
    const tooMany = await post(`/v2/payments/${id}`, { metadata: { one_more: 'v' } });
    expect(tooMany.json<ErrorJson>().error).toMatchObject({ code: 'parameter_invalid', param: 'metadata' });
    expect((await post('/v2/payments/pay_nope', { description: 'x' })).statusCode).toBe(404);
  });

  it('refunds take metadata on create, show it, and merge it on update', async () => {
    const paid = await post('/v2/payments', { amount: 1000, currency: 'gbp', customer_id: customer });
    const created = await post('/v2/refunds', {
      payment_id: paid.json<Payment>().id,
      amount: 400,
      metadata: { ticket: 'T-1', agent: 'ann' },
    });
    expect(created.statusCode).toBe(201);
    const refund = created.json<{ id: string; metadata: Record<string, string> }>();
    expect(refund.metadata).toEqual({ ticket: 'T-1', agent: 'ann' });
    const updated = await post(`/v2/refunds/${refund.id}`, { metadata: { agent: '', note: 'late' } });
    expect(updated.statusCode).toBe(200);
    expect(updated.json<{ metadata: object; amount: number }>()).toMatchObject({
      amount: 400,
      metadata: { ticket: 'T-1', note: 'late' },
    });
    expect((await get(`/v2/refunds/${refund.id}`)).json()).toEqual(updated.json());
    const bad = await post(`/v2/refunds/${refund.id}`, { amount: 5 });
    expect([bad.statusCode, bad.json<ErrorJson>().error.param]).toEqual([400, 'amount']);
    expect((await post('/v2/refunds/re_nope', { metadata: {} })).statusCode).toBe(404);
  });

  it.each([
    ['tok_visa', 201, 'succeeded', undefined],
    ['tok_mastercard', 201, 'succeeded', undefined],
    ['pm_card_chargeDeclined', 402, 'card_declined', 'generic_decline'],
    ['tok_chargeDeclined', 402, 'card_declined', 'generic_decline'],
    ['pm_card_chargeDeclinedInsufficientFunds', 402, 'card_declined', 'insufficient_funds'],
    ['pm_card_chargeDeclinedProcessingError', 402, 'processing_error', undefined],
  ])("Stripe's test alias %s → %i", async (method, status, outcome, decline) => {
    const res = await post('/v2/payments', { amount: 250, currency: 'usd', customer_id: customer, payment_method: method });
    expect(res.statusCode).toBe(status);
    if (status === 201) {
      expect(res.json<Payment>()).toMatchObject({ status: outcome, payment_method: method });
    } else {
      expect(res.json<ErrorJson>().error).toMatchObject({ type: 'card_error', code: outcome });
      expect(res.json<ErrorJson>().error['decline_code']).toBe(decline);
    }
  });
});

describe('payments-api: authorization expiry (BullMQ delayed job, fake clock)', () => {
  let db: TestDatabase;
  const prefix = `test-auth-${randomBytes(4).toString('hex')}`;
  let app: PaymentsApp | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await app?.close();
    app = undefined;
  });
  afterAll(async () => {
    await db.drop();
  });

  const start = (queuePrefix: string, env: Record<string, string> = {}): Promise<PaymentsApp> =>
    startTestApp(paymentsService, { QUEUE_PREFIX: queuePrefix, ...env }, { db });
  /** Freezes the app's clock at `at` (ms) and returns a setter. */
  const freezeClock = (a: PaymentsApp, at: number): ((ms: number) => void) => {
    let now = at;
    jest.spyOn(a.app.get(Clock), 'now').mockImplementation(() => new Date(now));
    return (ms) => (now = ms);
  };
  const canceledEvents = async (a: PaymentsApp, auth: Record<string, string>, id: string): Promise<EventJson[]> => {
    const res = await a.app.inject({ method: 'GET', url: '/v2/events?type=payment.canceled&limit=100', headers: auth });
    return res.json<{ data: EventJson[] }>().data.filter((e) => e.data.id === id);
  };

  it('the delayed job survives a restart and cancels the expired authorization once (cancellation_reason automatic)', async () => {
    app = await start(prefix, { AUTHORIZATION_TTL_HOURS: '24' });
    const t0 = Date.now();
    let setNow = freezeClock(app, t0);
    const acct = await newAccount(app);
    const customer = await newCustomer(app, acct.test);
    const res = await app.app.inject({
      method: 'POST',
      url: '/v2/payments',
      headers: acct.test,
      payload: { amount: 6000, currency: 'eur', customer_id: customer, capture_method: 'manual' },
    });
    const p = res.json<Payment>();
    expect(p.capture_before).toBe(new Date(t0 + 24 * HOUR).toISOString());

    // The job waits in Redis with its deterministic id and the TTL as its delay.
    const jobId = expireJobId(p.id, new Date(t0 + 24 * HOUR));
    const job = await app.app.get(QueueRegistry).queue(AUTHORIZATION_QUEUE).getJob(jobId);
    expect(job?.delay).toBe(24 * HOUR);
    expect(await job?.getState()).toBe('delayed');

    // Before capture_before, an expiry (an early job, a sweep) changes nothing.
    setNow(t0 + 24 * HOUR - 1);
    expect(await app.app.get(AuthorizationsService).expire(p.id)).toBe(false);
    expect(await app.app.get(AuthorizationsService).sweep()).toEqual({ expired: 0, scheduled: 1 });

    // Restart; the job is still there. Time passes capture_before and the job fires (promoted
    // instead of waiting a day).
    await app.close();
    app = await start(prefix, { AUTHORIZATION_TTL_HOURS: '24' });
    setNow = freezeClock(app, t0 + 24 * HOUR + 1);
    const queue = app.app.get(QueueRegistry).queue(AUTHORIZATION_QUEUE);
    const waiting = await queue.getJob(jobId);
    expect(await waiting?.getState()).toBe('delayed');
    await waiting?.promote();
    const a = app;
    const canceled = await waitFor('the expiry job', async () => {
      const got = (await a.app.inject({ method: 'GET', url: `/v2/payments/${p.id}`, headers: acct.test })).json<Payment>();
      return got.status === 'canceled' ? got : undefined;
    });
    expect(canceled).toMatchObject({
      status: 'canceled',
      amount_capturable: 0,
      amount_received: 0,
      cancellation_reason: 'automatic',
      canceled_at: new Date(t0 + 24 * HOUR + 1).toISOString(),
    });

    // Duplicate and late expiries, and a sweep, change nothing: the event was written once.
    setNow(t0 + 48 * HOUR);
    const auth = app.app.get(AuthorizationsService);
    expect(await Promise.all([auth.expire(p.id), auth.expire(p.id), auth.sweep()])).toEqual([
      false,
      false,
      { expired: 0, scheduled: 0 },
    ]);
    const events = await canceledEvents(app, acct.test, p.id);
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({ status: 'canceled', cancellation_reason: 'automatic' });
    const capture = await app.app.inject({
      method: 'POST',
      url: `/v2/payments/${p.id}/capture`,
      headers: acct.test,
      payload: {},
    });
    expect(capture.json<ErrorJson>().error.code).toBe('payment_unexpected_state');
  });

  it('the boot sweep cancels an authorization whose job was lost (new Redis prefix) and re-enqueues pending ones', async () => {
    app = await start(`${prefix}-a`);
    const acct = await newAccount(app);
    const customer = await newCustomer(app, acct.test);
    const authorize = async (a: PaymentsApp): Promise<Payment> =>
      (
        await a.app.inject({
          method: 'POST',
          url: '/v2/payments',
          headers: acct.test,
          payload: { amount: 100, currency: 'gbp', customer_id: customer, capture_method: 'manual' },
        })
      ).json<Payment>();
    const expired = await authorize(app);
    const pending = await authorize(app);
    await app.close();
    // Down while one authorization falls due (moved into the past instead of waiting a week).
    const direct = new Client({ connectionString: db.url });
    await direct.connect();
    try {
      await direct.query('UPDATE payments SET capture_before = $2 WHERE id = $1', [expired.id, new Date(Date.now() - 60_000)]);
    } finally {
      await direct.end();
    }
    app = await start(`${prefix}-b`);
    const a = app;
    await waitFor('the boot sweep', async () => {
      const got = (await a.app.inject({ method: 'GET', url: `/v2/payments/${expired.id}`, headers: acct.test })).json<Payment>();
      return got.status === 'canceled' ? got : undefined;
    });
    expect(await canceledEvents(app, acct.test, expired.id)).toHaveLength(1);
    const still = (
      await app.app.inject({ method: 'GET', url: `/v2/payments/${pending.id}`, headers: acct.test })
    ).json<Payment>();
    expect(still.status).toBe('requires_capture');
    const queue = app.app.get(QueueRegistry).queue(AUTHORIZATION_QUEUE);
    const job = await waitFor('the re-enqueued expiry', () =>
      queue.getJob(expireJobId(pending.id, new Date(still.capture_before ?? ''))),
    );
    expect(await job.getState()).toBe('delayed');
  });
});
