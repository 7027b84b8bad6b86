/**
 * Fuzzing every offers-api operation (see test/fuzz/support/harness.ts), POST /oauth/token
 * included: its errors must be RFC 6749 §5.2 bodies, everything else the platform body.
 */
import { ADMIN, HOUR, iso, OffersContext, startOffers, waitFor } from '../offers-api/fixtures';
import {
  DEEP_ARRAY,
  type Fuzzer,
  type Operation,
  type SuiteContext,
  defineFuzzSuite,
  expectError,
  consoleTemplates,
  webhookEndpointTemplates,
} from './support/harness';

interface OffersFixtures {
  partnerId: string;
  clientId: string;
  clientSecret: string;
  token: string;
  doomedPartnerId: string;
  doomedClientId: string;
  /** Clients the fuzz partner made itself: one to rotate, one to delete. */
  ownClient: string;
  doomedOwnClient: string;
  liveOffer: string;
  upcomingOffer: string;
  closedOffer: string;
  editableOffer: string;
  indication: string;
  doomedIndication: string;
  endpoint: string;
  doomedEndpoint: string;
  delivery: string;
}

let serial = 0;

function waitForDelivery(ctx: OffersContext, auth: Record<string, string>, endpoint: string): Promise<string> {
  return waitFor('a webhook delivery for the fixture endpoint', async () => {
    const res = await ctx.inject({ method: 'GET', url: `/api/v1/webhook-endpoints/${endpoint}/deliveries`, headers: auth });
    return res.json<{ data: Array<{ id: string }> }>().data[0]?.id;
  });
}

