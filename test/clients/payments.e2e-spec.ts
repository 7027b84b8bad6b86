/**
 * The flow of docs/payments.md written with @securities-platform/payments-client (typed by
 * the payments-api OpenAPI document) against a listening payments-api: customer → payment
 * with an Idempotency-Key (its replay is marked Idempotent-Replayed) → refund → the payments
 * list, paged with its cursor.
 */
import { randomUUID } from 'node:crypto';
import { createPaymentsClient, type ApiError, type components, type PaymentsClient } from '@securities-platform/payments-client';
import { paymentsService } from '../../apps/payments-api/src/service';
import { startTestApp, type TestApp } from '../support/app';
import { ADMIN_KEY, listen } from './support';

describe('payments-client against payments-api', () => {
  let t: TestApp<InstanceType<typeof paymentsService.configClass>>;
  let baseUrl: string;
  let api: PaymentsClient;

  beforeAll(async () => {
    t = await startTestApp(paymentsService);
    baseUrl = await listen(t);
    const admin = createPaymentsClient({ baseUrl, apiKey: ADMIN_KEY });
    const account = await admin.POST('/admin/v1/accounts', { body: { name: 'Shop' } });
    if (!account.data) throw new Error(`account: ${account.response.status}`);
    api = createPaymentsClient({ baseUrl, apiKey: account.data.test_key });
  });
  afterAll(async () => {
    await t.close();
  });

  it('customer → payment with an Idempotency-Key, replayed → refund → list with a cursor', async () => {
    const customer = await api.POST('/v2/customers', { body: { email: 'jenny@example.com', name: 'Jenny' } });
    if (!customer.data) throw new Error(`customer: ${customer.response.status}`);
    expect(customer.data).toMatchObject({ object: 'customer', email: 'jenny@example.com', livemode: false });

    const key = randomUUID();
    const body = { amount: 2000, currency: 'gbp', customer_id: customer.data.id, description: 'Order 1042' } as const;
    const payment = await api.POST('/v2/payments', { params: { header: { 'Idempotency-Key': key } }, body });
    if (!payment.data) throw new Error(`payment: ${payment.response.status}`);
    expect(payment.response.status).toBe(201);
    expect(payment.data).toMatchObject({ object: 'payment', status: 'succeeded', amount: 2000, amount_refunded: 0 });
    expect(payment.response.headers.get('idempotent-replayed')).toBeNull();

    const replay = await api.POST('/v2/payments', { params: { header: { 'Idempotency-Key': key } }, body });
    expect(replay.response.status).toBe(201);
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data).toEqual(payment.data);

    const refund = await api.POST('/v2/refunds', {
      params: { header: { 'Idempotency-Key': randomUUID() } },
      body: { payment_id: payment.data.id, amount: 500, reason: 'requested_by_customer' },
    });
    expect(refund.response.status).toBe(201);
    expect(refund.data).toMatchObject({ object: 'refund', payment_id: payment.data.id, amount: 500, status: 'succeeded' });
    const refunded = await api.GET('/v2/payments/{id}', { params: { path: { id: payment.data.id } } });
    expect(refunded.data).toMatchObject({ amount_refunded: 500, refunded: false });

    const second = await api.POST('/v2/payments', { body: { ...body, amount: 3000 } });
    expect(second.response.status).toBe(201);
    const first = await api.GET('/v2/payments', { params: { query: { customer_id: customer.data.id, limit: 1 } } });
    if (!first.data) throw new Error(`list: ${first.response.status}`);
    expect(first.data).toMatchObject({ object: 'list', has_more: true, url: '/v2/payments' });
    expect(first.data.data.map((p) => p.id)).toEqual([second.data?.id]);
    const next = await api.GET('/v2/payments', {
      params: { query: { customer_id: customer.data.id, limit: 1, starting_after: first.data.data.at(-1)?.id } },
    });
    expect(next.data).toMatchObject({ has_more: false });
    expect(next.data?.data.map((p) => p.id)).toEqual([payment.data.id]);
  });

  it('hands back the error body, typed by the package', async () => {
    const res = await api.POST('/v2/payments', { body: { amount: 2000, currency: 'gbp', customer_id: 'cus_nobody' } });
    expect(res.response.status).toBe(400);
    const error: ApiError['error'] | undefined = (res.error as ApiError | undefined)?.error;
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing', param: 'customer_id' });
  });

  it('refuses at compile time what the OpenAPI document does not allow (tsc checks the @ts-expect-error lines)', async () => {
    const res = await api.POST('/v2/payments', {
      body: {
        amount: 2000,
        currency: 'gbp',
        // @ts-expect-error `customer` is not a field of PaymentCreateDto (customer_id is)
        customer: 'cus_1',
      },
    });
    // The server refuses it too, at run time.
    expect(res.response.status).toBe(400);
    expect((res.error as ApiError | undefined)?.error).toMatchObject({ code: 'parameter_unknown', param: 'customer' });
    const euro: components['schemas']['PaymentCreateDto'] = {
      amount: 1,
      // @ts-expect-error a currency outside the document's enum (lowercase ISO codes)
      currency: 'EUR',
      customer_id: 'cus_1',
    };
    expect(euro).toBeDefined();
  });
});
