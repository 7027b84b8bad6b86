/**
 * Stripe's /v1 payment intents through the official `stripe` SDK's own methods, unmodified
 * (issue 35), against the app on a loopback port with the real PostgreSQL and Redis: every
 * route, create+confirm, partial capture, declines as StripeCardError, an idempotent create
 * retried by the SDK itself, auto-pagination, expand, what /v2 sees and the events written.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrismaService } from '@app/platform';
import Stripe from 'stripe';
import { AuthorizationsService } from '../../../apps/payments-api/src/payments/authorizations.service';
import { startStripeApp, type StripeApp, stripeRejection } from './stripe-context';

/** The id of the intent's latest payment (latest_charge, unexpanded). */
function chargeOf(intent: Stripe.PaymentIntent): string {
  if (typeof intent.latest_charge !== 'string') throw new Error(`${intent.id} has no latest_charge id`);
  return intent.latest_charge;
}

interface V2Payment {
  id: string;
  status: string;
  amount: number;
  amount_received: number;
  amount_capturable: number;
  customer_id: string | null;
  failure_code: string | null;
  decline_code: string | null;
}

describe('/v1/payment_intents with the official Stripe SDK', () => {
  let s: StripeApp;
  let stripe: Stripe;
  let prisma: PrismaService;

  beforeAll(async () => {
    s = await startStripeApp();
    stripe = s.stripe;
    prisma = s.t.app.get(PrismaService);
  });
  afterAll(async () => {
    await s.close();
  });

  /** A fresh account (its own /v2 payments and events) with its SDK client. */
  const shop = async (): Promise<{ stripe: Stripe; key: string; id: string }> => {
    const a = await s.newAccount();
    return { stripe: s.sdk(a.secretKey), key: a.secretKey, id: a.id };
  };
  const v2 = async <T>(
    key: string,
    path: string,
    method: 'GET' | 'POST' = 'GET',
    payload?: object,
  ): Promise<{ status: number; body: T }> => {
    const res = await s.t.app.inject({
      method,
      url: path,
      headers: { authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
      ...(payload ? { payload } : {}),
    });
    return { status: res.statusCode, body: res.json<T>() };
  };
  /** The account's events as stored: /v2 kind, Stripe type, the /v1 object's status and id, oldest first. */
  const events = async (accountId: string) => {
    const rows = await prisma.webhookEvent.findMany({
      where: { ownerId: `${accountId}:test` },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    // The events of one transaction share created_at (now() of the transaction) and their ids
    // are random: list them in the order the code emits them (created, captured, the rest).
    const rank = (r: (typeof rows)[number]): number =>
      r.dialectEvent === 'payment_intent.created' ? 0 : r.event === 'payment.captured' ? 1 : 2;
    const ordered = [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || rank(a) - rank(b));
    return ordered.map((r) => {
      const object = (r.dialectData as { object?: { status?: string; id?: string } } | null)?.object;
      return { event: r.event, type: r.dialectEvent, status: object?.status ?? null, id: object?.id ?? null };
    });
  };

  it('create, retrieve, update, confirm: requires_payment_method → requires_confirmation → succeeded; /v2 sees the payment only once confirmed', async () => {
    const { stripe: sdk, key, id: accountId } = await shop();
    const customer = await sdk.customers.create({ email: 'jenny@example.com' });

    const created = await sdk.paymentIntents.create({
      amount: 2000,
      currency: 'gbp',
      customer: customer.id,
      description: 'Order 1042',
      metadata: { order_id: '1042', channel: 'web' },
    });
    expect(created).toMatchObject({
      object: 'payment_intent',
      amount: 2000,
      currency: 'gbp',
      customer: customer.id,
      status: 'requires_payment_method',
      amount_capturable: 0,
      amount_received: 0,
      capture_method: 'automatic',
      confirmation_method: 'automatic',
      latest_charge: null,
      last_payment_error: null,
      livemode: false,
      payment_method: null,
      payment_method_types: ['card'],
      metadata: { order_id: '1042', channel: 'web' },
    });
    expect(created.id).toMatch(/^pi_/);
    expect(created.client_secret).toMatch(new RegExp(`^${created.id}_secret_[0-9A-Za-z]{25}$`));
    expect(Math.abs(created.created - Date.now() / 1000)).toBeLessThan(600);
    expect(await sdk.paymentIntents.retrieve(created.id)).toEqual(created);

    // not a /v2 payment until it reaches a /v2 state
    expect((await v2<{ data: unknown[] }>(key, '/v2/payments')).body.data).toEqual([]);

    const updated = await sdk.paymentIntents.update(created.id, {
      amount: 2500,
      payment_method: 'pm_card_visa',
      metadata: { channel: '', gift: 'yes' },
    });
    expect(updated).toMatchObject({
      status: 'requires_confirmation',
      amount: 2500,
      payment_method: 'pm_card_visa',
      metadata: { order_id: '1042', gift: 'yes' },
    });
    expect((await v2<{ data: unknown[] }>(key, '/v2/payments')).body.data).toEqual([]);

    const confirmed = await sdk.paymentIntents.confirm(created.id);
    expect(confirmed).toMatchObject({ status: 'succeeded', amount: 2500, amount_received: 2500, amount_capturable: 0 });
    expect(confirmed.latest_charge).toMatch(/^pay_/);

    const payment = await v2<V2Payment>(key, `/v2/payments/${chargeOf(confirmed)}`);
    expect(payment.status).toBe(200);
    expect(payment.body).toMatchObject({ status: 'succeeded', amount: 2500, amount_received: 2500, customer_id: customer.id });
    expect((await v2<{ data: unknown[] }>(key, '/v2/payments')).body.data).toHaveLength(1);

    // description and metadata change after the payment too; the amount no longer does
    const later = await sdk.paymentIntents.update(created.id, { description: 'Order 1042 (shipped)' });
    expect(later).toMatchObject({ status: 'succeeded', description: 'Order 1042 (shipped)' });
    const refused = await stripeRejection(sdk.paymentIntents.update(created.id, { amount: 100 }));
    expect(refused).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(refused).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
    expect(refused.message).toContain('succeeded');

    // a confirmation of a succeeded intent is refused as Stripe refuses it (400, not 409)
    const again = await stripeRejection(sdk.paymentIntents.confirm(created.id, { payment_method: 'pm_card_visa' }));
    expect(again).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });

    expect((await events(accountId)).filter((e) => e.type?.startsWith('payment_intent.'))).toEqual([
      { event: null, type: 'payment_intent.created', status: 'requires_payment_method', id: created.id },
      { event: 'payment.succeeded', type: 'payment_intent.succeeded', status: 'succeeded', id: created.id },
    ]);
  });

  it('create with confirm=true: one call, two events (payment_intent.created, then payment_intent.succeeded with payment.succeeded)', async () => {
    const { stripe: sdk, key, id: accountId } = await shop();
    const intent = await sdk.paymentIntents.create({ amount: 1999, currency: 'usd', payment_method: 'tok_visa', confirm: true });
    expect(intent).toMatchObject({ status: 'succeeded', amount_received: 1999, customer: null, payment_method: 'tok_visa' });

    // a /v1 payment without a customer shows customer_id null on /v2
    const payment = await v2<V2Payment>(key, `/v2/payments/${chargeOf(intent)}`);
    expect(payment.body).toMatchObject({ status: 'succeeded', customer_id: null, amount: 1999 });

    expect(await events(accountId)).toEqual([
      { event: null, type: 'payment_intent.created', status: 'requires_confirmation', id: intent.id },
      { event: 'payment.succeeded', type: 'payment_intent.succeeded', status: 'succeeded', id: intent.id },
    ]);
  });

  it('manual capture of part of an authorization: requires_capture, then succeeded with amount_received; /v2 sees each step', async () => {
    const { stripe: sdk, key, id: accountId } = await shop();
    const intent = await sdk.paymentIntents.create({
      amount: 5000,
      currency: 'eur',
      payment_method: 'pm_card_mastercard',
      capture_method: 'manual',
      confirm: true,
    });
    expect(intent).toMatchObject({
      status: 'requires_capture',
      amount_capturable: 5000,
      amount_received: 0,
      capture_method: 'manual',
    });
    const authorized = await v2<V2Payment>(key, `/v2/payments/${chargeOf(intent)}`);
    expect(authorized.body).toMatchObject({ status: 'requires_capture', amount_capturable: 5000 });

    const tooMuch = await stripeRejection(sdk.paymentIntents.capture(intent.id, { amount_to_capture: 5001 }));
    expect(tooMuch).toMatchObject({ statusCode: 400, code: 'amount_exceeds_capturable', param: 'amount_to_capture' });

    const captured = await sdk.paymentIntents.capture(intent.id, { amount_to_capture: 4000 });
    expect(captured).toMatchObject({ status: 'succeeded', amount: 5000, amount_received: 4000, amount_capturable: 0 });
    const payment = await v2<V2Payment>(key, `/v2/payments/${chargeOf(intent)}`);
    expect(payment.body).toMatchObject({ status: 'succeeded', amount_received: 4000, amount_capturable: 0 });

    const twice = await stripeRejection(sdk.paymentIntents.capture(intent.id));
    expect(twice).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });

    expect(await events(accountId)).toEqual([
      { event: null, type: 'payment_intent.created', status: 'requires_confirmation', id: intent.id },
      {
        event: 'payment.requires_capture',
        type: 'payment_intent.amount_capturable_updated',
        status: 'requires_capture',
        id: intent.id,
      },
      // payment.captured is /v2's own; payment.succeeded carries payment_intent.succeeded
      { event: 'payment.captured', type: null, status: null, id: null },
      { event: 'payment.succeeded', type: 'payment_intent.succeeded', status: 'succeeded', id: intent.id },
    ]);
  });

  it('a decline raises StripeCardError (card_declined, decline_code); the intent waits for another method, /v2 has a failed payment; confirmed again it succeeds', async () => {
    const { stripe: sdk, key, id: accountId } = await shop();
    const intent = await sdk.paymentIntents.create({ amount: 3000, currency: 'gbp', metadata: { order_id: '7' } });

    const error = await stripeRejection(sdk.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_visa_chargeDeclined' }));
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(error).toMatchObject({
      statusCode: 402,
      type: 'StripeCardError',
      code: 'card_declined',
      decline_code: 'generic_decline',
    });
    expect(error.message).toBe('Your card was declined.');
    expect(error.payment_intent).toMatchObject({ id: intent.id, status: 'requires_payment_method', payment_method: null });
    expect(error.payment_intent?.last_payment_error).toMatchObject({
      type: 'card_error',
      code: 'card_declined',
      decline_code: 'generic_decline',
      payment_method: { id: 'pm_card_visa_chargeDeclined' },
    });
    const failedId = error.charge;
    expect(failedId).toMatch(/^pay_/);

    const retrieved = await sdk.paymentIntents.retrieve(intent.id);
    expect(retrieved).toMatchObject({ status: 'requires_payment_method', latest_charge: failedId, amount_received: 0 });
    const failed = await v2<V2Payment>(key, `/v2/payments/${String(failedId)}`);
    expect(failed.body).toMatchObject({ status: 'failed', failure_code: 'card_declined', decline_code: 'generic_decline' });

    const paid = await sdk.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_visa' });
    expect(paid).toMatchObject({ status: 'succeeded', last_payment_error: null, amount_received: 3000 });
    expect(paid.latest_charge).not.toBe(failedId);

    // two payments on /v2: the failed one and the succeeded one
    const list = await v2<{ data: V2Payment[] }>(key, '/v2/payments');
    expect(list.body.data.map((p) => [p.id, p.status])).toEqual([
      [paid.latest_charge, 'succeeded'],
      [failedId, 'failed'],
    ]);
    expect((await events(accountId)).map((e) => [e.event, e.type, e.status])).toEqual([
      [null, 'payment_intent.created', 'requires_payment_method'],
      ['payment.failed', 'payment_intent.payment_failed', 'requires_payment_method'],
      ['payment.succeeded', 'payment_intent.succeeded', 'succeeded'],
    ]);
  });

  it.each([
    ['pm_card_visa_chargeDeclinedInsufficientFunds', 'card_declined', 'insufficient_funds'],
    ['pm_card_chargeDeclinedExpiredCard', 'expired_card', 'expired_card'],
    ['pm_card_chargeDeclinedIncorrectCvc', 'incorrect_cvc', 'incorrect_cvc'],
    ['pm_card_chargeDeclinedLostCard', 'card_declined', 'lost_card'],
    ['pm_card_chargeDeclinedStolenCard', 'card_declined', 'stolen_card'],
    ['pm_card_chargeDeclinedFraudulent', 'card_declined', 'fraudulent'],
    ['tok_chargeDeclinedInsufficientFunds', 'card_declined', 'insufficient_funds'],
  ])('%s declines with code %s, decline_code %s (as in Stripe test mode)', async (method, code, declineCode) => {
    const error = await stripeRejection(
      stripe.paymentIntents.create({ amount: 1000, currency: 'usd', payment_method: method, confirm: true }),
    );
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(error).toMatchObject({ code, decline_code: declineCode });
  });

  it('pm_card_chargeDeclinedProcessingError: processing_error without a decline_code; pm_card_amex and tok_amex succeed', async () => {
    const error = await stripeRejection(
      stripe.paymentIntents.create({
        amount: 1000,
        currency: 'usd',
        payment_method: 'pm_card_chargeDeclinedProcessingError',
        confirm: true,
      }),
    );
    expect(error).toMatchObject({ statusCode: 402, code: 'processing_error' });
    expect(error.raw).not.toHaveProperty('decline_code');
    for (const method of ['pm_card_amex', 'tok_amex']) {
      const ok = await stripe.paymentIntents.create({ amount: 1000, currency: 'usd', payment_method: method, confirm: true });
      expect(ok.status).toBe('succeeded');
    }
  });

  it('missing or invalid parameters: StripeInvalidRequestError naming the param; unknown ones are refused by name', async () => {
    const missing = await stripeRejection(stripe.paymentIntents.create({ currency: 'gbp' } as Stripe.PaymentIntentCreateParams));
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing).toMatchObject({ statusCode: 400, code: 'parameter_missing', param: 'amount' });

    const currency = await stripeRejection(stripe.paymentIntents.create({ amount: 100, currency: 'xyz' }));
    expect(currency).toMatchObject({ statusCode: 400, param: 'currency' });

    const unknownMethod = await stripeRejection(
      stripe.paymentIntents.create({ amount: 100, currency: 'gbp', payment_method: 'pm_card_unionpay' }),
    );
    expect(unknownMethod).toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'payment_method' });

    const unknownCustomer = await stripeRejection(
      stripe.paymentIntents.create({ amount: 100, currency: 'gbp', customer: 'cus_nope' }),
    );
    expect(unknownCustomer).toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'customer' });

    const receipt = await stripeRejection(
      stripe.paymentIntents.create({ amount: 100, currency: 'gbp', receipt_email: 'a@example.com' }),
    );
    expect(receipt).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'receipt_email' });

    const sepa = await stripeRejection(
      stripe.paymentIntents.create({ amount: 100, currency: 'eur', allowed_payment_method_types: ['sepa_debit'] }),
    );
    expect(sepa).toMatchObject({ statusCode: 400, param: 'allowed_payment_method_types' });

    // accepted and ignored: what a Stripe integration sends routinely
    const accepted = await stripe.paymentIntents.create({
      amount: 100,
      currency: 'GBP',
      allowed_payment_method_types: ['card'],
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
    });
    expect(accepted).toMatchObject({ status: 'requires_payment_method', currency: 'gbp' });

    const noMethod = await stripeRejection(stripe.paymentIntents.confirm(accepted.id));
    expect(noMethod).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state', param: 'payment_method' });

    const absent = await stripeRejection(stripe.paymentIntents.retrieve('pi_doesnotexist'));
    expect(absent).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(absent).toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it('cancel: before a payment (v1-only event), an authorization (released on /v2 too), never a succeeded intent', async () => {
    const { stripe: sdk, key, id: accountId } = await shop();
    const open = await sdk.paymentIntents.create({ amount: 700, currency: 'gbp' });
    const canceled = await sdk.paymentIntents.cancel(open.id, { cancellation_reason: 'abandoned' });
    expect(canceled).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned', latest_charge: null });
    expect(typeof canceled.canceled_at).toBe('number');
    const confirmCanceled = await stripeRejection(sdk.paymentIntents.confirm(open.id, { payment_method: 'pm_card_visa' }));
    expect(confirmCanceled).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
    expect((await v2<{ data: unknown[] }>(key, '/v2/payments')).body.data).toEqual([]);

    const held = await sdk.paymentIntents.create({
      amount: 900,
      currency: 'gbp',
      payment_method: 'pm_card_visa',
      capture_method: 'manual',
      confirm: true,
    });
    const released = await sdk.paymentIntents.cancel(held.id);
    expect(released).toMatchObject({ status: 'canceled', amount_capturable: 0, cancellation_reason: 'requested_by_customer' });
    const payment = await v2<V2Payment>(key, `/v2/payments/${chargeOf(held)}`);
    expect(payment.body).toMatchObject({ status: 'canceled' });

    const paid = await sdk.paymentIntents.create({ amount: 100, currency: 'gbp', payment_method: 'pm_card_visa', confirm: true });
    const refused = await stripeRejection(sdk.paymentIntents.cancel(paid.id));
    expect(refused).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
    expect(refused.message).toContain('succeeded');

    const canceledEvents = (await events(accountId)).filter((e) => e.type === 'payment_intent.canceled');
    expect(canceledEvents).toEqual([
      { event: null, type: 'payment_intent.canceled', status: 'canceled', id: open.id },
      { event: 'payment.canceled', type: 'payment_intent.canceled', status: 'canceled', id: held.id },
    ]);
  });

  it("/v2 capture of an intent's payment and the expiry of its authorization emit the /v1 side; /v1 shows the outcome", async () => {
    const { stripe: sdk, key, id: accountId } = await shop();
    const one = await sdk.paymentIntents.create({
      amount: 800,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      capture_method: 'manual',
      confirm: true,
    });
    const two = await sdk.paymentIntents.create({
      amount: 600,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      capture_method: 'manual',
      confirm: true,
    });

    const captured = await v2<V2Payment>(key, `/v2/payments/${chargeOf(one)}/capture`, 'POST', { amount_to_capture: 500 });
    expect(captured.status).toBe(200);
    expect(await sdk.paymentIntents.retrieve(one.id)).toMatchObject({ status: 'succeeded', amount_received: 500 });

    // the authorization's time has passed: the expiry job's own call cancels it
    await prisma.payment.update({ where: { id: chargeOf(two) }, data: { captureBefore: new Date(Date.now() - 1000) } });
    expect(await s.t.app.get(AuthorizationsService).expire(chargeOf(two))).toBe(true);
    expect(await sdk.paymentIntents.retrieve(two.id)).toMatchObject({ status: 'canceled', cancellation_reason: 'automatic' });

    const three = await sdk.paymentIntents.create({
      amount: 400,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      capture_method: 'manual',
      confirm: true,
    });
    expect((await v2<V2Payment>(key, `/v2/payments/${chargeOf(three)}/cancel`, 'POST', {})).status).toBe(200);
    expect(await sdk.paymentIntents.retrieve(three.id)).toMatchObject({ status: 'canceled', amount_capturable: 0 });

    const all = await events(accountId);
    expect(all.filter((e) => e.id === three.id).map((e) => [e.event, e.type])).toEqual([
      [null, 'payment_intent.created'],
      ['payment.requires_capture', 'payment_intent.amount_capturable_updated'],
      ['payment.canceled', 'payment_intent.canceled'],
    ]);
    expect(all.filter((e) => e.id === one.id).map((e) => e.type)).toEqual([
      'payment_intent.created',
      'payment_intent.amount_capturable_updated',
      'payment_intent.succeeded',
    ]);
    expect(all.filter((e) => e.id === two.id).map((e) => [e.event, e.type, e.status])).toEqual([
      [null, 'payment_intent.created', 'requires_confirmation'],
      ['payment.requires_capture', 'payment_intent.amount_capturable_updated', 'requires_capture'],
      ['payment.canceled', 'payment_intent.canceled', 'canceled'],
    ]);
  });

  it('lists newest first, by customer and creation time, across pages with autoPagingToArray; expand customer and data.customer', async () => {
    const { stripe: sdk } = await shop();
    const customer = await sdk.customers.create({ name: 'Pager' });
    const other = await sdk.customers.create({ name: 'Other' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await sdk.paymentIntents.create({ amount: 100 + i, currency: 'gbp', customer: customer.id })).id);
    await sdk.paymentIntents.create({ amount: 50, currency: 'gbp', customer: other.id });

    const all = await sdk.paymentIntents.list({ customer: customer.id, limit: 2 }).autoPagingToArray({ limit: 100 });
    expect(all.map((i) => i.id)).toEqual([...ids].reverse());

    const first = await sdk.paymentIntents.list({ customer: customer.id, limit: 2 });
    expect(first).toMatchObject({ object: 'list', has_more: true, url: '/v1/payment_intents' });
    const back = await sdk.paymentIntents.list({ customer: customer.id, limit: 2, ending_before: ids[2] });
    expect(back.data.map((i) => i.id)).toEqual([ids[4], ids[3]]);

    const everything = await sdk.paymentIntents.list({ limit: 100 });
    expect(everything.data).toHaveLength(6);
    const created = everything.data[0]?.created ?? 0;
    const none = await sdk.paymentIntents.list({ created: { gt: created + 60 } });
    expect(none.data).toEqual([]);
    const recent = await sdk.paymentIntents.list({ created: { gte: created - 60 }, limit: 100 });
    expect(recent.data).toHaveLength(6);

    const expanded = await sdk.paymentIntents.retrieve(ids[0], { expand: ['customer'] });
    expect(expanded.customer).toMatchObject({ id: customer.id, object: 'customer', name: 'Pager' });
    const listed = await sdk.paymentIntents.list({ customer: customer.id, limit: 3, expand: ['data.customer'] });
    expect(listed.data.map((i) => (i.customer as Stripe.Customer).name)).toEqual(['Pager', 'Pager', 'Pager']);
    const created2 = await sdk.paymentIntents.create({
      amount: 100,
      currency: 'gbp',
      customer: customer.id,
      expand: ['customer'],
    });
    expect(created2.customer).toMatchObject({ object: 'customer', id: customer.id });

    const bad = await stripeRejection(sdk.paymentIntents.retrieve(ids[0], { expand: ['latest_charge'] }));
    expect(bad).toMatchObject({ statusCode: 400, param: 'expand' });
  });

  it("another tenant's intent is not found, and test keys do not see live intents", async () => {
    const mine = await stripe.paymentIntents.create({ amount: 100, currency: 'gbp' });
    const { stripe: other } = await shop();
    const error = await stripeRejection(other.paymentIntents.retrieve(mine.id));
    expect(error).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    const live = s.sdk(s.liveKey);
    expect((await stripeRejection(live.paymentIntents.retrieve(mine.id))).statusCode).toBe(404);
    expect((await live.paymentIntents.list()).data.map((i) => i.id)).not.toContain(mine.id);
  });

  it('two confirmations of one intent at once make one payment: the other is refused, as the intent has succeeded', async () => {
    const { stripe: sdk, key } = await shop();
    const intent = await sdk.paymentIntents.create({ amount: 1234, currency: 'gbp', payment_method: 'pm_card_visa' });
    const outcomes = await Promise.allSettled([sdk.paymentIntents.confirm(intent.id), sdk.paymentIntents.confirm(intent.id)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((o) => o.status === 'rejected');
    expect(refused?.reason).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
    expect((await v2<{ data: unknown[] }>(key, '/v2/payments')).body.data).toHaveLength(1);
  });

  it('live mode without a live processor: an intent can be made, its confirmation is StripePermissionError', async () => {
    const live = s.sdk(s.liveKey);
    const intent = await live.paymentIntents.create({ amount: 100, currency: 'gbp' });
    expect(intent).toMatchObject({ livemode: true, status: 'requires_payment_method' });
    const error = await stripeRejection(live.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_visa' }));
    expect(error).toBeInstanceOf(Stripe.errors.StripePermissionError);
    expect(error).toMatchObject({ statusCode: 403, code: 'live_mode_not_enabled' });
    expect((await live.paymentIntents.retrieve(intent.id)).status).toBe('requires_payment_method');
  });

  describe('idempotency', () => {
    let proxy: Server;
    let proxyPort: number;
    const seen: Array<{ path: string; key: string | undefined }> = [];

    /** A proxy in front of the app that drops the connection after the first POST's answer: the SDK retries it. */
    beforeAll(async () => {
      let dropped = false;
      proxy = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const key = req.headers['idempotency-key'];
          seen.push({ path: req.url ?? '', key: typeof key === 'string' ? key : undefined });
          const upstream = httpRequest(
            { host: '127.0.0.1', port: s.port, path: req.url, method: req.method, headers: req.headers },
            (answer) => {
              const body: Buffer[] = [];
              answer.on('data', (c: Buffer) => body.push(c));
              answer.on('end', () => {
                if (req.method === 'POST' && !dropped) {
                  dropped = true;
                  req.socket.destroy(); // the answer is lost on the way back
                  return;
                }
                res.writeHead(answer.statusCode ?? 502, answer.headers);
                res.end(Buffer.concat(body));
              });
            },
          );
          upstream.end(Buffer.concat(chunks));
        });
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      proxyPort = (proxy.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    });

    it('a create whose answer was lost is retried by the SDK (maxNetworkRetries) with the same key: one intent, one payment', async () => {
      const a = await s.newAccount();
      const retrying = new Stripe(a.secretKey, {
        host: '127.0.0.1',
        port: proxyPort,
        protocol: 'http',
        maxNetworkRetries: 2,
        telemetry: false,
      });
      const intent = await retrying.paymentIntents.create({
        amount: 4200,
        currency: 'gbp',
        payment_method: 'pm_card_visa',
        confirm: true,
      });
      expect(intent.status).toBe('succeeded');

      const posts = seen.filter((r) => r.path === '/v1/payment_intents');
      expect(posts).toHaveLength(2);
      expect(posts[0]?.key).toBeDefined();
      expect(posts[1]?.key).toBe(posts[0]?.key);

      const direct = s.sdk(a.secretKey);
      expect((await direct.paymentIntents.list()).data.map((i) => i.id)).toEqual([intent.id]);
      expect(await direct.paymentIntents.retrieve(intent.id)).toEqual(intent);
      expect((await v2<{ data: unknown[] }>(a.secretKey, '/v2/payments')).body.data).toHaveLength(1);
      expect((await events(a.id)).map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.succeeded']);
    });

    it('the same key replays the answer, a decline (402) included; another body under the key is StripeIdempotencyError', async () => {
      const { stripe: sdk, id: accountId } = await shop();
      const params = { amount: 1500, currency: 'gbp', payment_method: 'pm_card_visa', confirm: true };
      const first = await sdk.paymentIntents.create(params, { idempotencyKey: 'order-1500' });
      const second = await sdk.paymentIntents.create(params, { idempotencyKey: 'order-1500' });
      expect(second).toEqual(first);
      expect((await sdk.paymentIntents.list()).data).toHaveLength(1);

      const other = await stripeRejection(
        sdk.paymentIntents.create({ ...params, amount: 1600 }, { idempotencyKey: 'order-1500' }),
      );
      expect(other).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
      expect(other.statusCode).toBe(400);

      const declined = { amount: 1500, currency: 'gbp', payment_method: 'pm_card_chargeDeclined', confirm: true };
      const d1 = await stripeRejection(sdk.paymentIntents.create(declined, { idempotencyKey: 'order-declined' }));
      const d2 = await stripeRejection(sdk.paymentIntents.create(declined, { idempotencyKey: 'order-declined' }));
      expect(d1).toBeInstanceOf(Stripe.errors.StripeCardError);
      expect(d2).toBeInstanceOf(Stripe.errors.StripeCardError);
      // the stored answer, replayed: the same failed payment and intent, not a second charge
      expect(d2.headers?.['idempotent-replayed']).toBe('true');
      expect(d2).toMatchObject({ statusCode: 402, code: 'card_declined', decline_code: 'generic_decline', charge: d1.charge });
      expect(d2.payment_intent).toEqual(d1.payment_intent);
      expect((await sdk.paymentIntents.list()).data).toHaveLength(2);
      expect((await events(accountId)).filter((e) => e.type === 'payment_intent.payment_failed')).toHaveLength(1);
    });
  });
});
