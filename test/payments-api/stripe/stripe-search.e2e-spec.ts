/**
 * Stripe's search (issue 35, point 4) through the official `stripe` SDK's own methods,
 * unmodified: `customers.search` and `paymentIntents.search` with Stripe's query language,
 * `search_result` pages the SDK's auto-pagination walks, and a property test of random
 * queries over random rows against an in-memory reference (test/support/stripe-search-reference.ts),
 * on the real PostgreSQL.
 */
import { PrismaService } from '@app/platform';
import fc from 'fast-check';
import Stripe from 'stripe';
import {
  CUSTOMER_SEARCH_FIELDS,
  PAYMENT_INTENT_SEARCH_FIELDS,
  parseSearchQuery,
  printSearchQuery,
  type SearchClause,
  type SearchFields,
  type SearchQuery,
} from '../../../apps/payments-api/src/compat/stripe/search/stripe-search-query';
import { mulberry32 } from '../../support/random';
import { referenceSearch, type SearchRecord } from '../../support/stripe-search-reference';
import { startStripeApp, type StripeApp, stripeRejection } from './stripe-context';

interface SearchAnswer {
  object: string;
  data: Array<{ id: string; [k: string]: unknown }>;
  has_more: boolean;
  next_page: string | null;
  url: string;
  total_count?: number;
}

