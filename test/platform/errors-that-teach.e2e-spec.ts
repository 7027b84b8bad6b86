/**
 * Errors that teach (issue 15): on every service, a body that is not JSON is 415 naming
 * application/json (the OAuth token endpoint keeps its form and its RFC 6749 bodies); a
 * missing field says only that, an invalid one names the one rule it broke; a credential of
 * the wrong kind says which kind the route takes. The three services share one database,
 * as in production, so each one is shown the others' real credentials.
 */
import type { PlatformConfig } from '@app/platform';
import type { LightMyRequestResponse } from 'fastify';
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { vectorService } from '../../apps/vector-api/src/service';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';

const ADMIN = { authorization: 'Bearer dev-admin-key' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'content-type': 'application/json' };

interface ErrorBody {
  error: { type: string; code: string; message: string; param?: string; request_id: string };
}

/** The contract's error body of `res`, after checking its status. */
function errorOf(res: LightMyRequestResponse, status: number): ErrorBody['error'] {
  if (res.statusCode !== status) throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body}`);
  const { error } = res.json<ErrorBody>();
  expect(error.request_id).toBe(res.headers['request-id']);
  return error;
}

const MEDIA_FIX = 'send the body as JSON with Content-Type: application/json.';

type App = TestApp<PlatformConfig>;

describe('errors that teach', () => {
  let db: TestDatabase;
  let offers: App;
  let vector: App;
  let payments: App;
  const apps: App[] = [];
  /** Real credentials of every kind, issued by the services. */
  const issued = { accessToken: '', clientSecret: '', clientId: '', partnerId: '', vectorToken: '', secretKey: '' };
  let offerId = '';

  beforeAll(async () => {
    db = await createTestDatabase();
    const start = async (definition: unknown): Promise<App> => {
      const t = (await startTestApp(definition as typeof offersService, { ROLE: 'api' }, { db })) as unknown as App;
      apps.push(t);
      return t;
    };
    offers = await start(offersService);
    vector = await start(vectorService);
    payments = await start(paymentsService);

    const partner = await offers.app.inject({
      method: 'POST',
      url: '/admin/v1/partners',
      headers: ADMIN,
      payload: { name: 'Teach', tier: 'growth' },
    });
    issued.partnerId = partner.json<{ id: string }>().id;
    const client = await offers.app.inject({
      method: 'POST',
      url: `/admin/v1/partners/${issued.partnerId}/clients`,
      headers: ADMIN,
    });
    ({ client_id: issued.clientId, client_secret: issued.clientSecret } = client.json<{
      client_id: string;
      client_secret: string;
    }>());
    const token = await offers.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: FORM,
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: issued.clientId,
        client_secret: issued.clientSecret,
      }).toString(),
    });
    expect(token.statusCode).toBe(200);
    issued.accessToken = token.json<{ access_token: string }>().access_token;
    const offer = await offers.app.inject({
      method: 'POST',
      url: '/admin/v1/offers',
      headers: ADMIN,
      payload: {
        company: 'Teach plc',
        ticker: 'TCH',
        type: 'ipo',
        price_per_share: 2,
        currency: 'gbp',
        minimum_investment: 100,
        opens_at: new Date(Date.now() - 3_600_000).toISOString(),
        closes_at: new Date(Date.now() + 86_400_000).toISOString(),
        shares_offered: 1000,
      },
    });
    expect(offer.statusCode).toBe(201);
    offerId = offer.json<{ id: string }>().id;
    const vt = await vector.app.inject({ method: 'POST', url: '/admin/v1/tokens', headers: ADMIN, payload: { name: 'teach' } });
    issued.vectorToken = vt.json<{ token: string }>().token;
    const account = await payments.app.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: ADMIN,
      payload: { name: 'Teach' },
    });
    issued.secretKey = account.json<{ test_key: string }>().test_key;
  });
  afterAll(async () => {
    for (const t of apps) await t.close();
    await db.drop();
  });

  const bearer = (credential: string): Record<string, string> => ({ authorization: `Bearer ${credential}` });

  describe('1. a body that is not JSON: 415 naming application/json', () => {
    const cases = (): Array<[string, App, string, string, Record<string, string>]> => [
      ['offers-api partner', offers, 'POST', `/api/v1/offers/${offerId}/indications`, bearer(issued.accessToken)],
      ['offers-api admin', offers, 'POST', '/admin/v1/partners', ADMIN],
      ['vector-api', vector, 'POST', '/v1/tables', bearer(issued.vectorToken)],
      ['vector-api admin', vector, 'POST', '/admin/v1/tokens', ADMIN],
      ['payments-api', payments, 'POST', '/v2/payments', bearer(issued.secretKey)],
      ['payments-api admin', payments, 'POST', '/admin/v1/accounts', ADMIN],
    ];

    it('a form (curl -d amount=5) is 415 unsupported_media_type, not 400 body_invalid, on every service', async () => {
      for (const [label, t, method, url, auth] of cases()) {
        const res = await t.app.inject({ method: method as 'POST', url, headers: { ...auth, ...FORM }, payload: 'amount=5' });
        expect([label, errorOf(res, 415)]).toEqual([
          label,
          expect.objectContaining({
            type: 'invalid_request_error',
            code: 'unsupported_media_type',
            message: `Content-Type application/x-www-form-urlencoded is not supported: ${MEDIA_FIX}`,
          }),
        ]);
      }
    });

    it('other types, and a body without a Content-Type, are 415 naming application/json', async () => {
      for (const [label, t, method, url, auth] of cases()) {
        for (const [contentType, message] of [
          ['text/plain', `Content-Type text/plain is not supported: ${MEDIA_FIX}`],
          ['application/xml; charset=utf-8', `Content-Type application/xml is not supported: ${MEDIA_FIX}`],
          ['multipart/form-data; boundary=x', `Content-Type multipart/form-data is not supported: ${MEDIA_FIX}`],
          // +json types were 415 before too (only application/json is parsed): now it says why
          ['application/merge-patch+json', `Content-Type application/merge-patch+json is not supported: ${MEDIA_FIX}`],
          [undefined, `The request has a body but no Content-Type: ${MEDIA_FIX}`],
        ] as const) {
          const headers = { ...auth, ...(contentType === undefined ? {} : { 'content-type': contentType }) };
          const res = await t.app.inject({ method: method as 'POST', url, headers, payload: '{"name":"x"}' });
          expect([label, contentType, errorOf(res, 415).message]).toEqual([label, contentType, message]);
        }
      }
    });

    it('application/json with a charset, or in capitals, is still JSON', async () => {
      for (const contentType of ['application/json; charset=utf-8', 'Application/JSON;charset=UTF-8']) {
        const res = await payments.app.inject({
          method: 'POST',
          url: '/v2/customers',
          headers: { ...bearer(issued.secretKey), 'content-type': contentType },
          payload: '{"name":"Charset"}',
        });
        expect([contentType, res.statusCode]).toEqual([contentType, 201]);
      }
    });

    it('credentials come first: a form without valid credentials is 401, not 415', async () => {
      const res = await payments.app.inject({ method: 'POST', url: '/v2/payments', headers: FORM, payload: 'amount=5' });
      expect(errorOf(res, 401).code).toBe('authentication_required');
      const admin = await offers.app.inject({ method: 'POST', url: '/admin/v1/partners', headers: FORM, payload: 'name=x' });
      expect(errorOf(admin, 401).code).toBe('authentication_required');
    });

    it('a route that takes no body ignores a JSON one, and refuses a form like any other route', async () => {
      const url = `/admin/v1/partners/${issued.partnerId}/clients`;
      for (const payload of ['{}', '{"name":"ignored"}']) {
        const res = await offers.app.inject({ method: 'POST', url, headers: { ...ADMIN, ...JSON_TYPE }, payload });
        expect([payload, res.statusCode]).toEqual([payload, 201]);
      }
      const none = await offers.app.inject({ method: 'POST', url, headers: ADMIN });
      expect(none.statusCode).toBe(201);
      const form = await offers.app.inject({ method: 'POST', url, headers: { ...ADMIN, ...FORM }, payload: 'a=1' });
      expect(errorOf(form, 415).code).toBe('unsupported_media_type');
      const table = await vector.app.inject({
        method: 'DELETE',
        url: '/v1/tables/no-such-table',
        headers: { ...bearer(issued.vectorToken), ...JSON_TYPE },
        payload: '{}',
      });
      expect(errorOf(table, 404).code).toBe('resource_missing');
    });

    it('POST /oauth/token keeps taking its form, and answers other bodies in RFC 6749 bodies', async () => {
      const good = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: issued.clientId,
        client_secret: issued.clientSecret,
      }).toString();
      for (const contentType of [
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded; charset=utf-8',
        'APPLICATION/X-WWW-FORM-URLENCODED',
      ]) {
        const res = await offers.app.inject({
          method: 'POST',
          url: '/oauth/token',
          headers: { 'content-type': contentType },
          payload: good,
        });
        expect([contentType, res.statusCode]).toEqual([contentType, 200]);
      }
      for (const [contentType, status] of [
        ['application/json', 400],
        ['text/plain', 415],
        ['application/xml', 415],
      ] as const) {
        const res = await offers.app.inject({
          method: 'POST',
          url: '/oauth/token',
          headers: { 'content-type': contentType },
          payload: '{}',
        });
        expect([contentType, res.statusCode, res.json()]).toEqual([
          contentType,
          status,
          { error: 'invalid_request', error_description: 'The token request must be application/x-www-form-urlencoded.' },
        ]);
      }
    });
  });

  describe('2. one clear message per missing or invalid field', () => {
    const expectField = async (
      res: Promise<LightMyRequestResponse>,
      code: 'parameter_missing' | 'parameter_invalid',
      param: string,
      message: string,
    ): Promise<void> => {
      expect(errorOf(await res, 400)).toMatchObject({ code, param, message });
    };

    it('payments-api: a missing field says only that it is missing; an invalid one names its rule', async () => {
      const pay = (payload: object) =>
        payments.app.inject({ method: 'POST', url: '/v2/payments', headers: bearer(issued.secretKey), payload });
      await expectField(
        pay({ amount: 5, currency: 'gbp' }),
        'parameter_missing',
        'customer_id',
        'Missing required parameter: customer_id.',
      );
      await expectField(
        pay({ currency: 'gbp', customer_id: 'cus_x' }),
        'parameter_missing',
        'amount',
        'Missing required parameter: amount.',
      );
      await expectField(
        pay({ amount: 5, currency: 'gbp', customer_id: 5 }),
        'parameter_invalid',
        'customer_id',
        'customer_id must be a string.',
      );
      await expectField(
        pay({ amount: 5, currency: 'gbp', customer_id: 'c'.repeat(65) }),
        'parameter_invalid',
        'customer_id',
        'customer_id must be at most 64 characters long.',
      );
      await expectField(
        pay({ amount: '5', currency: 'gbp', customer_id: 'c' }),
        'parameter_invalid',
        'amount',
        'amount must be an integer.',
      );
      await expectField(
        pay({ amount: 0, currency: 'gbp', customer_id: 'c' }),
        'parameter_invalid',
        'amount',
        'amount must be at least 1.',
      );
      await expectField(
        pay({ amount: 5, currency: 'gbp', customer_id: 'c', metadata: { a: 1 } }),
        'parameter_invalid',
        'metadata',
        'metadata must be an object of at most 50 keys (≤ 40 characters) with string values (≤ 500 characters).',
      );
      const refund = (payload: object) =>
        payments.app.inject({ method: 'POST', url: '/v2/refunds', headers: bearer(issued.secretKey), payload });
      await expectField(
        refund({ payment_id: 'pay_x', reason: 'bored' }),
        'parameter_invalid',
        'reason',
        'reason must be one of: duplicate, fraudulent, requested_by_customer.',
      );
      const list = await payments.app.inject({ method: 'GET', url: '/v2/payments?limit=0', headers: bearer(issued.secretKey) });
      expect(errorOf(list, 400)).toMatchObject({
        code: 'parameter_invalid',
        param: 'limit',
        message: 'limit must be at least 1.',
      });
    });

    it('offers-api: enumerations list their values; lengths, types and timestamps say their rule once', async () => {
      const create = (payload: object) => offers.app.inject({ method: 'POST', url: '/admin/v1/offers', headers: ADMIN, payload });
      const offer = {
        company: 'Acme',
        ticker: 'ACME',
        type: 'ipo',
        price_per_share: 2.5,
        currency: 'gbp',
        minimum_investment: 250,
        opens_at: new Date(Date.now() + 3_600_000).toISOString(),
        closes_at: new Date(Date.now() + 7_200_000).toISOString(),
        shares_offered: 10,
      };
      await expectField(
        create({ ...offer, company: undefined }),
        'parameter_missing',
        'company',
        'Missing required parameter: company.',
      );
      await expectField(create({ ...offer, company: '' }), 'parameter_invalid', 'company', 'company must not be empty.');
      await expectField(
        create({ ...offer, type: 'bond' }),
        'parameter_invalid',
        'type',
        'type must be one of: ipo, placing, retail_offer.',
      );
      await expectField(
        create({ ...offer, currency: 'usd' }),
        'parameter_invalid',
        'currency',
        'currency must be one of: gbp, eur.',
      );
      await expectField(
        create({ ...offer, shares_offered: 1.5 }),
        'parameter_invalid',
        'shares_offered',
        'shares_offered must be an integer.',
      );
      await expectField(
        create({ ...offer, price_per_share: 'a' }),
        'parameter_invalid',
        'price_per_share',
        'price_per_share must be a number.',
      );
      await expectField(
        create({ ...offer, price_per_share: -1 }),
        'parameter_invalid',
        'price_per_share',
        'price_per_share must be greater than 0.',
      );
      await expectField(
        create({ ...offer, price_per_share: 1.23456 }),
        'parameter_invalid',
        'price_per_share',
        'price_per_share must be a number with at most 4 decimal places.',
      );
      await expectField(
        create({ ...offer, ticker: 'acme' }),
        'parameter_invalid',
        'ticker',
        'ticker must be 1-16 characters of A-Z, 0-9, "." and "-".',
      );
      await expectField(create({ ...offer, opens_at: 5 }), 'parameter_invalid', 'opens_at', 'opens_at must be a string.');
      const indicate = (payload: object) =>
        offers.app.inject({
          method: 'POST',
          url: `/api/v1/offers/${offerId}/indications`,
          headers: bearer(issued.accessToken),
          payload,
        });
      const indication = { investor_id: 'inv_1', amount: 100_00, currency: 'gbp', terms_accepted: true, terms_version: 'v1' };
      await expectField(
        indicate({ ...indication, terms_accepted: 'yes' }),
        'parameter_invalid',
        'terms_accepted',
        'terms_accepted must be a boolean (true or false).',
      );
      await expectField(
        indicate({ ...indication, terms_version: undefined }),
        'parameter_missing',
        'terms_version',
        'Missing required parameter: terms_version.',
      );
    });

    it('vector-api: nested fields and array items are named by their path', async () => {
      const auth = bearer(issued.vectorToken);
      const table = await vector.app.inject({
        method: 'POST',
        url: '/v1/tables',
        headers: auth,
        payload: { name: 'teach', dimension: 2 },
      });
      expect(table.statusCode).toBe(201);
      const insert = (payload: object) =>
        vector.app.inject({ method: 'POST', url: '/v1/tables/teach/insert', headers: auth, payload });
      await expectField(
        insert({ rows: [{ id: 'a', embedding: [1, 2] }, { id: 'b' }] }),
        'parameter_missing',
        'rows[1].embedding',
        'Missing required parameter: rows[1].embedding.',
      );
      await expectField(
        insert({
          rows: [
            { id: 'a', embedding: [1, 2] },
            { id: 'b', embedding: 'x' },
          ],
        }),
        'parameter_invalid',
        'rows[1].embedding',
        'rows[1].embedding must be an array.',
      );
      await expectField(
        insert({ rows: [{ id: '', embedding: [1, 2] }] }),
        'parameter_invalid',
        'rows[0].id',
        'rows[0].id must not be empty.',
      );
      await expectField(
        insert({ rows: [{ id: 'a', embedding: [1, 2] }, 7] }),
        'parameter_invalid',
        'rows[1]',
        'rows[1] must be an object.',
      );
      await expectField(insert({ rows: [] }), 'parameter_invalid', 'rows', 'rows must not be empty.');
      await expectField(
        vector.app.inject({
          method: 'POST',
          url: '/v1/tables',
          headers: auth,
          payload: { name: 'x', dimension: 2, index: 'btree' },
        }),
        'parameter_invalid',
        'index',
        'index must be one of: flat, ivf, hnsw.',
      );
      await expectField(
        vector.app.inject({ method: 'POST', url: '/v1/tables', headers: auth, payload: { name: 'x', dimension: 5000 } }),
        'parameter_invalid',
        'dimension',
        'dimension must be at most 4096.',
      );
      await expectField(
        vector.app.inject({ method: 'DELETE', url: '/v1/tables/teach/vectors', headers: auth, payload: { ids: ['a', 2] } }),
        'parameter_invalid',
        'ids[1]',
        'ids[1] must be a string.',
      );
      await expectField(
        vector.app.inject({ method: 'POST', url: '/admin/v1/tokens', headers: ADMIN, payload: { name: 'n'.repeat(201) } }),
        'parameter_invalid',
        'name',
        'name must be at most 200 characters long.',
      );
    });
  });

  describe('3. a credential of the wrong kind says which kind the route takes', () => {
    const get = (t: App, url: string, credential: string) => t.app.inject({ method: 'GET', url, headers: bearer(credential) });
    /** The 401's message; the body never holds any part of the credential. */
    const refusal = async (t: App, url: string, credential: string, code: string): Promise<string> => {
      const res = await get(t, url, credential);
      const error = errorOf(res, 401);
      expect(error.code).toBe(code);
      const secretPart = credential.replace(/^(sk_test_|sk_live_|vt_|cs_)/, '').slice(-16);
      expect(res.body).not.toContain(secretPart);
      return error.message;
    };
    const OFFERS_WANT = 'This route takes an OAuth 2.0 access token from POST /oauth/token';
    const VECTOR_WANT =
      'This route takes a vector token (vt_…, created at POST /admin/v1/projects/{id}/tokens or POST /v1/tokens)';
    const PAYMENTS_WANT = 'This route takes a secret or restricted API key (sk_test_…, sk_live_…, rk_test_… or rk_live_…)';
    const ADMIN_WANT = 'This route takes the admin key (ADMIN_API_KEY)';
    const ADMIN_ELSEWHERE = ' (the admin key works only on /admin/v1 routes).';

    it('offers-api /api/v1: the admin key, a client secret and other services’ keys are named', async () => {
      const url = '/api/v1/offers';
      // The admin key gets the words any unknown credential gets: a different answer would let
      // anyone test admin key guesses here, outside the admin routes' failure limit.
      expect(await refusal(offers, url, 'dev-admin-key', 'invalid_token')).toBe(
        `The access token is invalid. ${OFFERS_WANT}${ADMIN_ELSEWHERE}`,
      );
      expect(await refusal(offers, url, 'dev-admin-kez', 'invalid_token')).toBe(
        await refusal(offers, url, 'dev-admin-key', 'invalid_token'),
      );
      expect(await refusal(offers, url, issued.clientSecret, 'invalid_token')).toBe(
        `${OFFERS_WANT}; this looks like an OAuth client secret (cs_…), which POST /oauth/token exchanges, with its client_id, for an access token.`,
      );
      expect(await refusal(offers, url, issued.vectorToken, 'invalid_token')).toBe(
        `${OFFERS_WANT}; this looks like a vector-api token (vt_…).`,
      );
      expect(await refusal(offers, url, issued.secretKey, 'invalid_token')).toBe(
        `${OFFERS_WANT}; this looks like a payments-api secret key (sk_test_… or sk_live_…).`,
      );
      // an access token that is not valid is about the token itself; an unknown shape is told what to send
      expect(await refusal(offers, url, `${issued.accessToken.slice(0, -4)}AAAA`, 'invalid_token')).toBe(
        'The access token is invalid.',
      );
      expect(await refusal(offers, url, 'junk', 'invalid_token')).toBe(
        `The access token is invalid. ${OFFERS_WANT}${ADMIN_ELSEWHERE}`,
      );
      // the challenge is the authenticator's own (RFC 6750)
      const res = await get(offers, url, 'dev-admin-key');
      expect(res.headers['www-authenticate']).toBe(
        'Bearer realm="offers-api", error="invalid_token", error_description="The access token is invalid."',
      );
      const none = await offers.app.inject({ method: 'GET', url });
      expect(errorOf(none, 401).message).toBe(
        `No credentials provided. ${OFFERS_WANT}: send it as Authorization: Bearer <token>.`,
      );
    });

    it('vector-api /v1: the admin key and other services’ credentials are named', async () => {
      const url = '/v1/tables';
      expect(await refusal(vector, url, 'dev-admin-key', 'invalid_api_key')).toBe(
        `Invalid API key provided. ${VECTOR_WANT}${ADMIN_ELSEWHERE}`,
      );
      expect(await refusal(vector, url, 'dev-admin-kez', 'invalid_api_key')).toBe(
        await refusal(vector, url, 'dev-admin-key', 'invalid_api_key'),
      );
      expect(await refusal(vector, url, issued.accessToken, 'invalid_api_key')).toBe(
        `${VECTOR_WANT}; this looks like an offers-api OAuth 2.0 access token.`,
      );
      expect(await refusal(vector, url, issued.secretKey, 'invalid_api_key')).toBe(
        `${VECTOR_WANT}; this looks like a payments-api secret key (sk_test_… or sk_live_…).`,
      );
      expect(await refusal(vector, url, 'vt_revokedOrUnknown000000000000000', 'invalid_api_key')).toBe(
        'Invalid API key provided.',
      );
      const res = await get(vector, url, issued.accessToken);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="vector-api", error="invalid_token"');
    });

    it('payments-api /v2: a vector token, an access token and the admin key are named', async () => {
      const url = '/v2/customers';
      expect(await refusal(payments, url, issued.vectorToken, 'invalid_api_key')).toBe(
        `${PAYMENTS_WANT}; this looks like a vector-api token.`,
      );
      expect(await refusal(payments, url, issued.accessToken, 'invalid_api_key')).toBe(
        `${PAYMENTS_WANT}; this looks like an offers-api OAuth 2.0 access token.`,
      );
      expect(await refusal(payments, url, 'dev-admin-key', 'invalid_api_key')).toBe(
        `Invalid API key provided. ${PAYMENTS_WANT}${ADMIN_ELSEWHERE}`,
      );
      expect(await refusal(payments, url, 'dev-admin-kez', 'invalid_api_key')).toBe(
        await refusal(payments, url, 'dev-admin-key', 'invalid_api_key'),
      );
      expect(await refusal(payments, url, 'sk_test_unknownKey0000000000000000', 'invalid_api_key')).toBe(
        'Invalid API key provided.',
      );
      expect(await refusal(payments, url, 'junk', 'invalid_api_key')).toBe(
        `Invalid API key provided. ${PAYMENTS_WANT}${ADMIN_ELSEWHERE}`,
      );
      // Stripe's clients send the key with HTTP Basic: the scheme is named, its value never
      const basic = Buffer.from(`${issued.secretKey}:`).toString('base64');
      const res = await payments.app.inject({ method: 'GET', url, headers: { authorization: `Basic ${basic}` } });
      const error = errorOf(res, 401);
      expect([error.code, error.message]).toEqual([
        'authentication_required',
        `The Authorization header uses the Basic scheme. ${PAYMENTS_WANT}: send it as Authorization: Bearer <token>.`,
      ]);
      expect(res.body).not.toContain(basic.slice(4, 20));
    });

    it('/admin/v1 on every service: an API key or token says the route takes the admin key', async () => {
      const url = '/admin/v1/info';
      for (const [service, t] of [
        ['offers-api', offers],
        ['vector-api', vector],
        ['payments-api', payments],
      ] as const) {
        const messages = [];
        for (const credential of [issued.secretKey, issued.accessToken, issued.vectorToken]) {
          messages.push(await refusal(t, url, credential, 'invalid_api_key'));
        }
        for (const message of messages)
          expect([service, message]).toEqual([service, expect.stringMatching(`^${escape(ADMIN_WANT)}; this looks like `)]);
        expect([service, await refusal(t, url, 'wrong-admin-key', 'invalid_api_key')]).toEqual([
          service,
          'Invalid admin API key.',
        ]);
      }
      expect(await refusal(payments, url, issued.secretKey, 'invalid_api_key')).toBe(
        `${ADMIN_WANT}; this looks like a secret or restricted API key (sk_test_…, sk_live_…, rk_test_… or rk_live_…), which works on the /v2 routes.`,
      );
      expect(await refusal(offers, url, issued.accessToken, 'invalid_api_key')).toBe(
        `${ADMIN_WANT}; this looks like an OAuth 2.0 access token, which works on the /api/v1 routes.`,
      );
      expect(await refusal(vector, url, issued.vectorToken, 'invalid_api_key')).toBe(
        `${ADMIN_WANT}; this looks like a vector token (vt_…), which works on the /v1 routes.`,
      );
      const res = await get(payments, url, issued.secretKey);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="admin", error="invalid_token"');
    });

    it('a wrong-kind key on /admin/v1 still counts against the address’s failure limit', async () => {
      const from = { remoteAddress: '192.0.2.77' };
      const limit = payments.config.ADMIN_AUTH_FAILURES_PER_MINUTE;
      for (let i = 0; i < limit; i++) {
        const res = await payments.app.inject({
          method: 'GET',
          url: '/admin/v1/info',
          headers: bearer(issued.secretKey),
          ...from,
        });
        expect(errorOf(res, 401).code).toBe('invalid_api_key');
      }
      const limited = await payments.app.inject({ method: 'GET', url: '/admin/v1/info', headers: ADMIN, ...from });
      expect(errorOf(limited, 429).code).toBe('rate_limit_exceeded');
    });
  });
});

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
