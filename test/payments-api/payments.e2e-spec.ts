import { newAccount, newCustomer, startPayments, type Account, type ErrorJson, type PaymentsApp } from './payments-context';

interface Payment {
  id: string;
  object: string;
  status: string;
  amount: number;
  currency: string;
  customer_id: string;
  amount_refunded: number;
  refunded: boolean;
  decline_code: string | null;
  failure_code: string | null;
  created: string;
}
interface List<T> {
  object: string;
  data: T[];
  has_more: boolean;
  url: string;
}

describe('payments-api: customers, payments, refunds', () => {
  let t: PaymentsApp;
  let acct: Account;
  let customer: string;
  beforeAll(async () => {
    t = await startPayments();
    acct = await newAccount(t);
    customer = await newCustomer(t, acct.test);
  });
  afterAll(async () => {
    await t.close();
  });

  const pay = (payload: object, headers = acct.test) => t.app.inject({ method: 'POST', url: '/v2/payments', headers, payload });

  describe('customers', () => {
    it('creates, retrieves, updates, lists and deletes', async () => {
      const created = await t.app.inject({
        method: 'POST',
        url: '/v2/customers',
        headers: acct.test,
        payload: { email: 'a@b.co', name: 'Ann', metadata: { crm: '42' } },
      });
      expect(created.statusCode).toBe(201);
      const c = created.json<{ id: string; object: string; metadata: object; livemode: boolean; created: string }>();
      expect(c).toMatchObject({ object: 'customer', metadata: { crm: '42' }, livemode: false });
      expect(c.id).toMatch(/^cus_/);
      expect(c.created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

      const got = await t.app.inject({ method: 'GET', url: `/v2/customers/${c.id}`, headers: acct.test });
      expect(got.json()).toEqual(created.json());

      const updated = await t.app.inject({
        method: 'POST',
        url: `/v2/customers/${c.id}`,
        headers: acct.test,
        payload: { name: 'Anne', metadata: { crm: '', tier: 'gold' } },
      });
      expect(updated.statusCode).toBe(200);
      expect(updated.json()).toMatchObject({ name: 'Anne', email: 'a@b.co', metadata: { tier: 'gold' } });

      const list = await t.app.inject({ method: 'GET', url: '/v2/customers?limit=1', headers: acct.test });
      expect(list.json<List<{ id: string }>>()).toMatchObject({ object: 'list', url: '/v2/customers', has_more: true });
      expect(list.json<List<{ id: string }>>().data.map((x) => x.id)).toEqual([c.id]);

      const deleted = await t.app.inject({ method: 'DELETE', url: `/v2/customers/${c.id}`, headers: acct.test });
      expect(deleted.json()).toEqual({ id: c.id, object: 'customer', deleted: true });
      expect((await t.app.inject({ method: 'GET', url: `/v2/customers/${c.id}`, headers: acct.test })).statusCode).toBe(404);
      const charge = await pay({ amount: 100, currency: 'gbp', customer_id: c.id });
      expect(charge.statusCode).toBe(400);
      expect(charge.json<ErrorJson>().error).toMatchObject({ code: 'resource_missing', param: 'customer_id' });
    });

    it('validates fields', async () => {
      for (const [payload, param] of [
        [{ email: 'not-an-email' }, 'email'],
        [{ metadata: { n: 1 } }, 'metadata'],
        [{ nickname: 'x' }, 'nickname'],
      ] as const) {
        const res = await t.app.inject({ method: 'POST', url: '/v2/customers', headers: acct.test, payload });
        expect(res.statusCode).toBe(400);
        expect(res.json<ErrorJson>().error.param).toBe(param);
      }
    });
  });

  describe('payments', () => {
    it('charges with the default test method and returns the contract fields', async () => {
      const res = await pay({ amount: 2000, currency: 'gbp', customer_id: customer, description: 'Order 1' });
      expect(res.statusCode).toBe(201);
      const p = res.json<Payment>();
      expect(p).toMatchObject({
        object: 'payment',
        status: 'succeeded',
        amount: 2000,
        currency: 'gbp',
        customer_id: customer,
        amount_refunded: 0,
        refunded: false,
        decline_code: null,
      });
      expect(p.id).toMatch(/^pay_/);
      const got = await t.app.inject({ method: 'GET', url: `/v2/payments/${p.id}`, headers: acct.test });
      expect(got.json()).toEqual(p);
    });

    it.each([
      ['pm_card_declined', 'card_declined', 'generic_decline'],
      ['pm_card_insufficient_funds', 'card_declined', 'insufficient_funds'],
      ['pm_card_processing_error', 'processing_error', undefined],
    ])('stores a failed payment for %s and answers 402 card_error', async (method, code, decline) => {
      const res = await pay({ amount: 500, currency: 'eur', customer_id: customer, payment_method: method });
      expect(res.statusCode).toBe(402);
      const error = res.json<ErrorJson>().error;
      expect(error).toMatchObject({ type: 'card_error', code });
      expect(error['decline_code']).toBe(decline);
      const stored = await t.app.inject({
        method: 'GET',
        url: `/v2/payments/${String(error['payment_id'])}`,
        headers: acct.test,
      });
      expect(stored.statusCode).toBe(200);
      expect(stored.json<Payment>()).toMatchObject({ status: 'failed', failure_code: code, decline_code: decline ?? null });
    });

    it.each([
      [{ amount: 0, currency: 'gbp' }, 'amount'],
      [{ amount: 1.5, currency: 'gbp' }, 'amount'],
      [{ amount: '100', currency: 'gbp' }, 'amount'],
      [{ amount: 100, currency: 'GBP' }, 'currency'],
      [{ amount: 100, currency: 'xyz' }, 'currency'],
      [{ amount: 100 }, 'currency'],
      [{ amount: 100, currency: 'gbp', payment_method: 'pm_card_unknown' }, 'payment_method'],
      [{ amount: 100, currency: 'gbp', surprise: true }, 'surprise'],
    ])('rejects %j naming %s', async (body, param) => {
      const res = await pay({ customer_id: customer, ...body });
      expect(res.statusCode).toBe(400);
      expect(res.json<ErrorJson>().error).toMatchObject({ type: 'invalid_request_error', param });
    });

    it('refuses live-mode charges without a live processor (403 live_mode_not_enabled)', async () => {
      const liveCustomer = await newCustomer(t, acct.live);
      const res = await pay({ amount: 100, currency: 'usd', customer_id: liveCustomer }, acct.live);
      expect(res.statusCode).toBe(403);
      expect(res.json<ErrorJson>().error).toMatchObject({ type: 'permission_error', code: 'live_mode_not_enabled' });
    });

    it('lists newest first with cursors, filters and has_more', async () => {
      const other = await newCustomer(t, acct.test);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await pay({ amount: 100 + i, currency: 'usd', customer_id: other })).json<Payment>().id);
      const newestFirst = [...ids].reverse();
      const first = await t.app.inject({ method: 'GET', url: `/v2/payments?customer_id=${other}&limit=2`, headers: acct.test });
      const l1 = first.json<List<Payment>>();
      expect(l1).toMatchObject({ object: 'list', has_more: true, url: '/v2/payments' });
      expect(l1.data.map((p) => p.id)).toEqual(newestFirst.slice(0, 2));
      const second = await t.app.inject({
        method: 'GET',
        url: `/v2/payments?customer_id=${other}&limit=2&starting_after=${l1.data[1]?.id}`,
        headers: acct.test,
      });
      expect(second.json<List<Payment>>().data.map((p) => p.id)).toEqual(newestFirst.slice(2, 4));
      const last = await t.app.inject({
        method: 'GET',
        url: `/v2/payments?customer_id=${other}&limit=10&starting_after=${newestFirst[3]}`,
        headers: acct.test,
      });
      expect(last.json<List<Payment>>()).toMatchObject({ has_more: false });
      expect(last.json<List<Payment>>().data.map((p) => p.id)).toEqual(newestFirst.slice(4));
      const back = await t.app.inject({
        method: 'GET',
        url: `/v2/payments?customer_id=${other}&limit=2&ending_before=${newestFirst[4]}`,
        headers: acct.test,
      });
      expect(back.json<List<Payment>>().data.map((p) => p.id)).toEqual(newestFirst.slice(2, 4));

      const created = (await t.app.inject({ method: 'GET', url: `/v2/payments/${ids[2]}`, headers: acct.test })).json<Payment>()
        .created;
      const since = await t.app.inject({
        method: 'GET',
        url: `/v2/payments?customer_id=${other}&created[gte]=${encodeURIComponent(created)}`,
        headers: acct.test,
      });
      expect(since.json<List<Payment>>().data.map((p) => p.id)).toEqual(newestFirst.slice(0, 3));
      const until = await t.app.inject({
        method: 'GET',
        url: `/v2/payments?customer_id=${other}&created[lte]=${encodeURIComponent(created)}`,
        headers: acct.test,
      });
      expect(until.json<List<Payment>>().data.map((p) => p.id)).toEqual(newestFirst.slice(2));

      for (const url of [
        '/v2/payments?limit=0',
        '/v2/payments?limit=101',
        '/v2/payments?created[gte]=yesterday',
        '/v2/payments?starting_after=pay_nope',
      ]) {
        const res = await t.app.inject({ method: 'GET', url, headers: acct.test });
        expect(res.statusCode).toBe(400);
      }
    });
  });

  describe('refunds', () => {
    it('refunds in part, then the rest by default, then refuses more', async () => {
      const p = (await pay({ amount: 1000, currency: 'gbp', customer_id: customer })).json<Payment>();
      const partial = await t.app.inject({
        method: 'POST',
        url: '/v2/refunds',
        headers: acct.test,
        payload: { payment_id: p.id, amount: 300, reason: 'requested_by_customer' },
      });
      expect(partial.statusCode).toBe(201);
      expect(partial.json()).toMatchObject({
        object: 'refund',
        payment_id: p.id,
        amount: 300,
        currency: 'gbp',
        status: 'succeeded',
        reason: 'requested_by_customer',
      });
      expect(partial.json<{ id: string }>().id).toMatch(/^re_/);
      const tooMuch = await t.app.inject({
        method: 'POST',
        url: '/v2/refunds',
        headers: acct.test,
        payload: { payment_id: p.id, amount: 701 },
      });
      expect(tooMuch.statusCode).toBe(400);
      expect(tooMuch.json<ErrorJson>().error).toMatchObject({ code: 'amount_exceeds_refundable', param: 'amount' });
      const rest = await t.app.inject({ method: 'POST', url: '/v2/refunds', headers: acct.test, payload: { payment_id: p.id } });
      expect(rest.json<{ amount: number }>().amount).toBe(700);
      const after = (await t.app.inject({ method: 'GET', url: `/v2/payments/${p.id}`, headers: acct.test })).json<Payment>();
      expect(after).toMatchObject({ amount_refunded: 1000, refunded: true });
      const again = await t.app.inject({ method: 'POST', url: '/v2/refunds', headers: acct.test, payload: { payment_id: p.id } });
      expect(again.json<ErrorJson>().error.code).toBe('amount_exceeds_refundable');

      const list = await t.app.inject({ method: 'GET', url: `/v2/refunds?payment_id=${p.id}`, headers: acct.test });
      expect(list.json<List<{ amount: number }>>().data.map((r) => r.amount)).toEqual([700, 300]);
      const one = await t.app.inject({
        method: 'GET',
        url: `/v2/refunds/${partial.json<{ id: string }>().id}`,
        headers: acct.test,
      });
      expect(one.json()).toEqual(partial.json());
    });

    it('refuses refunds of failed or unknown payments', async () => {
      const failed = await pay({ amount: 100, currency: 'gbp', customer_id: customer, payment_method: 'pm_card_declined' });
      const id = String(failed.json<ErrorJson>().error['payment_id']);
      const res = await t.app.inject({ method: 'POST', url: '/v2/refunds', headers: acct.test, payload: { payment_id: id } });
      expect(res.json<ErrorJson>().error.code).toBe('payment_not_refundable');
      const unknown = await t.app.inject({
        method: 'POST',
        url: '/v2/refunds',
        headers: acct.test,
        payload: { payment_id: 'pay_nope' },
      });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json<ErrorJson>().error).toMatchObject({ code: 'resource_missing', param: 'payment_id' });
    });

    it('never refunds more than the amount under 20 concurrent partial refunds', async () => {
      const p = (await pay({ amount: 1000, currency: 'gbp', customer_id: customer })).json<Payment>();
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          t.app.inject({ method: 'POST', url: '/v2/refunds', headers: acct.test, payload: { payment_id: p.id, amount: 70 } }),
        ),
      );
      const ok = results.filter((r) => r.statusCode === 201);
      expect(ok.length).toBe(14); // 14 × 70 = 980 ≤ 1000 < 15 × 70
      for (const r of results.filter((x) => x.statusCode !== 201)) {
        expect(r.statusCode).toBe(400);
        expect(r.json<ErrorJson>().error.code).toBe('amount_exceeds_refundable');
      }
      const after = (await t.app.inject({ method: 'GET', url: `/v2/payments/${p.id}`, headers: acct.test })).json<Payment>();
      expect(after.amount_refunded).toBe(980);
    });
  });

  describe('isolation', () => {
    it("hides another account's and the other mode's objects (404)", async () => {
      const other = await newAccount(t, 'Other');
      const p = (await pay({ amount: 100, currency: 'gbp', customer_id: customer })).json<Payment>();
      for (const headers of [other.test, acct.live]) {
        expect((await t.app.inject({ method: 'GET', url: `/v2/payments/${p.id}`, headers })).statusCode).toBe(404);
        expect((await t.app.inject({ method: 'GET', url: `/v2/customers/${customer}`, headers })).statusCode).toBe(404);
        const list = await t.app.inject({ method: 'GET', url: '/v2/payments', headers });
        expect(list.statusCode).toBe(200);
        expect(list.json<List<Payment>>().data.map((x) => x.id)).not.toContain(p.id);
        const refund = await t.app.inject({ method: 'POST', url: '/v2/refunds', headers, payload: { payment_id: p.id } });
        expect(refund.statusCode).toBe(400);
        expect(refund.json<ErrorJson>().error).toMatchObject({ code: 'resource_missing', param: 'payment_id' });
      }
      const charge = await pay({ amount: 100, currency: 'gbp', customer_id: customer }, other.test);
      expect(charge.json<ErrorJson>().error.code).toBe('resource_missing');
    });
  });
});