describe('/v1 search with the official Stripe SDK', () => {
  let s: StripeApp;
  let stripe: Stripe;
  let prisma: PrismaService;

  beforeAll(async () => {
    // the property tests send some thousand searches from one key
    s = await startStripeApp({ PAYMENTS_RATE_LIMIT_PER_MINUTE: '100000' });
    stripe = s.stripe;
    prisma = s.t.app.get(PrismaService);
  });
  afterAll(async () => {
    await s.close();
  });

  /** GET a search with a key (in-process); the query string built as the SDK builds it. */
  async function search(
    key: string,
    path: string,
    params: Record<string, string | number>,
  ): Promise<{ status: number; body: SearchAnswer }> {
    const qs = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const res = await s.t.app.inject({ method: 'GET', url: `${path}?${qs}`, headers: { authorization: `Bearer ${key}` } });
    return { status: res.statusCode, body: res.json<SearchAnswer>() };
  }

  /** Every id a query finds, page by page through next_page. */
  async function allPages(key: string, path: string, query: string, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let page: string | undefined;
    for (let i = 0; i < 200; i++) {
      const { status, body } = await search(key, path, { query, limit, ...(page === undefined ? {} : { page }) });
      expect(status).toBe(200);
      ids.push(...body.data.map((o) => o.id));
      expect(body.has_more).toBe(body.next_page !== null);
      if (!body.has_more) return ids;
      expect(body.data).toHaveLength(limit);
      page = body.next_page ?? undefined;
    }
    throw new Error('more than 200 pages');
  }

  it('customers.search: email, name~, metadata, created, negation, OR, null; newest first; autoPagingToArray across pages', async () => {
    const shop = await s.newAccount('Search shop');
    const sdk = s.sdk(shop.secretKey);
    const amy = await sdk.customers.create({ email: 'amy@rocketrides.io', name: 'Amy Rider', metadata: { tier: 'gold' } });
    const jenny = await sdk.customers.create({
      email: 'jenny.rosen@example.com',
      name: 'Jenny Rosen',
      metadata: { tier: 'silver' },
    });
    const bob = await sdk.customers.create({ name: 'Bob', metadata: { tier: 'Gold', crm_id: '42' } });
    const gone = await sdk.customers.create({ email: 'gone@example.com' });
    await sdk.customers.del(gone.id);

    const found = await sdk.customers.search({ query: 'email:"amy@rocketrides.io"' });
    expect(found).toMatchObject({ object: 'search_result', has_more: false, next_page: null, url: '/v1/customers/search' });
    expect(found.data).toEqual([amy]);
    expect(found.total_count).toBeUndefined();

    const ids = async (query: string): Promise<string[]> => (await sdk.customers.search({ query })).data.map((c) => c.id);
    expect(await ids('email:"AMY@RocketRides.io"')).toEqual([amy.id]); // exact match is case-insensitive
    expect(await ids('name~"ros"')).toEqual([jenny.id]);
    expect(await ids("metadata['tier']:'gold'")).toEqual([bob.id, amy.id]); // newest first
    expect(await ids('-metadata["tier"]:"gold"')).toEqual([jenny.id]);
    expect(await ids('email:null')).toEqual([bob.id]); // the deleted one is not searched
    expect(await ids('-email:null AND name~"ros"')).toEqual([jenny.id]);
    expect(await ids('email~"example" OR metadata["crm_id"]:"42"')).toEqual([bob.id, jenny.id]);
    expect(await ids('metadata["crm_id"]:null')).toEqual([jenny.id, amy.id]);
    expect(await ids('phone:null')).toEqual([bob.id, jenny.id, amy.id]); // no phones kept: always empty
    expect(await ids('phone~"555"')).toEqual([]);
    expect(await ids(`created>=${amy.created} created<=${bob.created}`)).toEqual([bob.id, jenny.id, amy.id]);
    expect(await ids(`created<${amy.created}`)).toEqual([]);
    expect(await ids(`created>${bob.created}`)).toEqual([]);

    const counted = await sdk.customers.search({ query: '-name:"bob"', limit: 1, expand: ['total_count'] });
    expect(counted.total_count).toBe(2); // Amy Rider, Jenny Rosen
    expect(counted.data.map((c) => c.id)).toEqual([jenny.id]);
    expect(counted.has_more).toBe(true);
    expect(counted.next_page).toMatch(/^page_/);

    // the SDK follows next_page with the same query
    const all = await sdk.customers.search({ query: '-email:"nobody@example.com"', limit: 2 }).autoPagingToArray({ limit: 100 });
    expect(all.map((c) => c.id)).toEqual([bob.id, jenny.id, amy.id]);

    // another account's key (and the live key) find none of these
    expect((await stripe.customers.search({ query: 'email:"amy@rocketrides.io"' })).data).toEqual([]);
    expect((await s.sdk(shop.liveKey).customers.search({ query: 'email:"amy@rocketrides.io"' })).data).toEqual([]);
  });

  it('takes /v1/customers/search before /v1/customers/:id (the literal route wins) and refuses bad queries with their position', async () => {
    // were `search` taken as an id, this would be 404 "No such customer: 'search'"
    const res = await s.t.app.inject({
      method: 'GET',
      url: '/v1/customers/search',
      headers: { authorization: `Bearer ${s.secretKey}` },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'parameter_missing', param: 'query' } });
    const intents = await s.t.app.inject({
      method: 'GET',
      url: '/v1/payment_intents/search',
      headers: { authorization: `Bearer ${s.secretKey}` },
    });
    expect(intents.json()).toMatchObject({ error: { code: 'parameter_missing', param: 'query' } });

    const mixed = await stripeRejection(stripe.customers.search({ query: 'email:"a@b.c" AND name:"x" OR name:"y"' }));
    expect(mixed).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(mixed).toMatchObject({ statusCode: 400, code: 'parameter_invalid', param: 'query' });
    expect(mixed.message).toBe(
      'Invalid search query at position 27: AND and OR cannot be combined in one query (nor OR with clauses separated by spaces).',
    );
    const field = await stripeRejection(stripe.customers.search({ query: 'amount>10' }));
    expect(field.message).toContain(
      "position 0: 'amount' is not a searchable field here (searchable: created, email, metadata, name, phone)",
    );
    const unquoted = await stripeRejection(stripe.paymentIntents.search({ query: 'status:succeeded' }));
    expect(unquoted.message).toContain('position 7: string values must be quoted');
    const unknown = await stripeRejection(
      stripe.customers.search({ query: 'name:"x"', starting_after: 'cus_1' } as Stripe.CustomerSearchParams),
    );
    expect(unknown).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'starting_after' });
    const limit = await stripeRejection(stripe.customers.search({ query: 'name:"x"', limit: 101 }));
    expect(limit).toMatchObject({ statusCode: 400, param: 'limit' });
    const expand = await stripeRejection(stripe.customers.search({ query: 'name:"x"', expand: ['data.default_source'] }));
    expect(expand).toMatchObject({ statusCode: 400, param: 'expand' });
  });

  it('refuses a page of another query, and a page that is not one; a restricted key needs read on the resource', async () => {
    const shop = await s.newAccount('Pages shop');
    const sdk = s.sdk(shop.secretKey);
    for (let i = 0; i < 3; i++) await sdk.customers.create({ name: `Page ${i}` });
    const first = await sdk.customers.search({ query: 'name~"page"', limit: 1 });
    expect(first.next_page).not.toBeNull();
    const other = await stripeRejection(sdk.customers.search({ query: 'name~"pag"', limit: 1, page: first.next_page ?? '' }));
    expect(other).toMatchObject({ statusCode: 400, code: 'parameter_invalid', param: 'page' });
    expect(other.message).toContain('it belongs to another query');
    const forged = await stripeRejection(sdk.customers.search({ query: 'name~"page"', page: 'page_bm90IGpzb24' }));
    expect(forged).toMatchObject({ statusCode: 400, param: 'page' });
    const second = await sdk.customers.search({ query: 'name~"page"', limit: 1, page: first.next_page ?? '' });
    expect(second.data[0]?.name).toBe('Page 1');

    const key = await s.t.app.inject({
      method: 'POST',
      url: '/v2/api-keys',
      headers: { authorization: `Bearer ${shop.secretKey}` },
      payload: { name: 'customers only', mode: 'test', permissions: { customers: 'read' } },
    });
    expect(key.statusCode).toBe(201);
    const rk = s.sdk(key.json<{ secret: string }>().secret);
    await expect(rk.customers.search({ query: 'name~"page"' })).resolves.toMatchObject({ object: 'search_result' });
    const denied = await stripeRejection(rk.paymentIntents.search({ query: 'amount>0' }));
    expect(denied).toBeInstanceOf(Stripe.errors.StripePermissionError);
  });

  /** Intents (and their latest payments) written as the intents' service writes them: the routes that make them are another module's. */
  async function insertIntent(
    accountId: string,
    i: {
      id: string;
      amount: number;
      currency: string;
      customerId: string | null;
      own: string;
      latest: string | null;
      metadata: Record<string, string>;
      createdAt: Date;
      mode?: 'test' | 'live';
    },
  ): Promise<void> {
    const mode = i.mode ?? 'test';
    await prisma.paymentIntent.create({
      data: {
        id: i.id,
        accountId,
        mode,
        customerId: i.customerId,
        amount: i.amount,
        currency: i.currency,
        status: i.own,
        metadata: i.metadata,
        createdAt: i.createdAt,
      },
    });
    if (i.latest !== null) {
      const paymentId = `pay_${i.id.slice(3)}`;
      await prisma.payment.create({
        data: {
          id: paymentId,
          accountId,
          mode,
          customerId: i.customerId,
          amount: i.amount,
          currency: i.currency,
          status: i.latest,
          paymentMethod: 'pm_card_visa',
          paymentIntentId: i.id,
          amountReceived: i.latest === 'succeeded' ? i.amount : 0,
          amountCapturable: i.latest === 'requires_capture' ? i.amount : 0,
          createdAt: i.createdAt,
        },
      });
      await prisma.paymentIntent.update({ where: { id: i.id }, data: { latestPaymentId: paymentId } });
    }
  }

  it('paymentIntents.search: the status /v1 shows (the latest payment unless it failed), amount, currency, customer, metadata; expand data.customer and total_count', async () => {
    const shop = await s.newAccount('Intents shop');
    const sdk = s.sdk(shop.secretKey);
    const cus = await sdk.customers.create({ email: 'payer@example.com' });
    const t0 = Date.UTC(2026, 10, 1, 12, 0, 0);
    const at = (sec: number): Date => new Date(t0 + sec * 1000);
    await insertIntent(shop.id, {
      id: 'pi_srch_a',
      amount: 1000,
      currency: 'usd',
      customerId: cus.id,
      own: 'requires_confirmation',
      latest: 'succeeded',
      metadata: { order_id: '6735' },
      createdAt: at(0),
    });
    await insertIntent(shop.id, {
      id: 'pi_srch_b',
      amount: 2500,
      currency: 'eur',
      customerId: null,
      own: 'requires_payment_method',
      latest: 'failed',
      metadata: {},
      createdAt: at(1),
    });
    await insertIntent(shop.id, {
      id: 'pi_srch_c',
      amount: 500,
      currency: 'usd',
      customerId: cus.id,
      own: 'requires_confirmation',
      latest: 'requires_capture',
      metadata: { order_id: '6736' },
      createdAt: at(2),
    });
    await insertIntent(shop.id, {
      id: 'pi_srch_d',
      amount: 1000,
      currency: 'usd',
      customerId: null,
      own: 'requires_payment_method',
      latest: null,
      metadata: {},
      createdAt: at(3),
    });
    await insertIntent(shop.id, {
      id: 'pi_srch_e',
      amount: 1000,
      currency: 'usd',
      customerId: null,
      own: 'requires_payment_method',
      latest: null,
      metadata: {},
      createdAt: at(3),
      mode: 'live',
    });

    const ids = async (query: string): Promise<string[]> => (await sdk.paymentIntents.search({ query })).data.map((p) => p.id);
    expect(await ids('status:"succeeded"')).toEqual(['pi_srch_a']);
    // a declined confirmation: a failed payment, the intent back to requires_payment_method
    expect(await ids('status:"requires_payment_method"')).toEqual(['pi_srch_d', 'pi_srch_b']);
    expect(await ids('status:"failed"')).toEqual([]);
    expect(await ids("status:'requires_capture' OR status:'succeeded'")).toEqual(['pi_srch_c', 'pi_srch_a']);
    expect(await ids('amount>=1000 AND -currency:"usd"')).toEqual(['pi_srch_b']);
    expect(await ids('currency:"USD" amount<1000')).toEqual(['pi_srch_c']);
    expect(await ids(`customer:"${cus.id}"`)).toEqual(['pi_srch_c', 'pi_srch_a']);
    expect(await ids('customer:null')).toEqual(['pi_srch_d', 'pi_srch_b']);
    expect(await ids("metadata['order_id']:'6735'")).toEqual(['pi_srch_a']);
    expect(await ids(`created>${Math.floor(t0 / 1000) + 1}`)).toEqual(['pi_srch_d', 'pi_srch_c']);
    expect(await ids(`created:${Math.floor(t0 / 1000) + 3}`)).toEqual(['pi_srch_d']); // the live one is not a test object

    const found = await sdk.paymentIntents.search({ query: 'status:"succeeded"', expand: ['data.customer', 'total_count'] });
    expect(found.total_count).toBe(1);
    expect(found.url).toBe('/v1/payment_intents/search');
    expect(found.data[0]).toMatchObject({
      id: 'pi_srch_a',
      object: 'payment_intent',
      amount: 1000,
      amount_received: 1000,
      status: 'succeeded',
    });
    expect(found.data[0]?.customer).toEqual(cus);

    const walked = await sdk.paymentIntents.search({ query: 'amount>0', limit: 1 }).autoPagingToArray({ limit: 100 });
    expect(walked.map((p) => p.id)).toEqual(['pi_srch_d', 'pi_srch_c', 'pi_srch_b', 'pi_srch_a']);
  });

  // ---- random queries over random rows, the routes' SQL against test/support/stripe-search-reference.ts

  const WORDS = [
    'amy@ex.io',
    'AMY@EX.IO',
    'bob@shop.io',
    'jen rosen',
    'Jenny',
    'Éva',
    'gold',
    'Gold',
    'pro',
    'usd',
    'eur',
    'x"y',
    "o'k",
  ];
  const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

  /** A clause the field set allows, with values from the rows' vocabulary (so clauses hit). */
  function clauseArb(fields: SearchFields, numbers: Record<string, readonly number[]>): fc.Arbitrary<SearchClause> {
    const text = fc.oneof(
      fc.constantFrom(...WORDS),
      fc.constantFrom(...WORDS).map((w) => w.slice(1, 4)),
    );
    return fc.oneof(
      ...Object.entries(fields).map(([field, spec]): fc.Arbitrary<SearchClause> => {
        const negated = fc.boolean();
        if (spec.type === 'number') {
          return fc.record({
            field: fc.constant(field),
            negated,
            operator: fc.constantFrom(':' as const, '>' as const, '>=' as const, '<' as const, '<=' as const),
            value: fc.constantFrom(...(numbers[field] ?? [0])).map((value) => ({ kind: 'number' as const, value })),
          });
        }
        const value = fc.oneof(
          { weight: 4, arbitrary: text.map((v) => ({ kind: 'string' as const, value: v })) },
          { weight: 1, arbitrary: fc.constant({ kind: 'null' as const }) },
        );
        if (spec.type === 'metadata') {
          return fc.record({
            field: fc.constant(field),
            key: fc.constantFrom('tier', 'plan'),
            negated,
            operator: fc.constant(':' as const),
            value,
          });
        }
        const exact = fc.record({ field: fc.constant(field), negated, operator: fc.constant(':' as const), value });
        if (!spec.substring) return exact;
        const sub = fc.record({
          field: fc.constant(field),
          negated,
          operator: fc.constant('~' as const),
          value: text.filter((v) => v.length >= 3).map((v) => ({ kind: 'string' as const, value: v })),
        });
        return fc.oneof(exact, sub);
      }),
    );
  }

  const queryArb = (fields: SearchFields, numbers: Record<string, readonly number[]>): fc.Arbitrary<SearchQuery> =>
    fc
      .record({
        combinator: fc.constantFrom('AND' as const, 'OR' as const),
        clauses: fc.array(clauseArb(fields, numbers), { minLength: 1, maxLength: 4 }),
      })
      .map((q) => (q.clauses.length === 1 ? { ...q, combinator: 'AND' as const } : q));

  it('random customer queries find what the reference finds (newest first), in one page and page by page', async () => {
    const shop = await s.newAccount('Random customers');
    const rand = mulberry32(3515);
    const base = Date.UTC(2026, 9, 1, 0, 0, 0);
    const records: SearchRecord[] = [];
    for (let i = 0; i < 40; i++) {
      // a few seconds apart, some within one second (ms apart), so created's second boundaries are tested
      const createdMs = base + Math.floor(rand() * 6) * 1000 + Math.floor(rand() * 1000);
      const email = rand() < 0.25 ? null : pick(rand, WORDS);
      const name = rand() < 0.25 ? null : pick(rand, WORDS);
      const metadata: Record<string, string> = {};
      if (rand() < 0.6) metadata.tier = pick(rand, WORDS);
      if (rand() < 0.3) metadata.plan = pick(rand, WORDS);
      const id = `cus_rnd${String(i).padStart(3, '0')}`;
      await prisma.customer.create({
        data: { id, accountId: shop.id, mode: 'test', email, name, metadata, createdAt: new Date(createdMs) },
      });
      records.push({ id, createdMs, fields: { email, name, phone: null }, metadata });
    }
    // a deleted and a live customer that match everything they can: never found
    await prisma.customer.create({
      data: {
        id: 'cus_rnd_deleted',
        accountId: shop.id,
        mode: 'test',
        email: 'amy@ex.io',
        deletedAt: new Date(),
        createdAt: new Date(base),
      },
    });
    await prisma.customer.create({
      data: { id: 'cus_rnd_live', accountId: shop.id, mode: 'live', email: 'amy@ex.io', createdAt: new Date(base) },
    });
    const seconds = [...new Set(records.map((r) => Math.floor(r.createdMs / 1000)))];
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(
        queryArb(CUSTOMER_SEARCH_FIELDS, { created: [...seconds, seconds[0] - 1] }),
        fc.integer({ min: 1, max: 9 }),
        async (query, limit) => {
          const text = printSearchQuery(query);
          expect(parseSearchQuery(text, CUSTOMER_SEARCH_FIELDS)).toEqual(query);
          const expected = referenceSearch(records, query);
          if (expected.length > 0) nonEmpty++;
          const { status, body } = await search(shop.secretKey, '/v1/customers/search', { query: text, limit: 100 });
          expect(status).toBe(200);
          expect(body.data.map((c) => c.id)).toEqual(expected);
          expect(await allPages(shop.secretKey, '/v1/customers/search', text, limit)).toEqual(expected);
        },
      ),
      { numRuns: 120, seed: 35 },
    );
    expect(nonEmpty).toBeGreaterThan(30); // the queries are not all empty
  });

  it('random payment intent queries (status derived from the latest payment) find what the reference finds', async () => {
    const shop = await s.newAccount('Random intents');
    const customers = [await s.sdk(shop.secretKey).customers.create({}), await s.sdk(shop.secretKey).customers.create({})].map(
      (c) => c.id,
    );
    const rand = mulberry32(3535);
    const base = Date.UTC(2026, 9, 2, 0, 0, 0);
    const amounts = [500, 1000, 1500, 2000];
    const records: SearchRecord[] = [];
    for (let i = 0; i < 40; i++) {
      const createdMs = base + Math.floor(rand() * 6) * 1000 + Math.floor(rand() * 1000);
      const own = pick(rand, ['requires_payment_method', 'requires_confirmation', 'canceled']);
      const latest = rand() < 0.4 ? null : pick(rand, ['succeeded', 'requires_capture', 'canceled', 'failed']);
      const status = latest !== null && latest !== 'failed' ? latest : own;
      const customer = rand() < 0.3 ? null : pick(rand, customers);
      const metadata: Record<string, string> = {};
      if (rand() < 0.5) metadata.tier = pick(rand, WORDS);
      const amount = pick(rand, amounts);
      const currency = pick(rand, ['usd', 'eur']);
      const id = `pi_rnd${String(i).padStart(3, '0')}`;
      await insertIntent(shop.id, {
        id,
        amount,
        currency,
        customerId: customer,
        own,
        latest,
        metadata,
        createdAt: new Date(createdMs),
      });
      records.push({ id, createdMs, fields: { amount, currency, customer, status }, metadata });
    }
    const statuses = ['succeeded', 'requires_capture', 'canceled', 'requires_payment_method', 'requires_confirmation', 'failed'];
    const fields: SearchFields = PAYMENT_INTENT_SEARCH_FIELDS;
    const seconds = [...new Set(records.map((r) => Math.floor(r.createdMs / 1000)))];
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(
        queryArb(fields, { amount: [...amounts, 999], created: seconds }),
        fc.array(fc.constantFrom(...statuses, ...customers), { maxLength: 2 }),
        async (query, extra) => {
          // clauses on the intents' own vocabulary (statuses, customer ids) besides the shared words
          const more: SearchClause[] = extra.map((v, i) => ({
            field: v.startsWith('cus_') ? 'customer' : 'status',
            negated: i % 2 === 1,
            operator: ':',
            value: { kind: 'string', value: v },
          }));
          const all: SearchQuery = { ...query, clauses: [...query.clauses, ...more] };
          const q = all.clauses.length > 1 ? all : { ...all, combinator: 'AND' as const };
          const text = printSearchQuery(q);
          const expected = referenceSearch(records, parseSearchQuery(text, fields));
          if (expected.length > 0) nonEmpty++;
          const { status, body } = await search(shop.secretKey, '/v1/payment_intents/search', { query: text, limit: 100 });
          expect(status).toBe(200);
          expect(body.data.map((p) => p.id)).toEqual(expected);
          for (const found of body.data) expect(found.status).toBe(records.find((r) => r.id === found.id)?.fields.status);
        },
      ),
      { numRuns: 120, seed: 35 },
    );
    expect(nonEmpty).toBeGreaterThan(30);
  });
});
