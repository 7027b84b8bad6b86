/**
 * Stripe's /v1 refunds through the official `stripe` SDK's own methods (issue 35): by
 * payment_intent or charge, partial and full, retrieve, update, list, expand, the events
 * each writes, and what /v2 sees of the same refund.
 */
import { PrismaService } from '@app/platform';
import Stripe from 'stripe';
import { startStripeApp, type StripeApp, stripeRejection } from './stripe-context';

/** The id of the intent's latest payment (latest_charge, unexpanded). */
function chargeOf(intent: Stripe.PaymentIntent): string {
  if (typeof intent.latest_charge !== 'string') throw new Error(`${intent.id} has no latest_charge id`);
  return intent.latest_charge;
}

describe('/v1/refunds with the official Stripe SDK', () => {
  let s: StripeApp;

  beforeAll(async () => {
    s = await startStripeApp();
  });
  afterAll(async () => {
    await s.close();
  });

  const shop = async (): Promise<{ stripe: Stripe; key: string; id: string }> => {
    const a = await s.newAccount();
    return { stripe: s.sdk(a.secretKey), key: a.secretKey, id: a.id };
  };
  const v2 = async <T>(key: string, path: string, payload?: object): Promise<{ status: number; body: T }> => {
    const res = await s.t.app.inject({
      method: payload ? 'POST' : 'GET',
      url: path,
      headers: { authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
      ...(payload ? { payload } : {}),
    });
    return { status: res.statusCode, body: res.json<T>() };
  };
  const refundEvents = async (accountId: string) => {
    const rows = await s.t.app.get(PrismaService).webhookEvent.findMany({
      where: {
        ownerId: `${accountId}:test`,
        OR: [{ event: { startsWith: 'refund.' } }, { dialectEvent: { startsWith: 'refund.' } }],
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return rows.map((r) => {
      const object =
        (r.dialectData as { object?: { id?: string; metadata?: object }; previous_attributes?: object } | null) ?? null;
      return {
        event: r.event,
        type: r.dialectEvent,
        id: object?.object?.id ?? (r.data as { id?: string } | null)?.id ?? null,
        ...(object?.previous_attributes ? { previous: object.previous_attributes } : {}),
      };
    });
  };
  const paid = (sdk: Stripe, amount = 5000) =>
    sdk.paymentIntents.create({ amount, currency: 'gbp', payment_method: 'pm_card_visa', confirm: true });

  it('refunds a payment intent in part, then the rest; retrieve, update, list; /v2 sees the same refunds', async () => {
    const { stripe, key, id: accountId } = await shop();
    const intent = await paid(stripe);

    const partial = await stripe.refunds.create({
      payment_intent: intent.id,
      amount: 1200,
      reason: 'requested_by_customer',
      metadata: { ticket: 'T-1' },
    });
    expect(partial).toMatchObject({
      object: 'refund',
      amount: 1200,
      currency: 'gbp',
      status: 'succeeded',
      payment_intent: intent.id,
      charge: intent.latest_charge,
      reason: 'requested_by_customer',
      metadata: { ticket: 'T-1' },
    });
    expect(partial.id).toMatch(/^re_/);
    expect(Math.abs(partial.created - Date.now() / 1000)).toBeLessThan(600);

    const rest = await stripe.refunds.create({ payment_intent: intent.id });
    expect(rest).toMatchObject({ amount: 3800, reason: null, metadata: {} });

    const none = await stripeRejection(stripe.refunds.create({ payment_intent: intent.id, amount: 1 }));
    expect(none).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(none).toMatchObject({ statusCode: 400, code: 'amount_exceeds_refundable', param: 'amount' });

    expect(await stripe.refunds.retrieve(partial.id)).toEqual(partial);
    const updated = await stripe.refunds.update(partial.id, { metadata: { ticket: '', agent: 'sam' } });
    expect(updated.metadata).toEqual({ agent: 'sam' });

    const listed = await stripe.refunds.list({ payment_intent: intent.id });
    expect(listed).toMatchObject({ object: 'list', has_more: false, url: '/v1/refunds' });
    expect(listed.data.map((r) => r.id)).toEqual([rest.id, partial.id]);

    const v2Refund = await v2<{ id: string; payment_id: string; amount: number; metadata: object }>(
      key,
      `/v2/refunds/${partial.id}`,
    );
    expect(v2Refund.body).toMatchObject({
      id: partial.id,
      payment_id: intent.latest_charge,
      amount: 1200,
      metadata: { agent: 'sam' },
    });
    const payment = await v2<{ amount_refunded: number; refunded: boolean }>(key, `/v2/payments/${chargeOf(intent)}`);
    expect(payment.body).toMatchObject({ amount_refunded: 5000, refunded: true });

    // /v2's update of a /v1 refund is seen by /v1's refund.updated too
    await v2(key, `/v2/refunds/${rest.id}`, { metadata: { via: 'v2' } });
    expect(await refundEvents(accountId)).toEqual([
      { event: 'refund.succeeded', type: 'refund.created', id: partial.id },
      { event: 'refund.succeeded', type: 'refund.created', id: rest.id },
      { event: null, type: 'refund.updated', id: partial.id, previous: { metadata: { ticket: 'T-1' } } },
      { event: null, type: 'refund.updated', id: rest.id, previous: { metadata: {} } },
    ]);
  });

  it("refunds by charge (an intent's payment id); a /v2 payment's refund is not a /v1 refund", async () => {
    const { stripe, key, id: accountId } = await shop();
    const intent = await paid(stripe, 900);
    const byCharge = await stripe.refunds.create({ charge: chargeOf(intent), amount: 400 });
    expect(byCharge).toMatchObject({ amount: 400, payment_intent: intent.id, charge: intent.latest_charge });

    const customer = (await v2<{ id: string }>(key, '/v2/customers', { email: 'v2@example.com' })).body.id;
    const direct = await v2<{ id: string }>(key, '/v2/payments', { amount: 700, currency: 'gbp', customer_id: customer });
    const v2Refund = await v2<{ id: string }>(key, '/v2/refunds', { payment_id: direct.body.id });
    expect(v2Refund.status).toBe(201);

    expect((await stripe.refunds.list()).data.map((r) => r.id)).toEqual([byCharge.id]);
    expect(await stripeRejection(stripe.refunds.retrieve(v2Refund.body.id))).toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
    });
    expect(await stripeRejection(stripe.refunds.update(v2Refund.body.id, { metadata: { a: 'b' } }))).toMatchObject({
      statusCode: 404,
    });
    const notIntent = await stripeRejection(stripe.refunds.create({ charge: direct.body.id }));
    expect(notIntent).toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'charge' });

    // the /v2 refund has no /v1 side; the /v1 one has both
    expect(await refundEvents(accountId)).toEqual([
      { event: 'refund.succeeded', type: 'refund.created', id: byCharge.id },
      { event: 'refund.succeeded', type: null, id: v2Refund.body.id },
    ]);
  });

  it('refuses what cannot be refunded, naming the /v1 parameter', async () => {
    const { stripe } = await shop();
    const unpaid = await stripe.paymentIntents.create({ amount: 100, currency: 'gbp' });
    const error = await stripeRejection(stripe.refunds.create({ payment_intent: unpaid.id }));
    expect(error).toMatchObject({ statusCode: 400, code: 'payment_not_refundable', param: 'payment_intent' });

    const held = await stripe.paymentIntents.create({
      amount: 100,
      currency: 'gbp',
      payment_method: 'pm_card_visa',
      capture_method: 'manual',
      confirm: true,
    });
    expect(await stripeRejection(stripe.refunds.create({ payment_intent: held.id }))).toMatchObject({
      statusCode: 400,
      param: 'payment_intent',
    });
    expect(await stripeRejection(stripe.refunds.create({ charge: chargeOf(held) }))).toMatchObject({
      statusCode: 400,
      code: 'payment_not_refundable',
      param: 'charge',
    });

    const missing = await stripeRejection(stripe.refunds.create({ amount: 100 }));
    expect(missing).toMatchObject({ statusCode: 400, code: 'parameter_missing', param: 'payment_intent' });
    const unknown = await stripeRejection(stripe.refunds.create({ payment_intent: 'pi_nope' }));
    expect(unknown).toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'payment_intent' });
  });

  it('lists across pages with autoPagingToArray, expands payment_intent, replays an idempotent create', async () => {
    const { stripe } = await shop();
    const intent = await paid(stripe, 1000);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await stripe.refunds.create({ payment_intent: intent.id, amount: 100 })).id);
    const all = await stripe.refunds.list({ limit: 2 }).autoPagingToArray({ limit: 100 });
    expect(all.map((r) => r.id)).toEqual([...ids].reverse());

    const expanded = await stripe.refunds.retrieve(ids[0], { expand: ['payment_intent'] });
    expect(expanded.payment_intent).toMatchObject({ id: intent.id, object: 'payment_intent', status: 'succeeded' });
    const listed = await stripe.refunds.list({ limit: 1, expand: ['data.payment_intent'] });
    expect(listed.data[0]?.payment_intent).toMatchObject({ object: 'payment_intent', id: intent.id });

    const first = await stripe.refunds.create({ payment_intent: intent.id, amount: 50 }, { idempotencyKey: 'refund-50' });
    const again = await stripe.refunds.create({ payment_intent: intent.id, amount: 50 }, { idempotencyKey: 'refund-50' });
    expect(again).toEqual(first);
    expect((await stripe.refunds.list({ payment_intent: intent.id, limit: 100 })).data).toHaveLength(6);
  });
});
