/**
 * Stripe's /v1 customers through the official `stripe` SDK's own methods, unmodified (issue 35),
 * and the wire protocol every /v1 route shares: form bodies, Basic and Bearer keys, Stripe's
 * error bodies and classes, Stripe-Version, Request-Id, Idempotency-Key, lists and pagination.
 */
import { PrismaService } from '@app/platform';
import Stripe from 'stripe';
import { startStripeApp, type StripeApp, stripeRejection } from './stripe-context';

describe('/v1/customers with the official Stripe SDK', () => {
  let s: StripeApp;
  let stripe: Stripe;

  beforeAll(async () => {
    s = await startStripeApp();
    stripe = s.stripe;
  });
  afterAll(async () => {
    await s.close();
  });

  const url = (path: string): string => `http://127.0.0.1:${s.port}${path}`;

  it('creates, retrieves, updates, lists and deletes a customer; /v2 sees the same customer', async () => {
    const created = await stripe.customers.create({
      email: 'jenny@example.com',
      name: 'Jenny Rosen',
      description: 'first',
      metadata: { crm_id: '42', tier: 'gold' },
    });
    expect(created).toMatchObject({
      object: 'customer',
      email: 'jenny@example.com',
      name: 'Jenny Rosen',
      description: 'first',
      livemode: false,
      metadata: { crm_id: '42', tier: 'gold' },
    });
    expect(created.id).toMatch(/^cus_/);
    expect(Number.isInteger(created.created)).toBe(true);
    expect(Math.abs(created.created - Date.now() / 1000)).toBeLessThan(600);

    const fetched = await stripe.customers.retrieve(created.id);
    expect(fetched).toEqual(created);

    // metadata merges; "" removes a key; "" unsets a field
    const updated = await stripe.customers.update(created.id, { metadata: { tier: '', plan: 'pro' }, description: '' });
    expect(updated.metadata).toEqual({ crm_id: '42', plan: 'pro' });
    expect(updated.description).toBeNull();
    expect(updated.email).toBe('jenny@example.com');

    const v2 = await s.t.app.inject({
      method: 'GET',
      url: `/v2/customers/${created.id}`,
      headers: { authorization: `Bearer ${s.secretKey}` },
    });
    expect(v2.statusCode).toBe(200);
    expect(v2.json()).toMatchObject({ id: created.id, object: 'customer', metadata: { crm_id: '42', plan: 'pro' } });

    const deleted = await stripe.customers.del(created.id);
    expect(deleted).toEqual({ id: created.id, object: 'customer', deleted: true });
    const after = await stripe.customers.retrieve(created.id);
    expect(after).toEqual({ id: created.id, object: 'customer', deleted: true });
    const again = await stripeRejection(stripe.customers.del(created.id));
    expect(again).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(again.statusCode).toBe(404);
  });

  it('writes customer.created, customer.updated (with previous_attributes) and customer.deleted once each, /v1 only', async () => {
    const c = await stripe.customers.create({ email: 'events@example.com' });
    await stripe.customers.update(c.id, { name: 'Ev' });
    await stripe.customers.update(c.id, { name: 'Ev' }); // no change: no event
    await stripe.customers.del(c.id);
    const prisma = s.t.app.get(PrismaService);
    const rows = await prisma.webhookEvent.findMany({
      where: { ownerId: `${s.accountId}:test`, dialectEvent: { startsWith: 'customer.' } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    const mine = rows.filter((r) => (r.dialectData as { object: { id: string } }).object.id === c.id);
    expect(mine.map((r) => r.dialectEvent)).toEqual(['customer.created', 'customer.updated', 'customer.deleted']);
    expect(mine.every((r) => r.event === null && r.data === null)).toBe(true);
    expect((mine[1]?.dialectData as { previous_attributes: unknown }).previous_attributes).toEqual({ name: null });
  });

  it('pages with limit, starting_after and ending_before; autoPagingToArray walks every page', async () => {
    const account = await s.newAccount('Pager');
    const sdk = s.sdk(account.secretKey);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await sdk.customers.create({ email: `p${i}@example.com` })).id);
    const newestFirst = [...ids].reverse();
    const first = await sdk.customers.list({ limit: 3 });
    expect(first).toMatchObject({ object: 'list', has_more: true, url: '/v1/customers' });
    expect(first.data.map((c) => c.id)).toEqual(newestFirst.slice(0, 3));
    const second = await sdk.customers.list({ limit: 3, starting_after: first.data[2]?.id ?? '' });
    expect(second.data.map((c) => c.id)).toEqual(newestFirst.slice(3, 6));
    const back = await sdk.customers.list({ limit: 3, ending_before: second.data[0]?.id ?? '' });
    expect(back.data.map((c) => c.id)).toEqual(newestFirst.slice(0, 3));
    const all = await sdk.customers.list({ limit: 2 }).autoPagingToArray({ limit: 100 });
    expect(all.map((c) => c.id)).toEqual(newestFirst);
    const byEmail = await sdk.customers.list({ email: 'p4@example.com' });
    expect(byEmail.data.map((c) => c.id)).toEqual([ids[4]]);
    const created = first.data[0]?.created ?? 0;
    const recent = await sdk.customers.list({ created: { gte: created }, limit: 100 });
    expect(recent.data.length).toBeGreaterThan(0);
    expect(recent.data.every((c) => c.created >= created)).toBe(true);
    const none = await sdk.customers.list({ created: { gt: created + 3600 } });
    expect(none.data).toEqual([]);
  });

  it("answers Stripe's error classes: unknown parameter, bad value, missing object, bad key, restricted key", async () => {
    const unknown = await stripeRejection(stripe.customers.create({ phone_number: '1' } as Stripe.CustomerCreateParams));
    expect(unknown).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(unknown).toMatchObject({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      param: 'phone_number',
      code: 'parameter_unknown',
    });
    expect(unknown.message).toBe('Received unknown parameter: phone_number');

    const tooMany = await stripeRejection(
      stripe.customers.create({ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }),
    );
    expect(tooMany).toMatchObject({ statusCode: 400, param: 'metadata' });

    const missing = await stripeRejection(stripe.customers.retrieve('cus_doesnotexist'));
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing', param: 'id' });
    expect(missing.message).toBe("No such customer: 'cus_doesnotexist'");
    expect(missing.requestId).toMatch(/^req_/);

    const badKey = await stripeRejection(s.sdk('sk_test_not_a_real_key_0000000000').customers.list());
    expect(badKey).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(badKey.statusCode).toBe(401);

    const cursor = await stripeRejection(stripe.customers.list({ starting_after: 'cus_nope' }));
    expect(cursor).toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'starting_after' });

    const restricted = await s.t.app.inject({
      method: 'POST',
      url: '/v2/api-keys',
      headers: { authorization: `Bearer ${s.secretKey}` },
      payload: { name: 'read only', mode: 'test', permissions: { customers: 'read' } },
    });
    expect(restricted.statusCode).toBe(201);
    const rk = s.sdk(restricted.json<{ secret: string }>().secret);
    await expect(rk.customers.list({ limit: 1 })).resolves.toMatchObject({ object: 'list' });
    const denied = await stripeRejection(rk.customers.create({ email: 'no@example.com' }));
    expect(denied).toBeInstanceOf(Stripe.errors.StripePermissionError);
    expect(denied.statusCode).toBe(403);
  });

  it('keeps test and live apart: a live key does not see a test customer', async () => {
    const c = await stripe.customers.create({ email: 'test-only@example.com' });
    const live = s.sdk(s.liveKey);
    const err = await stripeRejection(live.customers.retrieve(c.id));
    expect(err.statusCode).toBe(404);
    const other = await s.newAccount('Other shop');
    const foreign = await stripeRejection(s.sdk(other.secretKey).customers.update(c.id, { name: 'x' }));
    expect(foreign).toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it('replays an Idempotency-Key and refuses it with another body (StripeIdempotencyError)', async () => {
    const key = `cust-${Date.now()}`;
    const first = await stripe.customers.create({ email: 'idem@example.com' }, { idempotencyKey: key });
    const second = await stripe.customers.create({ email: 'idem@example.com' }, { idempotencyKey: key });
    expect(second).toEqual(first);
    const other = await stripeRejection(stripe.customers.create({ email: 'other@example.com' }, { idempotencyKey: key }));
    expect(other).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(other).toMatchObject({ statusCode: 400, code: 'idempotency_key_reused' });
    const list = await stripe.customers.list({ email: 'idem@example.com', limit: 100 });
    expect(list.data.filter((c) => c.id === first.id)).toHaveLength(1);
    expect(list.data).toHaveLength(1);
  });

  it('takes a form body with brackets and Basic credentials (curl -u sk_test_…:), echoes Stripe-Version, sends Request-Id', async () => {
    const basic = `Basic ${Buffer.from(`${s.secretKey}:`).toString('base64')}`;
    const res = await fetch(url('/v1/customers'), {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded', 'stripe-version': '2024-06-20' },
      body: 'email=curl%40example.com&metadata[source]=curl&metadata%5Bnote%5D=a+b',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('stripe-version')).toBe('2024-06-20');
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    const body = (await res.json()) as { email: string; metadata: Record<string, string> };
    expect(body).toMatchObject({ email: 'curl@example.com', metadata: { source: 'curl', note: 'a b' } });

    const json = await fetch(url('/v1/customers'), {
      method: 'POST',
      headers: { authorization: `Bearer ${s.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'json@example.com', metadata: { via: 'json' } }),
    });
    expect(json.status).toBe(200);
    expect(json.headers.get('stripe-version')).toBe('2026-10-28.endive');

    const withPassword = await fetch(url('/v1/customers'), {
      headers: { authorization: `Basic ${Buffer.from(`${s.secretKey}:secret`).toString('base64')}` },
    });
    expect(withPassword.status).toBe(401);
    const unauthorized = (await withPassword.json()) as { error: { type: string } };
    expect(unauthorized.error.type).toBe('invalid_request_error');

    const unknownRoute = await fetch(url('/v1/charges'), { headers: { authorization: `Bearer ${s.secretKey}` } });
    expect(unknownRoute.status).toBe(404);
    expect(((await unknownRoute.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');

    const duplicate = await fetch(url('/v1/customers'), {
      method: 'POST',
      headers: { authorization: `Bearer ${s.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%40example.com&email=b%40example.com',
    });
    expect(duplicate.status).toBe(400);
    expect(((await duplicate.json()) as { error: { code: string } }).error.code).toBe('parameter_duplicate');
  });
});