defineFuzzSuite<OffersFixtures>({
  service: 'offers-api',
  start: async () => {
    const t = await startOffers({
      RATE_LIMIT_ENTERPRISE: '1000000',
      OAUTH_TOKEN_FAILURES_PER_MINUTE: '0',
      ADMIN_AUTH_FAILURES_PER_MINUTE: '0',
      WEBHOOK_RETRY_SCHEDULE: '1h',
      WEBHOOK_TIMEOUT_MS: '1000',
    });
    const ctx = new OffersContext(t);
    const partner = await ctx.newPartner('Fuzz Partner', 'enterprise');
    const doomed = await ctx.newPartner('Doomed Partner', 'starter');
    const now = Date.now();
    const live = await ctx.newOffer();
    const upcoming = await ctx.newOffer({ opens_at: iso(now + 24 * HOUR), closes_at: iso(now + 48 * HOUR) });
    const editable = await ctx.newOffer({ opens_at: iso(now + 24 * HOUR), closes_at: iso(now + 48 * HOUR) });
    const closed = await ctx.newOffer({ opens_at: iso(now - 48 * HOUR), closes_at: iso(now - HOUR) });
    for (const offer of [live, upcoming, closed, editable]) await ctx.share(partner, offer.id);
    await ctx.publishTerms('v1');
    const post = async (url: string, payload: object): Promise<string> => {
      const res = await ctx.inject({ method: 'POST', url, headers: partner.auth, payload });
      ctx.expectStatus(res, 201);
      return res.json<{ id: string }>().id;
    };
    const endpoint = await post('/api/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook' });
    const doomedEndpoint = await post('/api/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/doomed' });
    const indication = { investor_id: 'inv_1', amount: 100_000, currency: 'gbp', terms_accepted: true, terms_version: 'v1' };
    const ind = await post(`/api/v1/offers/${live.id}/indications`, indication);
    const doomedInd = await post(`/api/v1/offers/${live.id}/indications`, { ...indication, investor_id: 'inv_2' });
    const delivery = await waitForDelivery(ctx, partner.auth, endpoint);
    const newClient = async (name: string): Promise<string> => {
      const res = await ctx.inject({ method: 'POST', url: '/api/v1/clients', headers: partner.auth, payload: { name } });
      ctx.expectStatus(res, 201);
      return res.json<{ client_id: string }>().client_id;
    };
    const ownClient = await newClient('fuzz-rotate');
    const doomedOwnClient = await newClient('fuzz-doomed');
    return {
      app: t.app,
      logs: t.logs,
      close: () => t.close(),
      fixtures: {
        partnerId: partner.id,
        clientId: partner.clientId,
        clientSecret: partner.clientSecret,
        token: partner.token,
        doomedPartnerId: doomed.id,
        doomedClientId: doomed.clientId,
        ownClient,
        doomedOwnClient,
        liveOffer: live.id,
        upcomingOffer: upcoming.id,
        closedOffer: closed.id,
        editableOffer: editable.id,
        indication: ind,
        doomedIndication: doomedInd,
        endpoint,
        doomedEndpoint,
        delivery,
      },
    };
  },
  fuzzer: (app, fx, logs) => ({
    service: 'offers-api',
    app,
    logs,
    auth: { admin: ADMIN, partner: { authorization: `Bearer ${fx.token}` } },
    junkAuth: [
      { authorization: '' },
      { authorization: 'Bearer' },
      { authorization: 'Bearer junk' },
      { authorization: `Bearer ${fx.token.slice(0, -2)}` },
      { authorization: `Bearer ${fx.token}.x` },
      { authorization: `Bearer ${fx.token.split('.').slice(0, 2).join('.')}.` },
      { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' },
      { authorization: `bearer ${fx.token}` },
      { authorization: `Basic ${Buffer.from(`${fx.clientId}:${fx.clientSecret}`).toString('base64')}` },
      { authorization: `Bearer ${'a'.repeat(8000)}` },
      { authorization: 'Bearer dev-admin-key' },
      { authorization: `Bearer ${fx.token}` },
    ],
    otherIds: [
      fx.liveOffer,
      fx.upcomingOffer,
      fx.partnerId,
      fx.doomedPartnerId,
      fx.doomedEndpoint,
      fx.doomedIndication,
      'ind_0000000000000000000000',
      'we_0000000000000000000000',
      'client_0000000000000000000000',
    ],
    bodyLimit: 1_048_576,
    oauthPaths: ['/oauth/token'],
  }),
  templates: {
    'GET /admin/v1/info': () => ({}),
    ...consoleTemplates<OffersFixtures>('partner_id', (fx) => fx.partnerId),
    'POST /oauth/token': (fx) => ({
      form: {
        grant_type: ['client_credentials', 'password', 'refresh_token', 'authorization_code', ''],
        client_id: [fx.clientId, 'client_unknown', ''],
        client_secret: [fx.clientSecret, 'wrong', ''],
        scope: ['read', ''],
      },
    }),
    'GET /admin/v1/partners': (fx) => ({
      query: { limit: ['1', '100'], starting_after: [fx.partnerId, fx.doomedPartnerId], name_prefix: ['Partner', 'p%_\\'] },
    }),
    'POST /admin/v1/partners': () => ({ body: () => ({ name: `Partner ${serial++}`, tier: 'growth' }) }),
    'GET /admin/v1/partners/{id}': (fx) => ({ params: { id: [fx.partnerId] } }),
    // Each success hashes a new secret with scrypt: fewer runs, query cases on an unknown partner.
    'POST /admin/v1/partners/{id}/clients': (fx) => ({
      params: { id: [fx.doomedPartnerId] },
      numRuns: 20,
      queryCaseParams: { id: 'ptn_0000000000000000000000' },
    }),
    ...webhookEndpointTemplates<OffersFixtures>('/api/v1/webhook-endpoints', 'offer.opened'),
    'GET /api/v1/offers': () => ({
      query: {
        status: ['live', 'upcoming', 'closed'],
        type: ['ipo'],
        limit: ['1', '100'],
        page: ['1', '2'],
        modified_after: ['2026-01-01T00:00:00Z', '2026-01-01T01:00:00+01:00'],
      },
    }),
    'GET /api/v1/offers/{id}': (fx) => ({ params: { id: [fx.liveOffer] } }),
    'POST /admin/v1/offers': () => ({
      body: () => ({
        company: 'Fuzz plc',
        ticker: 'FUZZ',
        type: 'ipo',
        price_per_share: 2.5,
        currency: 'gbp',
        minimum_investment: 250,
        maximum_investment: 5000,
        documents: [{ type: 'prospectus', title: 'Prospectus', url: 'https://example.com/p.pdf' }],
        opens_at: iso(Date.now() + 24 * HOUR),
        closes_at: iso(Date.now() + 48 * HOUR),
        shares_offered: 1000,
      }),
    }),
    'GET /admin/v1/offers/{id}': (fx) => ({ params: { id: [fx.liveOffer] } }),
    'PATCH /admin/v1/offers/{id}': (fx) => ({
      params: { id: [fx.editableOffer] },
      body: () => ({ company: `Renamed ${serial++}`, ticker: 'RNMD' }),
    }),
    'PUT /admin/v1/partners/{id}/offers/{offer_id}': (fx) => ({ params: { id: [fx.partnerId], offer_id: [fx.upcomingOffer] } }),
    'GET /api/v1/terms': () => ({}),
    'POST /admin/v1/terms': () => ({ body: () => ({ version: 'v1', title: 'Investor terms', body: 'You may lose money.' }) }),
    'POST /api/v1/offers/{offer_id}/indications': (fx) => ({
      params: { offer_id: [fx.liveOffer] },
      body: () => ({
        investor_id: `inv_f${serial++}`,
        amount: 100_000,
        currency: 'gbp',
        terms_accepted: true,
        terms_version: 'v1',
      }),
    }),
    'GET /api/v1/offers/{offer_id}/indications': (fx) => ({ params: { offer_id: [fx.liveOffer] } }),
    'GET /api/v1/offers/{offer_id}/allocations': (fx) => ({ params: { offer_id: [fx.closedOffer] } }),
    'GET /api/v1/allocations': (fx) => ({
      query: { limit: ['1', '100'], offer_id: [fx.closedOffer], investor_id: ['inv_1'] },
    }),
    'GET /api/v1/indications/{id}': (fx) => ({ params: { id: [fx.indication] } }),
    'PATCH /api/v1/offers/{offer_id}/indications/{id}': (fx) => ({
      params: { offer_id: [fx.liveOffer], id: [fx.indication] },
      body: () => ({ amount: 25_000 + (serial++ % 1000) }),
    }),
    'DELETE /api/v1/offers/{offer_id}/indications/{id}': (fx) => ({
      params: { offer_id: [fx.liveOffer], id: [fx.doomedIndication] },
    }),
    'POST /admin/v1/offers/{id}/allocations': (fx) => ({
      params: { id: [fx.closedOffer] },
      body: () => ({ shares_available: 1000, policy: 'min_then_pro_rata', minimum_allocation_shares: 1 }),
    }),
    'DELETE /api/v1/webhook-endpoints/{id}': (fx) => ({ params: { id: [fx.doomedEndpoint] } }),
    'GET /api/v1/clients': () => ({}),
    // Each success hashes a new secret with scrypt, and a partner holds at most 20 clients: fewer runs.
    'POST /api/v1/clients': () => ({ body: () => ({ name: `fuzz-${serial++}` }), numRuns: 20 }),
    'POST /api/v1/clients/{id}/rotate-secret': (fx) => ({
      params: { id: [fx.ownClient] },
      body: () => ({ expires_in_hours: serial++ % 169 }),
      numRuns: 20,
    }),
    'DELETE /api/v1/clients/{id}': (fx) => ({ params: { id: [fx.doomedOwnClient] } }),
    'DELETE /admin/v1/partners/{id}/clients/{client_id}': (fx) => ({
      params: { id: [fx.doomedPartnerId], client_id: [fx.doomedClientId] },
    }),
  },
  extra: (get: () => SuiteContext<OffersFixtures>) => {
    test('regressions found by fuzzing', async () => {
      const { app, fixtures } = get();
      const json = { ...ADMIN, 'content-type': 'application/json' };
      const partner = { authorization: `Bearer ${fixtures.token}` };
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const offer = {
        company: 'Acme',
        ticker: 'ACME',
        type: 'ipo',
        price_per_share: 2.5,
        currency: 'gbp',
        minimum_investment: 250,
        opens_at: iso(Date.now() + HOUR),
        closes_at: iso(Date.now() + 2 * HOUR),
        shares_offered: 10,
      };
      // class-validator's IsNumber({ maxDecimalPlaces }) threw a TypeError on 5e-324 (500).
      let res = await app.inject({
        method: 'POST',
        url: '/admin/v1/offers',
        headers: json,
        payload: JSON.stringify({ ...offer, price_per_share: 5e-324 }),
      });
      expectError(res, 400, 'parameter_invalid', 'price_per_share');
      res = await app.inject({
        method: 'POST',
        url: '/admin/v1/offers',
        headers: json,
        payload: JSON.stringify({ ...offer, minimum_investment: 1e-7 }),
      });
      expectError(res, 400, 'parameter_invalid', 'minimum_investment');
      // class-transformer recursed once per level: 10k nested arrays overflowed the stack (500).
      res = await app.inject({
        method: 'POST',
        url: '/admin/v1/partners',
        headers: json,
        payload: `{"name":${DEEP_ARRAY},"tier":"growth"}`,
      });
      expectError(res, 400, 'parameter_invalid', `name${'[0]'.repeat(31)}`);
      // PostgreSQL text cannot hold U+0000: the insert failed (500).
      res = await app.inject({
        method: 'POST',
        url: '/admin/v1/terms',
        headers: json,
        payload: JSON.stringify({ version: 'v9', title: 'a\u0000b', body: 'x' }),
      });
      expectError(res, 400, 'parameter_invalid', 'title');
      res = await app.inject({ method: 'GET', url: '/admin/v1/offers/%00', headers: ADMIN });
      expectError(res, 400, 'parameter_invalid', 'id');
      // Keys Nest / class-transformer dropped silently are unknown parameters.
      for (const key of ['prototype', 'constructor', 'toString']) {
        res = await app.inject({
          method: 'POST',
          url: '/admin/v1/partners',
          headers: json,
          payload: `{"name":"x","tier":"growth","${key}":"y"}`,
        });
        expectError(res, 400, 'parameter_unknown', key);
      }
      res = await app.inject({ method: 'GET', url: '/api/v1/offers?constructor=x', headers: partner });
      expectError(res, 400, 'parameter_unknown', 'constructor');
      // Router errors came in Fastify's own body, without Request-Id.
      res = await app.inject({ method: 'GET', url: '/api/v1/offers/%zz', headers: partner });
      expectError(res, 400, 'parameter_invalid');
      res = await app.inject({ method: 'GET', url: `/api/v1/offers/${'x'.repeat(101)}`, headers: partner });
      expectError(res, 404, 'resource_missing');
      // text/plain was parsed as a string (400 body_invalid) instead of 415.
      res = await app.inject({
        method: 'POST',
        url: '/admin/v1/terms',
        headers: { ...ADMIN, 'content-type': 'text/plain' },
        payload: '{}',
      });
      expectError(res, 415, 'unsupported_media_type');
      // The token endpoint answered these in the platform body, and a NUL in client_id was a 500.
      for (const [headers, payload, status] of [
        [{ 'content-type': 'text/plain' }, 'grant_type=client_credentials', 415],
        [{ 'content-type': 'application/json' }, '{"grant_type":', 400],
        [form, '__proto__=x&grant_type=client_credentials', 400],
        [form, 'grant_type=client_credentials&client_id=%00&client_secret=x', 400],
        [{ ...form, authorization: `Basic ${Buffer.from('%00:x').toString('base64')}` }, 'grant_type=client_credentials', 401],
      ] as const) {
        res = await app.inject({ method: 'POST', url: '/oauth/token', headers, payload });
        expect(res.statusCode).toBe(status);
        expect(Object.keys(res.json<object>()).sort()).toEqual(['error', 'error_description']);
      }
    }, 60_000);

    test('POST /oauth/token: junk forms, JSON bodies, duplicate parameters, Basic credentials', async () => {
      const { fuzzer, operations, fixtures } = get();
      const op = operations.find((o) => o.key === 'POST /oauth/token') as Operation;
      await oauthCases(fuzzer, op, fixtures);
      expect(fuzzer.failures.splice(0)).toEqual([]);
    }, 120_000);
  },
});

