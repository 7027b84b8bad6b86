/**
 * payments-api driven by the official `stripe` npm SDK (Stripe-compatible clients, issue 19):
 * the SDK points at the app listening on a loopback port and reaches the /v2 paths with
 * `rawRequest` (JSON bodies, like Stripe's own /v2 API). Idempotency keys, capture, refunds
 * and the SDK's typed errors must work as they do against Stripe.
 */
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { ADMIN, newCustomer, startPayments, type PaymentsApp } from './payments-context';

interface Payment {
  id: string;
  object: string;
  status: string;
  amount: number;
  amount_capturable: number;
  amount_received: number;
  amount_refunded: number;
}

describe('payments-api with the official Stripe SDK', () => {
  let t: PaymentsApp;
  let stripe: Stripe;
  let customer: string;

  beforeAll(async () => {
    t = await startPayments();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const res = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: ADMIN, payload: { name: 'SDK shop' } });
    const key = res.json<{ test_key: string }>().test_key;
    customer = await newCustomer(t, { authorization: `Bearer ${key}` });
    stripe = new Stripe(key, { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0 });
  });
  afterAll(async () => {
    await t.close();
  });

  const post = async <T>(path: string, params: Record<string, unknown>, idempotencyKey?: string): Promise<T> => {
    // rawRequest answers the parsed JSON body, untyped (the SDK knows only Stripe's own resources)
    const res: unknown = await stripe.rawRequest('POST', path, params, idempotencyKey ? { idempotencyKey } : {});
    return res as T;
  };
  const get = async <T>(path: string): Promise<T> => {
    const res: unknown = await stripe.rawRequest('GET', path, {});
    return res as T;
  };
  const countPayments = async (): Promise<number> =>
    (await get<{ data: unknown[] }>(`/v2/payments?customer_id=${customer}&limit=100`)).data.length;

  it('the same Idempotency-Key twice creates one payment and answers the same body', async () => {
    const before = await countPayments();
    const params = { amount: 2000, currency: 'gbp', customer_id: customer, description: 'SDK order' };
    const first = await post<Payment>('/v2/payments', params, 'sdk-order-0001');
    const second = await post<Payment>('/v2/payments', params, 'sdk-order-0001');
    expect(first).toMatchObject({ object: 'payment', status: 'succeeded', amount: 2000 });
    expect(second).toEqual(first);
    expect(await countPayments()).toBe(before + 1);
    expect(await get<Payment>(`/v2/payments/${first.id}`)).toEqual(first);
  });

  it('authorizes, captures in part and refunds what was captured', async () => {
    const authorized = await post<Payment>(
      '/v2/payments',
      { amount: 5000, currency: 'usd', customer_id: customer, capture_method: 'manual', payment_method: 'tok_visa' },
      'sdk-auth-0001',
    );
    expect(authorized).toMatchObject({ status: 'requires_capture', amount_capturable: 5000 });
    const captured = await post<Payment>(`/v2/payments/${authorized.id}/capture`, { amount_to_capture: 4000 });
    expect(captured).toMatchObject({ status: 'succeeded', amount_received: 4000, amount_capturable: 0 });
    const refund = await post<{ object: string; amount: number; metadata: object }>('/v2/refunds', {
      payment_id: captured.id,
      metadata: { reason_detail: 'damaged' },
    });
    expect(refund).toMatchObject({ object: 'refund', amount: 4000, metadata: { reason_detail: 'damaged' } });
    expect(await get<Payment>(`/v2/payments/${captured.id}`)).toMatchObject({ amount_refunded: 4000 });
  });

  it('a decline surfaces as StripeCardError with its decline code and payment id', async () => {
    const error = await post('/v2/payments', {
      amount: 700,
      currency: 'gbp',
      customer_id: customer,
      payment_method: 'pm_card_chargeDeclinedInsufficientFunds',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    const card = error as Stripe.errors.StripeCardError;
    expect(card.statusCode).toBe(402);
    expect(card.code).toBe('card_declined');
    expect(card.decline_code).toBe('insufficient_funds');
    expect(card.requestId).toMatch(/^req_/);
    const paymentId = (card.raw as { payment_id?: string }).payment_id ?? '';
    expect(await get<Payment>(`/v2/payments/${paymentId}`)).toMatchObject({ status: 'failed' });
  });

  it('a bad parameter surfaces as StripeInvalidRequestError naming it; a wrong state too', async () => {
    const error = await post('/v2/payments', { amount: -1, currency: 'gbp', customer_id: customer }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    const invalid = error as Stripe.errors.StripeInvalidRequestError;
    expect([invalid.statusCode, invalid.code, invalid.param]).toEqual([400, 'parameter_invalid', 'amount']);

    const paid = await post<Payment>('/v2/payments', { amount: 100, currency: 'gbp', customer_id: customer });
    const state = await post(`/v2/payments/${paid.id}/capture`, {}).catch((e: unknown) => e);
    expect(state).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect((state as Stripe.errors.StripeError).code).toBe('payment_unexpected_state');

    const missing = await get(`/v2/payments/pay_nope`).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect((missing as Stripe.errors.StripeError).statusCode).toBe(404);
  });

  it('a wrong key surfaces as StripeAuthenticationError', async () => {
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const wrong = new Stripe('sk_test_wrong', { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0 });
    const error: unknown = await wrong.rawRequest('GET', '/v2/payments', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
  });
});
