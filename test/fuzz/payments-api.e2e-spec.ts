/**
 * Fuzzing every payments-api operation (see test/fuzz/support/harness.ts), idempotent
 * writes included (random Idempotency-Key headers, some over 255 characters). Stripe's /v1
 * (tag stripe) is fuzzed with form-encoded bodies and query strings of Stripe's bracketed
 * parameters (the harness's hostile forms for every /v1 operation, templated or not), and
 * its errors are checked as Stripe's body, by the path the service saw.
 */
import { ADMIN, newAccount, newCustomer, startPayments } from '../payments-api/payments-context';
import { waitFor } from '../support/wait';
import { consoleTemplates, DEEP_ARRAY, defineFuzzSuite, expectError, webhookEndpointTemplates } from './support/harness';

interface PaymentsFixtures {
  accountId: string;
  testKey: Record<string, string>;
  liveKey: Record<string, string>;
  customer: string;
  doomedCustomer: string;
  payment: string;
  refund: string;
  endpoint: string;
  doomedEndpoint: string;
  delivery: string;
  doomedKey: string;
  doomedV1Customer: string;
}

let serial = 0;

defineFuzzSuite<PaymentsFixtures>({
  service: 'payments-api',
  start: async () => {
    const t = await startPayments({
      PAYMENTS_RATE_LIMIT_PER_MINUTE: '1000000',
      ADMIN_AUTH_FAILURES_PER_MINUTE: '0',
      WEBHOOK_RETRY_SCHEDULE: '1h',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_SWEEP_INTERVAL_MS: '200',
    });
    const account = await newAccount(t, 'Fuzz Shop');
    const inject = async (url: string, payload: object, expected = 201): Promise<string> => {
      const res = await t.app.inject({ method: 'POST', url, headers: account.test, payload });
      if (res.statusCode !== expected) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
      return res.json<{ id: string }>().id;
    };
    const endpoint = await inject('/v2/webhook-endpoints', { url: 'http://127.0.0.1:9/hook' });
    const doomedEndpoint = await inject('/v2/webhook-endpoints', { url: 'http://127.0.0.1:9/doomed' });
    const customer = await newCustomer(t, account.test);
    const doomedCustomer = await newCustomer(t, account.test, { name: 'Doomed' });
    const payment = await inject('/v2/payments', { amount: 1_000_000, currency: 'gbp', customer_id: customer });
    const refund = await inject('/v2/refunds', { payment_id: payment, amount: 100 });
    const doomedKey = await inject('/v2/api-keys', { mode: 'test', name: 'doomed', permissions: { customers: 'read' } });
    const doomedV1Customer = await newCustomer(t, account.test, { name: 'Doomed on /v1' });
    const delivery = await waitFor('a webhook delivery for the fixture endpoint', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/v2/webhook-endpoints/${endpoint}/deliveries`,
        headers: account.test,
      });
      return res.json<{ data: Array<{ id: string }> }>().data[0]?.id;
    });
    return {
      app: t.app,
      logs: t.logs,
      close: () => t.close(),
      fixtures: {
        accountId: account.id,
        testKey: account.test,
        liveKey: account.live,
        customer,
        doomedCustomer,
        payment,
        refund,
        endpoint,
        doomedEndpoint,
        delivery,
        doomedKey,
        doomedV1Customer,
      },
    };
  },
  fuzzer: (app, fx, logs) => {
    const key = (fx.testKey['authorization'] ?? '').replace(/^Bearer /, '');
    return {
      service: 'payments-api',
      app,
      logs,
      auth: { admin: ADMIN, payments_key: fx.testKey },
      junkAuth: [
        { authorization: '' },
        { authorization: 'Bearer' },
        { authorization: 'Bearer sk_test_junk' },
        { authorization: 'Bearer sk_live_junk' },
        { authorization: `Bearer ${key}x` },
        { authorization: `Bearer ${key.replace('sk_test_', 'sk_live_')}` },
        { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
        { authorization: `bearer ${key}` },
        { authorization: `Bearer ${'a'.repeat(8000)}` },
        { authorization: 'Bearer dev-admin-key' },
        fx.liveKey,
        fx.testKey,
      ],
      otherIds: [
        fx.payment,
        fx.refund,
        fx.doomedCustomer,
        fx.doomedEndpoint,
        fx.doomedKey,
        'cus_0000000000000000000000',
        'pay_0000000000000000000000',
        're_0000000000000000000000',
      ],
      bodyLimit: 1_048_576,
      stripeBody: (_opPath, seen) => seen === '/v1' || seen.startsWith('/v1/'),
    };
  },
  templates: {
    'GET /admin/v1/info': () => ({}),
    ...consoleTemplates<PaymentsFixtures>('account_id', (fx) => fx.accountId),
    'GET /admin/v1/accounts': (fx) => ({
      query: { limit: ['1', '100'], starting_after: [fx.accountId], name_prefix: ['Shop', 's%_\\'] },
    }),
    'POST /admin/v1/accounts': () => ({ body: () => ({ name: `Shop ${serial++}` }) }),
    'POST /v2/customers': () => ({
      body: () => ({ email: `c${serial++}@example.com`, name: 'Jenny Rosen', description: 'fuzz', metadata: { order: '1' } }),
    }),
    'GET /v2/customers': (fx) => ({
      query: { limit: ['1', '100'], starting_after: [fx.customer], ending_before: [fx.customer], email: ['jenny@example.com'] },
    }),
    'GET /v2/customers/{id}': (fx) => ({ params: { id: [fx.customer] } }),
    'POST /v2/customers/{id}': (fx) => ({
      params: { id: [fx.customer] },
      body: () => ({ name: `Jenny ${serial++}`, metadata: { tier: 'gold' } }),
    }),
    'POST /v2/payments': (fx) => ({
      body: () => ({
        amount: 2000,
        currency: 'gbp',
        customer_id: fx.customer,
        description: 'fuzz',
        metadata: { order: String(serial++) },
        payment_method: 'pm_card_visa',
      }),
    }),
    'GET /v2/payments': (fx) => ({
      query: {
        customer_id: [fx.customer],
        'created[gte]': ['2020-01-01', '1700000000'],
        'created[lte]': ['2100-01-01T00:00:00Z', '4102444800'],
        status: ['succeeded', 'failed'],
        limit: ['1', '100'],
        starting_after: [fx.payment],
        ending_before: [fx.payment],
      },
    }),
    'GET /v2/payments/volume': () => ({ query: { days: ['1', '30', '90'], currency: ['gbp', 'eur'] } }),
    'GET /v2/payments/{id}': (fx) => ({ params: { id: [fx.payment] } }),
    'POST /v2/refunds': (fx) => ({ body: () => ({ payment_id: fx.payment, amount: 1, reason: 'requested_by_customer' }) }),
    'GET /v2/refunds': (fx) => ({ query: { payment_id: [fx.payment], limit: ['1', '100'], starting_after: [fx.refund] } }),
    'GET /v2/refunds/{id}': (fx) => ({ params: { id: [fx.refund] } }),
    ...webhookEndpointTemplates<PaymentsFixtures>('/v2/webhook-endpoints', 'payment.succeeded'),
    // Stripe's /v1 (the other /v1 operations get the generic form and the hostile forms)
    'POST /v1/customers': () => ({
      form: {
        email: ['jenny@example.com', ''],
        name: ['Jenny Rosen'],
        description: ['fuzz', ''],
        'metadata[order]': ['1', ''],
        'expand[]': ['customer'],
      },
    }),
    'GET /v1/customers': (fx) => ({
      query: {
        limit: ['1', '100'],
        starting_after: [fx.customer],
        ending_before: [fx.customer],
        email: ['jenny@example.com'],
        'created[gte]': ['0', '1700000000'],
        'created[lt]': ['4102444800'],
        'expand[]': ['data.customer'],
      },
    }),
    'GET /v1/customers/{id}': (fx) => ({ params: { id: [fx.customer] }, query: { 'expand[]': ['customer'] } }),
    'POST /v1/customers/{id}': (fx) => ({
      params: { id: [fx.customer] },
      form: { name: ['Jenny Rosen', ''], email: ['', 'j@example.com'], 'metadata[tier]': ['gold', ''], metadata: [''] },
    }),
    'DELETE /v1/customers/{id}': (fx) => ({ params: { id: [fx.doomedV1Customer] } }),
    'DELETE /v2/customers/{id}': (fx) => ({ params: { id: [fx.doomedCustomer] } }),
    'DELETE /v2/webhook-endpoints/{id}': (fx) => ({ params: { id: [fx.doomedEndpoint] } }),
    // Keys last, and shaped so the fuzzing test key survives: a roll names live mode (403 for a
    // test key, whatever else the body holds); the only working test secret key cannot revoke itself.
    'POST /v2/api-keys': () => ({
      body: () => ({ mode: 'test', name: `fuzz ${serial++}`, permissions: { customers: 'read', payments: 'write' } }),
      numRuns: 40,
    }),
    'GET /v2/api-keys': (fx) => ({
      query: { limit: ['1', '100'], starting_after: [fx.doomedKey], ending_before: [fx.doomedKey] },
    }),
    'DELETE /v2/api-keys/{id}': (fx) => ({ params: { id: [fx.doomedKey] } }),
    'POST /v2/api-keys/roll': () => ({ body: () => ({ mode: 'live', expires_in_hours: 168 }) }),
  },
  extra: (get) => {
    test('regressions found by fuzzing', async () => {
      const { app, fixtures } = get();
      const json = { ...fixtures.testKey, 'content-type': 'application/json' };
      // The idempotency fingerprint walked the body recursively before validation (500).
      let res = await app.inject({
        method: 'POST',
        url: '/v2/customers',
        headers: { ...json, 'idempotency-key': 'deep-1' },
        payload: `{"name":${DEEP_ARRAY}}`,
      });
      expectError(res, 400, 'parameter_invalid', `name${'[0]'.repeat(31)}`);
      // `metadata: null` passed @IsOptional and reached Object.entries(null) (500): it clears metadata.
      res = await app.inject({ method: 'POST', url: '/v2/customers', headers: json, payload: '{"metadata":{"a":"1"}}' });
      expect(res.statusCode).toBe(201);
      const customer = res.json<{ id: string }>().id;
      res = await app.inject({
        method: 'POST',
        url: `/v2/customers/${customer}`,
        headers: json,
        payload: '{"metadata":null}',
      });
      expect(res.statusCode).toBe(200);
      expect(res.json<{ metadata: object }>().metadata).toEqual({});
      // A NUL in a path parameter reached PostgreSQL (500).
      res = await app.inject({ method: 'GET', url: '/v2/payments/pay_%00', headers: fixtures.testKey });
      expectError(res, 400, 'parameter_invalid', 'id');
      // A lone UTF-16 surrogate (valid JSON escape, invalid Unicode) reached a jsonb column (500).
      res = await app.inject({ method: 'POST', url: '/v2/customers', headers: json, payload: '{"metadata":{"a":"x\\ud800"}}' });
      expectError(res, 400, 'parameter_invalid', 'metadata.a');
      res = await app.inject({ method: 'POST', url: '/v2/customers', headers: json, payload: '{"metadata":{"\\udc00":"x"}}' });
      expectError(res, 400, 'parameter_invalid', 'metadata');
      res = await app.inject({ method: 'POST', url: '/v2/customers', headers: json, payload: '{"name":"ok \\ud83d\\ude00"}' });
      expect(res.statusCode).toBe(201);
      // /v1: a NUL in a form value or name (or a lone surrogate in JSON) reached PostgreSQL (500)
      const form = { ...fixtures.testKey, 'content-type': 'application/x-www-form-urlencoded' };
      for (const [url, headers, payload, param] of [
        ['/v1/customers', form, 'email=%00', 'email'],
        [`/v1/customers/${fixtures.customer}`, form, 'metadata[%00]=x', 'metadata[\u0000]'],
        ['/v1/customers', json, '{"metadata":{"a":"x\\ud800"}}', 'metadata[a]'],
        ['/v1/customers?email=%00', fixtures.testKey, undefined, 'email'],
      ] as const) {
        res = await app.inject({
          method: payload === undefined ? 'GET' : 'POST',
          url,
          headers,
          ...(payload === undefined ? {} : { payload }),
        });
        const error = res.json<{ error: { type: string; code: string; param: string } }>().error;
        expect([url, res.statusCode, error.type, error.code, error.param]).toEqual([
          url,
          400,
          'invalid_request_error',
          'parameter_invalid',
          param,
        ]);
      }
    }, 60_000);
  },
});