async function oauthCases(fuzzer: Fuzzer, op: Operation, fx: OffersFixtures): Promise<void> {
  const partner = `Bearer ${fx.token}`;
  const { clientId, clientSecret } = fx;
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const basic = (text: string): string => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;
  const send = (headers: Record<string, string>, payload?: string, expect?: number): Promise<void> =>
    fuzzer.probe(
      op,
      'oauth-form',
      { method: 'POST', url: '/oauth/token', headers, ...(payload === undefined ? {} : { payload }) },
      expect,
    );
  const good = `grant_type=client_credentials&client_id=${encodeURIComponent(clientId)}&client_secret=${encodeURIComponent(clientSecret)}`;

  await send(form, good, 200);
  await send({ ...form, authorization: basic(`${clientId}:${clientSecret}`) }, 'grant_type=client_credentials', 200);
  for (const body of [
    '',
    '&',
    '=',
    'grant_type',
    'grant_type=',
    'grant_type=client_credentials',
    'grant_type=client_credentials&grant_type=client_credentials',
    `${good}&client_id=${encodeURIComponent(clientId)}`,
    `${good}&client_secret=x`,
    `${good}&grant_type=password`,
    'grant_type=client_credentials&client_id=x',
    'grant_type=client_credentials&client_secret=x',
    `grant_type=client_credentials&client_id=%00&client_secret=%00`,
    `grant_type=client_credentials&client_id=${encodeURIComponent(clientId)}%00&client_secret=${encodeURIComponent(clientSecret)}`,
    `grant_type=client_credentials&client_id=${'x'.repeat(100_000)}&client_secret=y`,
    `grant_type=client_credentials&client_id=${encodeURIComponent(clientId)}&client_secret=${'y'.repeat(100_000)}`,
    'grant_type=%zz&client_id=%&client_secret=%%',
    `__proto__=x&${good}`,
    `__proto__[polluted]=yes&${good}`,
    `constructor=x&${good}`,
    `constructor[prototype][polluted]=yes&${good}`,
    `hasOwnProperty=x&toString=y&${good}`,
    'grant_type[]=client_credentials',
    `grant_type=${encodeURIComponent('client_credentials\u0000')}`,
    `grant_type=CLIENT_CREDENTIALS&client_id=${encodeURIComponent(clientId)}&client_secret=${encodeURIComponent(clientSecret)}`,
    'a=1&'.repeat(5000),
    `grant_type=${encodeURIComponent('😀')}&client_id=${encodeURIComponent('ü')}&client_secret=${encodeURIComponent('\u202e')}`,
  ]) {
    await send(form, body);
  }
  // Client authentication in HTTP Basic: malformed, both methods, unknown client.
  for (const authorization of [
    'Basic',
    'Basic ',
    'Basic !!!',
    'Basic ====',
    basic('nocolon'),
    basic(':'),
    basic(`${clientId}:`),
    basic(`:${clientSecret}`),
    basic('%zz:%zz'),
    basic(`${clientId}\u0000:${clientSecret}`),
    basic(`${clientId}:${clientSecret}\u0000`),
    basic(`${'x'.repeat(50_000)}:y`),
    `Basic ${'A'.repeat(100_000)}`,
    `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}extra`,
    partner,
    'Bearer dev-admin-key',
  ]) {
    await send({ ...form, authorization }, 'grant_type=client_credentials');
  }
  await send({ ...form, authorization: basic(`${clientId}:${clientSecret}`) }, good);
  // Not a form: JSON (valid and not), other types, none.
  for (const [contentType, body] of [
    ['application/json', JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret })],
    ['application/json', '{"grant_type":'],
    ['application/json', '{"__proto__":{"polluted":"yes"}}'],
    ['application/json', '[]'],
    ['application/json', ''],
    ['application/x-www-form-urlencoded; charset=utf-16', good],
    ['application/x-www-form-urlencoded;charset=ISO-8859-1', good],
    ['APPLICATION/X-WWW-FORM-URLENCODED', good],
    [
      'multipart/form-data; boundary=x',
      `--x\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\nclient_credentials\r\n--x--`,
    ],
    ['text/plain', good],
    ['application/xml', '<grant_type>client_credentials</grant_type>'],
  ] as const) {
    await send({ 'content-type': contentType }, body);
  }
  await send({}, good);
}
