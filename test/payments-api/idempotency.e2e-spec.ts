import { randomUUID } from 'node:crypto';
import { Clock, IdempotencyService, PrismaService, requestFingerprint } from '@app/platform';
import { jest } from '@jest/globals';
import { Client } from 'pg';
import type { LightMyRequestResponse } from 'fastify';
import { isStripeOperation, openApiOperations, type Operation } from '../security/support';
import { newAccount, newCustomer, startPayments, type Account, type ErrorJson, type PaymentsApp } from './payments-context';
import { FORM, makeStripeObjects, resourceOf, STRIPE_RESOURCES, stripeOpKind, type StripeSend } from './stripe/stripe-routes';

describe('Idempotency-Key on every POST (platform contract: Idempotency)', () => {
  let t: PaymentsApp;
  let acct: Account;
  let customer: string;
  let prisma: PrismaService;
  beforeAll(async () => {
    t = await startPayments();
    acct = await newAccount(t);
    customer = await newCustomer(t, acct.test);
    prisma = t.app.get(PrismaService);
  });
  afterAll(async () => {
    await t.close();
  });

  const payWithKey = (key: string, payload: object, headers = acct.test) =>
    t.app.inject({ method: 'POST', url: '/v2/payments', headers: { ...headers, 'idempotency-key': key }, payload });
  const paymentsOf = (c: string) => prisma.payment.count({ where: { customerId: c } });

  it('replays the original status and body with Idempotent-Replayed: true, charging once', async () => {
    const c = await newCustomer(t, acct.test);
    const key = randomUUID();
    const first = await payWithKey(key, { amount: 1500, currency: 'gbp', customer_id: c });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await payWithKey(key, { currency: 'gbp', customer_id: c, amount: 1500 }); // key order does not matter
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
    expect(await paymentsOf(c)).toBe(1);
  });

  it('replays a stored 402 for a declined charge, storing one failed payment', async () => {
    const c = await newCustomer(t, acct.test);
    const key = randomUUID();
    const body = { amount: 900, currency: 'gbp', customer_id: c, payment_method: 'pm_card_insufficient_funds' };
    const first = await payWithKey(key, body);
    expect(first.statusCode).toBe(402);
    const second = await payWithKey(key, body);
    expect(second.statusCode).toBe(402);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
    expect(await paymentsOf(c)).toBe(1);
  });

  it('writes the payment event with the stored response (one statement) and notifies the outbox at commit', async () => {
    const listener = new Client({ connectionString: t.db.url });
    await listener.connect();
    const notified: string[] = [];
    listener.on('notification', (n) => notified.push(`${n.channel}:${n.payload ?? ''}`));
    await listener.query('LISTEN webhook_outbox');
    try {
      for (const [method, event, status] of [
        ['pm_card_visa', 'payment.succeeded', 201],
        ['pm_card_insufficient_funds', 'payment.failed', 402],
      ] as const) {
        const c = await newCustomer(t, acct.test);
        const res = await payWithKey(randomUUID(), { amount: 700, currency: 'gbp', customer_id: c, payment_method: method });
        expect(res.statusCode).toBe(status);
        const payment = await prisma.payment.findFirstOrThrow({ where: { customerId: c } });
        const events = await prisma.$queryRaw<Array<{ event: string; id: string }>>`
          SELECT event, data->>'id' AS id FROM webhook_events WHERE data->>'id' = ${payment.id}`;
        expect(events).toEqual([{ event, id: payment.id }]);
      }
      const deadline = Date.now() + 5_000;
      while (notified.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(notified.slice(0, 2)).toEqual(['webhook_outbox:payments_account', 'webhook_outbox:payments_account']);
    } finally {
      await listener.end();
    }
  });

  it('answers the same key with another body with 422 idempotency_error', async () => {
    const key = randomUUID();
    expect((await payWithKey(key, { amount: 100, currency: 'gbp', customer_id: customer })).statusCode).toBe(201);
    const res = await payWithKey(key, { amount: 101, currency: 'gbp', customer_id: customer });
    expect(res.statusCode).toBe(422);
    expect(res.json<ErrorJson>().error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
  });

  it('scopes keys to the account and mode: another account with the same Idempotency-Key is a new request', async () => {
    const other: Account = await newAccount(t, 'Other');
    const otherCustomer = await newCustomer(t, other.test);
    const key = randomUUID();
    const a = await payWithKey(key, { amount: 100, currency: 'gbp', customer_id: customer });
    const b = await payWithKey(key, { amount: 100, currency: 'gbp', customer_id: otherCustomer }, other.test);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
  });

  it('rejects a key longer than 255 characters', async () => {
    const res = await payWithKey('k'.repeat(256), { amount: 100, currency: 'gbp', customer_id: customer });
    expect(res.statusCode).toBe(400);
    expect(res.json<ErrorJson>().error).toMatchObject({ code: 'parameter_invalid', param: 'Idempotency-Key' });
    expect((await payWithKey('k'.repeat(255), { amount: 100, currency: 'gbp', customer_id: customer })).statusCode).toBe(201);
  });

  it('does not store failures that committed nothing: the retry runs again', async () => {
    const c = await newCustomer(t, acct.test);
    const key = randomUUID();
    const bad = await payWithKey(key, { amount: 100, currency: 'GBP', customer_id: c });
    expect(bad.statusCode).toBe(400);
    const good = await payWithKey(key, { amount: 100, currency: 'gbp', customer_id: c });
    expect(good.statusCode).toBe(201);
    expect(good.headers['idempotent-replayed']).toBeUndefined();
    expect(await paymentsOf(c)).toBe(1);
  });

  it('50 parallel identical requests create exactly one payment; every answer is the same 201 or a 409', async () => {
    const c = await newCustomer(t, acct.test);
    const key = randomUUID();
    const body = { amount: 4200, currency: 'usd', customer_id: c };
    const responses = await Promise.all(Array.from({ length: 50 }, () => payWithKey(key, body)));
    const created = responses.filter((r) => r.statusCode === 201);
    const conflicts = responses.filter((r) => r.statusCode === 409);
    expect(created.length + conflicts.length).toBe(50);
    expect(created.length).toBeGreaterThanOrEqual(1);
    const bodies = new Set(created.map((r) => r.body));
    expect(bodies.size).toBe(1);
    for (const r of conflicts) {
      expect(r.json<ErrorJson>().error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_in_use' });
      const retryAfter = Number(r.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(30); // the rest of the 30 s lease, no more
    }
    expect(await paymentsOf(c)).toBe(1);
    const replay = await payWithKey(key, body);
    expect(replay.body).toBe([...bodies][0]);
  });

  it('a request that died between claim and commit blocks retries for the lease only, then its retry succeeds once', async () => {
    const c = await newCustomer(t, acct.test);
    const key = randomUUID();
    const body = { amount: 777, currency: 'gbp', customer_id: c };
    // What a process killed mid-request leaves behind: a claim with no response, nothing else.
    const lockedUntil = new Date(Date.now() + 400);
    await prisma.idempotencyKey.create({
      data: {
        scope: `payments:${acct.id}:test`, // the account and mode (third round), not the key
        key,
        fingerprint: requestFingerprint('POST', '/v2/payments', body),
        method: 'POST',
        path: '/v2/payments',
        lockedUntil,
        expiresAt: new Date(Date.now() + 86_400_000),
      },
    });
    const during = await payWithKey(key, body);
    expect(during.statusCode).toBe(409);
    expect(during.headers['retry-after']).toBe('1');
    // the lease is over once the service's clock passes lockedUntil
    const spy = jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date(lockedUntil.getTime() + 1));
    let retry;
    try {
      retry = await payWithKey(key, body);
    } finally {
      spy.mockRestore();
    }
    expect(retry.statusCode).toBe(201);
    const again = await payWithKey(key, body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(retry.body);
    expect(await paymentsOf(c)).toBe(1);
  });

  it('rolls back the effect with its response when the transaction fails, so the retry charges once', async () => {
    const c = await newCustomer(t, acct.test);
    const key = randomUUID();
    const body = { amount: 321, currency: 'gbp', customer_id: c };
    const events = t.app.get((await import('../../apps/payments-api/src/common/events')).PaymentEvents);
    // emit queues the outbox row on the transaction's Closing; failing there fails the work after the payment's INSERT
    const spy = jest.spyOn(events, 'emit').mockImplementationOnce(() => {
      throw new Error('connection lost before commit');
    });
    const failed = await payWithKey(key, body);
    expect(failed.statusCode).toBe(500);
    spy.mockRestore();
    expect(await paymentsOf(c)).toBe(0);
    const retry = await payWithKey(key, body);
    expect(retry.statusCode).toBe(201);
    expect(await paymentsOf(c)).toBe(1);
  });

  it('covers refunds and customers too, and purges records past retention', async () => {
    const p = (await payWithKey(randomUUID(), { amount: 1000, currency: 'gbp', customer_id: customer })).json<{ id: string }>();
    const key = randomUUID();
    const refund = () =>
      t.app.inject({
        method: 'POST',
        url: '/v2/refunds',
        headers: { ...acct.test, 'idempotency-key': key },
        payload: { payment_id: p.id, amount: 400 },
      });
    const [r1, r2] = [await refund(), await refund()];
    expect([r1.statusCode, r2.statusCode]).toEqual([201, 201]);
    expect(r2.headers['idempotent-replayed']).toBe('true');
    expect((await prisma.payment.findUniqueOrThrow({ where: { id: p.id } })).amountRefunded).toBe(400);

    const before = await prisma.idempotencyKey.count();
    expect(before).toBeGreaterThan(0);
    const clock = t.app.get(Clock);
    const spy = jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + 25 * 3_600_000));
    try {
      expect(await t.app.get(IdempotencyService).purgeExpired()).toBe(before);
    } finally {
      spy.mockRestore();
    }
    expect(await prisma.idempotencyKey.count()).toBe(0);
  });
});

/**
 * Stripe's /v1 (every POST of /openapi.json tagged stripe whose body the suites know: creates
 * and updates): a replay is the stored /v1 answer byte for byte with Idempotent-Replayed: true;
 * the same key with another body is 400 idempotency_error (Stripe's status; the SDK raises
 * StripeIdempotencyError); a key still in flight is 409 idempotency_error with
 * Stripe-Should-Retry: true (the SDK retries it).
 */
describe("Idempotency-Key on Stripe's /v1", () => {
  let t: PaymentsApp;
  let acct: Account;
  let posts: Array<{ op: Operation; url: string; form: string }>;

  const send: StripeSend = (auth, method, url, form, headers = {}) =>
    t.app.inject({
      method,
      url,
      headers: { ...auth, ...headers, ...(form === undefined ? {} : FORM) },
      ...(form === undefined ? {} : { payload: form }),
    });

  beforeAll(async () => {
    t = await startPayments();
    acct = await newAccount(t);
    const ops = (await openApiOperations(t.app)).filter(isStripeOperation);
    const has = (resource: string): boolean => ops.some((o) => o.method === 'POST' && o.path === `/v1/${resource}`);
    const refs: Record<string, string> = {};
    const made = await makeStripeObjects(send, acct.test, has, refs);
    posts = [];
    let serial = 100;
    for (const op of ops.filter((o) => o.method === 'POST')) {
      const resource = resourceOf(op.path);
      const spec = STRIPE_RESOURCES[resource];
      const kind = stripeOpKind(op);
      if (kind === 'create' && spec?.create) posts.push({ op, url: op.path, form: spec.create(refs, serial++) });
      const id = made[resource]?.[0];
      if (kind === 'object' && op.path === `/v1/${resource}/{id}` && spec?.update && id !== undefined)
        posts.push({ op, url: op.path.replace('{id}', id), form: spec.update.replace('pwned', `idempotent ${serial++}`) });
    }
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (url: string, key: string, form: string, auth = acct.test): Promise<LightMyRequestResponse> =>
    send(auth, 'POST', url, form, { 'idempotency-key': key });
  const idempotencyError = (res: LightMyRequestResponse): unknown => [
    res.statusCode,
    res.json<{ error: { type: string; code: string } }>().error.type,
    res.json<{ error: { type: string; code: string } }>().error.code,
    res.headers['stripe-should-retry'],
  ];

  it('finds the /v1 creates and updates (so the cases below run on each)', () => {
    expect(posts.map((p) => `POST ${p.op.path}`)).toEqual(
      expect.arrayContaining(['POST /v1/customers', 'POST /v1/customers/{id}']),
    );
  });

  it('replays the stored /v1 answer byte for byte with Idempotent-Replayed: true, doing the work once', async () => {
    for (const { url, form } of posts) {
      const key = randomUUID();
      const first = await post(url, key, form);
      expect([url, first.statusCode, first.headers['idempotent-replayed']]).toEqual([url, 200, undefined]);
      const object = first.json<{ object?: string; id: string }>();
      expect(object.object).toBeDefined(); // the /v1 shape, not /v2's
      const events = await t.app.get(PrismaService).webhookEvent.count();
      const again = await post(url, key, form);
      expect([url, again.statusCode, again.headers['idempotent-replayed']]).toEqual([url, 200, 'true']);
      expect([url, again.body]).toEqual([url, first.body]);
      expect([url, await t.app.get(PrismaService).webhookEvent.count()]).toEqual([url, events]);
    }
  });

  it('the same key with another body: 400 idempotency_error (Stripe-Should-Retry: false), nothing done', async () => {
    for (const { url, form } of posts) {
      const key = randomUUID();
      expect((await post(url, key, form)).statusCode).toBe(200);
      const events = await t.app.get(PrismaService).webhookEvent.count();
      const other = await post(url, key, `${form}&metadata[idempotency]=another`);
      expect([url, idempotencyError(other)]).toEqual([url, [400, 'idempotency_error', 'idempotency_key_reused', 'false']]);
      expect([url, await t.app.get(PrismaService).webhookEvent.count()]).toEqual([url, events]);
    }
  });

  it('a key still in flight: 409 idempotency_error with Stripe-Should-Retry: true', async () => {
    const prisma = t.app.get(PrismaService);
    for (const { url, form } of posts) {
      const key = randomUUID();
      expect((await post(url, key, form)).statusCode).toBe(200);
      // what a request still running leaves: its claim, leased, with no answer yet
      const updated = await prisma.idempotencyKey.updateMany({
        where: { key },
        data: { responseStatus: null, responseBody: null, lockedUntil: new Date(Date.now() + 3_600_000) },
      });
      expect(updated.count).toBe(1);
      const during = await post(url, key, form);
      expect([url, idempotencyError(during)]).toEqual([url, [409, 'idempotency_error', 'idempotency_key_in_use', 'true']]);
    }
  });

  it("a key used on /v2 then on /v1 with the same fields is another request: 400, not /v2's answer replayed", async () => {
    const key = randomUUID();
    const v2 = await t.app.inject({
      method: 'POST',
      url: '/v2/customers',
      headers: { ...acct.test, 'idempotency-key': key },
      payload: { email: 'both@shop.example' },
    });
    expect(v2.statusCode).toBe(201);
    const v1 = await post('/v1/customers', key, 'email=both%40shop.example');
    expect(idempotencyError(v1)).toEqual([400, 'idempotency_error', 'idempotency_key_reused', 'false']);
    // and the reverse, with a key first used on /v1
    const key2 = randomUUID();
    expect((await post('/v1/customers', key2, 'email=back%40shop.example')).statusCode).toBe(200);
    const back = await t.app.inject({
      method: 'POST',
      url: '/v2/customers',
      headers: { ...acct.test, 'idempotency-key': key2 },
      payload: { email: 'back@shop.example' },
    });
    expect([back.statusCode, back.json<ErrorJson>().error.code]).toEqual([422, 'idempotency_key_reused']);
  });
});
