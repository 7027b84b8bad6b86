/**
 * Idempotency-Keys are scoped by the caller's tenant AND mode, not by its credential (platform
 * contract, third round, "Credentials and sessions"; issue 31): a payments console session in
 * `Console-Mode: live` never replays a test-mode answer, and a retry sent with a newly rolled
 * key of the same account and mode replays instead of charging twice. offers-api's OAuth
 * clients of one partner share the partner's scope; vector-api's tokens their project's.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { PartnerAuthenticator } from '../../apps/offers-api/src/oauth/partner.authenticator';
import type { PartnerPrincipal } from '../../apps/offers-api/src/oauth/partner.principal';
import { PaymentsKeyAuthenticator } from '../../apps/payments-api/src/accounts/payments-key.authenticator';
import type { PaymentsKeyPrincipal } from '../../apps/payments-api/src/accounts/payments-key.principal';
import { VectorTokenAuthenticator } from '../../apps/vector-api/src/tokens/vector-token.authenticator';
import { ADMIN as OFFERS_ADMIN, type OfferJson, OffersContext, type Partner, startOffers } from '../offers-api/fixtures';
import { type Account, newAccount, newCustomer, type PaymentsApp, startPayments } from '../payments-api/payments-context';
import { consoleSession, newConsoleTenant } from '../support/console';
import { sql } from './support';

type Headers = Record<string, string>;

describe('payments-api: Idempotency-Keys per account and mode', () => {
  let t: PaymentsApp;

  beforeAll(async () => {
    t = await startPayments();
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (url: string, headers: Headers, key: string, payload: object): Promise<LightMyRequestResponse> =>
    t.app.inject({ method: 'POST', url, headers: { ...headers, 'idempotency-key': key }, payload });

  const countOf = async (table: 'payments' | 'customers', accountId: string): Promise<number> => {
    const rows = await sql<{ n: number }>(t.db.url, `SELECT count(*)::int AS n FROM ${table} WHERE account_id = $1`, [accountId]);
    return rows[0]?.n ?? -1;
  };

  it('a console session in Console-Mode: live never replays its test-mode payment or customer (the finding)', async () => {
    const account = await newConsoleTenant(t.app, 'payments');
    const session = (await consoleSession(t.app, 'payments', account)).headers;
    const live = { ...session, 'console-mode': 'live' };

    const customer = await post('/v2/customers', session, 'cus-k1', { email: 'jenny@example.com' });
    expect(customer.statusCode).toBe(201);
    const liveCustomer = await post('/v2/customers', live, 'cus-k1', { email: 'jenny@example.com' });
    expect([liveCustomer.statusCode, liveCustomer.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect(liveCustomer.json<{ livemode: boolean; id: string }>()).toMatchObject({ livemode: true });
    expect(liveCustomer.json<{ id: string }>().id).not.toBe(customer.json<{ id: string }>().id);

    const testCustomerId = customer.json<{ id: string }>().id;
    const body = { amount: 1000, currency: 'gbp', customer_id: testCustomerId };
    const payment = await post('/v2/payments', session, 'pay-k1', body);
    expect([payment.statusCode, payment.json<{ livemode: boolean }>().livemode]).toEqual([201, false]);
    const livePayment = await post('/v2/payments', live, 'pay-k1', body);
    // live mode: a new request (the test customer is unknown there), never the test payment
    expect(livePayment.headers['idempotent-replayed']).toBeUndefined();
    expect(livePayment.statusCode).not.toBe(201);
    expect(livePayment.body).not.toContain(payment.json<{ id: string }>().id);

    // the test mode of the same session does replay, so the checks above can fail
    const again = await post('/v2/payments', session, 'pay-k1', body);
    expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([201, 'true', payment.body]);
  });

  it('a retry with a newly rolled key of the same account and mode replays: one charge, not two', async () => {
    const acct: Account = await newAccount(t, 'Rolled');
    const customer = await newCustomer(t, acct.test);
    const key = randomUUID();
    const body = { amount: 2500, currency: 'gbp', customer_id: customer };
    const first = await post('/v2/payments', acct.test, key, body);
    expect(first.statusCode).toBe(201);

    // the key is rolled (at once: the old key no longer works) before the client retries
    const rolled = await t.app.inject({
      method: 'POST',
      url: '/v2/api-keys/roll',
      headers: acct.test,
      payload: { mode: 'test' },
    });
    expect(rolled.statusCode).toBe(201);
    const newKey = { authorization: `Bearer ${rolled.json<{ secret: string }>().secret}` };
    const retry = await post('/v2/payments', newKey, key, body);
    expect([retry.statusCode, retry.headers['idempotent-replayed'], retry.body]).toEqual([201, 'true', first.body]);
    expect(await countOf('payments', acct.id)).toBe(1);

    // a restricted key and a console session of the same account and mode share the scope too
    const console = (await consoleSession(t.app, 'payments', acct.id)).headers;
    const fromConsole = await post('/v2/payments', console, key, body);
    expect([fromConsole.headers['idempotent-replayed'], fromConsole.body]).toEqual(['true', first.body]);
    expect(await countOf('payments', acct.id)).toBe(1);
  });

  it('the live key of the same account is another scope: same key, same body → a new live customer', async () => {
    const acct = await newAccount(t, 'Modes');
    const key = randomUUID();
    const test = await post('/v2/customers', acct.test, key, { email: 'a@example.com' });
    const live = await post('/v2/customers', acct.live, key, { email: 'a@example.com' });
    expect([test.statusCode, live.statusCode, live.headers['idempotent-replayed']]).toEqual([201, 201, undefined]);
    expect(await countOf('customers', acct.id)).toBe(2);
  });

  it('/v1 (form bodies, Bearer or Basic): scoped by account and mode too; a /v2 key is another request there', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const basic = (auth: Headers): Headers => ({
      authorization: `Basic ${Buffer.from(`${(auth['authorization'] ?? '').replace(/^Bearer /, '')}:`).toString('base64')}`,
    });
    const postV1 = (auth: Headers, key: string, payload: string): Promise<LightMyRequestResponse> =>
      t.app.inject({ method: 'POST', url: '/v1/customers', headers: { ...auth, ...form, 'idempotency-key': key }, payload });
    const victim = await newAccount(t, 'V1 victim');
    const other = await newAccount(t, 'V1 other');
    const key = randomUUID();
    const body = 'email=v1%40example.com&metadata[order]=1';
    const first = await postV1(victim.test, key, body);
    expect(first.statusCode).toBe(200);
    // the same account and mode replays, whichever way the key is presented
    const replay = await postV1(basic(victim.test), key, body);
    expect([replay.statusCode, replay.headers['idempotent-replayed'], replay.body]).toEqual([200, 'true', first.body]);
    // another account, the live mode of the same account: a new customer, never the victim's answer nor a 400
    for (const [who, auth] of [
      ['another account, test', other.test],
      ['another account, live (Basic)', basic(other.live)],
      ['the same account, live', victim.live],
    ] as const) {
      const res = await postV1(auth, key, body);
      expect([who, res.statusCode, res.headers['idempotent-replayed']]).toEqual([who, 200, undefined]);
      expect([who, res.json<{ id: string }>().id]).not.toEqual([who, first.json<{ id: string }>().id]);
      expect(res.body).not.toContain(victim.id);
    }
    expect(await countOf('customers', victim.id)).toBe(2);
    expect(await countOf('customers', other.id)).toBe(2);
    // a key first used on /v2 by the same account and mode, same fields: another request (400), not a replay
    const v2Key = randomUUID();
    expect((await post('/v2/customers', victim.test, v2Key, { email: 'v2@example.com' })).statusCode).toBe(201);
    const crossed = await postV1(victim.test, v2Key, 'email=v2%40example.com');
    expect([crossed.statusCode, crossed.json<{ error: { type: string } }>().error.type]).toEqual([400, 'idempotency_error']);
    expect(await countOf('customers', victim.id)).toBe(3);
  });

  it('stores the scope as payments:<account>:<mode>, never a credential id', async () => {
    const acct = await newAccount(t, 'Stored');
    const key = randomUUID();
    expect((await post('/v2/customers', acct.live, key, { email: 'b@example.com' })).statusCode).toBe(201);
    const rows = await sql<{ scope: string }>(t.db.url, 'SELECT scope FROM idempotency_keys WHERE key = $1', [key]);
    expect(rows).toEqual([{ scope: `payments:${acct.id}:live` }]);
  });
});

describe('offers-api: the OAuth clients and console sessions of one partner share its Idempotency-Keys', () => {
  let ctx: OffersContext;
  let alpha: Partner;
  let beta: Partner;
  let offer: OfferJson;

  beforeAll(async () => {
    ctx = new OffersContext(await startOffers());
    alpha = await ctx.newPartner('Alpha Wealth', 'enterprise');
    beta = await ctx.newPartner('Beta Shares', 'enterprise');
    await ctx.publishTerms('idem-1');
    offer = await ctx.newOffer({ ticker: 'IDS' });
    await ctx.share(alpha, offer.id);
    await ctx.share(beta, offer.id);
  });
  afterAll(async () => {
    await ctx.t.close();
  });

  const body = (investor: string): Record<string, unknown> => ({
    investor_id: investor,
    amount: 100_000,
    currency: offer.currency,
    terms_accepted: true,
    terms_version: 'idem-1',
  });

  /** Another OAuth client of the partner, with its own access token. */
  async function secondClient(p: Partner): Promise<Headers> {
    const c = await ctx.inject({ method: 'POST', url: `/admin/v1/partners/${p.id}/clients`, headers: OFFERS_ADMIN });
    ctx.expectStatus(c, 201);
    const { client_id, client_secret } = c.json<{ client_id: string; client_secret: string }>();
    const tok = await ctx.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }).toString(),
    });
    ctx.expectStatus(tok, 200);
    return { authorization: `Bearer ${tok.json<{ access_token: string }>().access_token}` };
  }

  it('a retry through another client (or the console) of the partner replays; another partner runs its own', async () => {
    const key = randomUUID();
    const first = await ctx.indicate(alpha, offer.id, body('inv_idem_1'), { 'idempotency-key': key });
    ctx.expectStatus(first, 201);
    const other = await secondClient(alpha);
    const retry = await ctx.inject({
      method: 'POST',
      url: `/api/v1/offers/${offer.id}/indications`,
      headers: { ...other, 'idempotency-key': key },
      payload: body('inv_idem_1'),
    });
    expect([retry.statusCode, retry.headers['idempotent-replayed'], retry.body]).toEqual([201, 'true', first.body]);
    const session = (await consoleSession(ctx.t.app, 'offers', alpha.id)).headers;
    const fromConsole = await ctx.inject({
      method: 'POST',
      url: `/api/v1/offers/${offer.id}/indications`,
      headers: { ...session, 'idempotency-key': key },
      payload: body('inv_idem_1'),
    });
    expect([fromConsole.headers['idempotent-replayed'], fromConsole.body]).toEqual(['true', first.body]);

    const betaRes = await ctx.indicate(beta, offer.id, body('inv_idem_1'), { 'idempotency-key': key });
    expect([betaRes.statusCode, betaRes.headers['idempotent-replayed']]).toEqual([201, undefined]);
  });
});

