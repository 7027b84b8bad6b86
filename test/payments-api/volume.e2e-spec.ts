/**
 * GET /v2/payments/volume (the dashboard's "payments volume per day" chart) and the `status`
 * filter of GET /v2/payments, against the real database.
 */
import { Client } from 'pg';
import { newAccount, newCustomer, startPayments, type Account, type ErrorJson, type PaymentsApp } from './payments-context';

interface Volume {
  object: string;
  days: number;
  since: string;
  until: string;
  currency: string | null;
  data: Array<{ day: string; currency: string; amount: number; count: number }>;
}

describe('payments-api: volume per day and the status filter', () => {
  let t: PaymentsApp;
  let acct: Account;
  let customer: string;
  const today = new Date().toISOString().slice(0, 10);

  const pay = async (body: object, expected = 201): Promise<string> => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/payments',
      headers: acct.test,
      payload: { customer_id: customer, currency: 'gbp', ...body },
    });
    expect(res.statusCode).toBe(expected);
    return expected === 201 ? res.json<{ id: string }>().id : (res.json<ErrorJson>().error['payment_id'] as string);
  };
  const volume = async (query = '', auth = acct.test): Promise<Volume> => {
    const res = await t.app.inject({ method: 'GET', url: `/v2/payments/volume${query}`, headers: auth });
    expect([res.statusCode, res.body]).toEqual([200, expect.any(String)]);
    return res.json<Volume>();
  };

  beforeAll(async () => {
    t = await startPayments();
    acct = await newAccount(t);
    customer = await newCustomer(t, acct.test);
    await pay({ amount: 2000 });
    await pay({ amount: 500 });
    await pay({ amount: 1500, currency: 'eur' });
    await pay({ amount: 9000, payment_method: 'pm_card_declined' }, 402);
    await pay({ amount: 4000, capture_method: 'manual' });
    const captured = await pay({ amount: 3000, capture_method: 'manual' });
    const capture = await t.app.inject({
      method: 'POST',
      url: `/v2/payments/${captured}/capture`,
      headers: acct.test,
      payload: { amount_to_capture: 1200 },
    });
    expect(capture.statusCode).toBe(200);
    // a payment of 40 days ago: outside the default 30 days, inside 90
    const old = await pay({ amount: 700 });
    const db = new Client({ connectionString: t.db.url });
    await db.connect();
    await db.query(`UPDATE payments SET created_at = now() - interval '40 days' WHERE id = $1`, [old]);
    await db.end();
  });
  afterAll(async () => {
    await t.close();
  });

  it('sums what succeeded payments received, per UTC day and currency, over the last 30 days by default', async () => {
    const v = await volume();
    expect(v).toMatchObject({ object: 'payment_volume', days: 30, until: today, currency: null });
    expect(new Date(`${v.until}T00:00:00Z`).getTime() - new Date(`${v.since}T00:00:00Z`).getTime()).toBe(29 * 86_400_000);
    // 2000 + 500 + 1200 captured of 3000; the decline and the uncaptured authorization do not count
    expect(v.data).toEqual([
      { day: today, currency: 'eur', amount: 1500, count: 1 },
      { day: today, currency: 'gbp', amount: 3700, count: 3 },
    ]);
  });

  it('takes days (1–90) and a currency', async () => {
    const v = await volume('?days=90&currency=gbp');
    expect(v.currency).toBe('gbp');
    expect(v.data.map((d) => [d.currency, d.amount])).toEqual([
      ['gbp', 700],
      ['gbp', 3700],
    ]);
    expect(v.data[0]?.day < today).toBe(true);
    expect((await volume('?days=1')).data.map((d) => d.amount)).toEqual([1500, 3700]);
  });

  it.each([
    ['?days=0', 'days'],
    ['?days=91', 'days'],
    ['?days=x', 'days'],
    ['?currency=GBP', 'currency'],
    ['?other=1', 'other'],
  ])('refuses %s naming %s', async (query, param) => {
    const res = await t.app.inject({ method: 'GET', url: `/v2/payments/volume${query}`, headers: acct.test });
    expect(res.statusCode).toBe(400);
    expect(res.json<ErrorJson>().error).toMatchObject({ type: 'invalid_request_error', param });
  });

  it('is empty for the live mode and for another account', async () => {
    expect((await volume('', acct.live)).data).toEqual([]);
    const other = await newAccount(t, 'Other');
    expect((await volume('', other.test)).data).toEqual([]);
  });

  it('needs payments "read" of a restricted key', async () => {
    const key = async (permissions: object): Promise<Record<string, string>> => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2/api-keys',
        headers: acct.test,
        payload: { mode: 'test', name: 'volume', permissions },
      });
      expect(res.statusCode).toBe(201);
      return { authorization: `Bearer ${res.json<{ secret: string }>().secret}` };
    };
    expect((await volume('', await key({ payments: 'read' }))).data).toHaveLength(2);
    const res = await t.app.inject({
      method: 'GET',
      url: '/v2/payments/volume',
      headers: await key({ customers: 'write' }),
    });
    expect([res.statusCode, res.json<ErrorJson>().error.code]).toEqual([403, 'permission_denied']);
  });

  it('needs a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v2/payments/volume' });
    expect(res.statusCode).toBe(401);
  });

  it('GET /v2/payments filters by status', async () => {
    const list = async (status: string): Promise<Array<{ status: string; amount: number }>> => {
      const res = await t.app.inject({ method: 'GET', url: `/v2/payments?limit=100&status=${status}`, headers: acct.test });
      expect(res.statusCode).toBe(200);
      return res.json<{ data: Array<{ status: string; amount: number }> }>().data;
    };
    expect((await list('failed')).map((p) => [p.status, p.amount])).toEqual([['failed', 9000]]);
    expect((await list('requires_capture')).map((p) => p.amount)).toEqual([4000]);
    expect((await list('succeeded')).map((p) => p.amount).sort((a, b) => a - b)).toEqual([500, 700, 1500, 2000, 3000]);
    const bad = await t.app.inject({ method: 'GET', url: '/v2/payments?status=paid', headers: acct.test });
    expect([bad.statusCode, bad.json<ErrorJson>().error.param]).toEqual([400, 'status']);
  });
});