describe('every authenticator scopes Idempotency-Keys by tenant (and mode), credential and console alike', () => {
  // idempotencyScopeOf reads only the principal: the prototypes' methods are enough here.
  const payments = Object.create(PaymentsKeyAuthenticator.prototype) as PaymentsKeyAuthenticator;
  const offers = Object.create(PartnerAuthenticator.prototype) as PartnerAuthenticator;
  const vector = Object.create(VectorTokenAuthenticator.prototype) as VectorTokenAuthenticator;

  const key = (over: Partial<PaymentsKeyPrincipal>): PaymentsKeyPrincipal => ({
    kind: 'payments_key',
    accountId: 'acct_1',
    mode: 'test',
    keyId: 'key_1',
    via: 'key',
    keyKind: 'secret',
    permissions: null,
    expiresAt: null,
    last4: null,
    ...over,
  });
  const partner = (over: Partial<PartnerPrincipal>): PartnerPrincipal => ({
    kind: 'partner',
    partnerId: 'ptn_1',
    clientId: 'cli_1',
    tier: 'growth',
    secretVersion: 1,
    ...over,
  });

  it('payments: per account and mode, whatever the key or session', () => {
    const scope = payments.idempotencyScopeOf(key({}));
    expect(payments.idempotencyScopeOf(key({ keyId: 'key_2', keyKind: 'restricted' }))).toBe(scope);
    expect(payments.idempotencyScopeOf(key({ keyId: 'cs_session', via: 'console' }))).toBe(scope);
    expect(payments.idempotencyScopeOf(key({ mode: 'live' }))).not.toBe(scope);
    expect(payments.idempotencyScopeOf(key({ accountId: 'acct_2' }))).not.toBe(scope);
  });

  it('offers: per partner; vector: per project', () => {
    expect(offers.idempotencyScopeOf(partner({ clientId: 'cli_2' }))).toBe(offers.idempotencyScopeOf(partner({})));
    expect(offers.idempotencyScopeOf(partner({ partnerId: 'ptn_2' }))).not.toBe(offers.idempotencyScopeOf(partner({})));
    const token = { kind: 'vector_token', tokenId: 'tok_1', projectId: 'prj_1' } as const;
    expect(vector.idempotencyScopeOf({ ...token, tokenId: 'cs_session' })).toBe(vector.idempotencyScopeOf(token));
    expect(vector.idempotencyScopeOf({ ...token, projectId: 'prj_2' })).not.toBe(vector.idempotencyScopeOf(token));
  });
});
