/**
 * GET /admin/v1/accounts (issue 36, docs/payments.md "Operator"): the operator's list of
 * accounts, newest first, searchable by name prefix, with each account's working API keys by
 * mode; refused to an account's own key. A list like every payments list: `url`, and
 * `ending_before` pages back.
 */
import { byId, listTenants, type TenantPage, tenantListCases, uniqueTag } from '../support/tenant-list';

interface ErrorBody {
  error: { code: string; param?: string };
}
import { ADMIN, newAccount, type PaymentsApp, startPayments } from './payments-context';

describe('GET /admin/v1/accounts', () => {
  let t: PaymentsApp;

  beforeAll(async () => {
    t = await startPayments();
  });
  afterAll(async () => {
    await t.close();
  });

  tenantListCases({
    app: () => t.app,
    path: '/admin/v1/accounts',
    create: async (name) => {
      const res = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: ADMIN, payload: { name } });
      expect(res.statusCode).toBe(201);
      return res.json<{ id: string }>().id;
    },
  });

  it('counts the keys that still work, by mode: a rolled key in its grace period counts, a revoked one does not', async () => {
    const tag = uniqueTag();
    const busy = await newAccount(t, `${tag} busy`);
    const idle = await newAccount(t, `${tag} idle`);
    const post = async (auth: Record<string, string>, url: string, payload: object): Promise<{ id: string }> => {
      const res = await t.app.inject({ method: 'POST', url, headers: auth, payload });
      expect([url, res.statusCode]).toEqual([url, 201]);
      return res.json<{ id: string }>();
    };
    // live: the rolled key stays valid for an hour beside the new one → 2
    await post(busy.live, '/v2/api-keys/roll', { mode: 'live', expires_in_hours: 1 });
    // test: two restricted keys, one of them revoked → 1 + 1
    await post(busy.test, '/v2/api-keys', { mode: 'test', name: 'reporting', permissions: { payments: 'read' } });
    const doomed = await post(busy.test, '/v2/api-keys', { mode: 'test', name: 'doomed', permissions: { payments: 'read' } });
    const revoked = await t.app.inject({ method: 'DELETE', url: `/v2/api-keys/${doomed.id}`, headers: busy.test });
    expect(revoked.statusCode).toBe(200);

    const res = await listTenants(t.app, '/admin/v1/accounts', { name_prefix: tag });
    expect(res.status).toBe(200);
    expect(byId(res.body.data)).toEqual(
      byId([
        {
          id: idle.id,
          name: `${tag} idle`,
          created_at: expect.any(String) as unknown,
          counts: { test_api_keys: 1, live_api_keys: 1 },
        },
        {
          id: busy.id,
          name: `${tag} busy`,
          created_at: expect.any(String) as unknown,
          counts: { test_api_keys: 2, live_api_keys: 2 },
        },
      ]),
    );
  });

  it('is a payments list like the others: url, and ending_before pages back, newest first', async () => {
    const tag = uniqueTag();
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4, 5]) ids.push((await newAccount(t, `${tag} ${n}`)).id);
    const newestFirst = [...ids].reverse();

    const first = await listTenants<TenantPage & { url: string }>(t.app, '/admin/v1/accounts', { name_prefix: tag, limit: '2' });
    expect(first.status).toBe(200);
    expect(first.body.url).toBe('/admin/v1/accounts');
    expect(first.body.data.map((a) => a.id)).toEqual(newestFirst.slice(0, 2));
    const last = await listTenants(t.app, '/admin/v1/accounts', {
      name_prefix: tag,
      limit: '2',
      starting_after: newestFirst[3],
    });
    expect([last.body.data.map((a) => a.id), last.body.has_more]).toEqual([[newestFirst[4]], false]);

    // back from the oldest: the two just newer, still newest first, more before them
    const back = await listTenants(t.app, '/admin/v1/accounts', { name_prefix: tag, limit: '2', ending_before: newestFirst[4] });
    expect([back.body.data.map((a) => a.id), back.body.has_more]).toEqual([newestFirst.slice(2, 4), true]);
    const front = await listTenants(t.app, '/admin/v1/accounts', {
      name_prefix: tag,
      limit: '2',
      ending_before: newestFirst[2],
    });
    expect([front.body.data.map((a) => a.id), front.body.has_more]).toEqual([newestFirst.slice(0, 2), false]);

    const unknown = await listTenants<ErrorBody>(t.app, '/admin/v1/accounts', { ending_before: 'acct_missing' });
    expect([unknown.status, unknown.body.error.code, unknown.body.error.param]).toEqual([
      400,
      'resource_missing',
      'ending_before',
    ]);
    const both = await listTenants<ErrorBody>(t.app, '/admin/v1/accounts', {
      starting_after: newestFirst[0],
      ending_before: newestFirst[4],
    });
    expect([both.status, both.body.error.code]).toEqual([400, 'parameter_invalid']);
  });

  it("refuses an account's own secret key with 401 invalid_api_key", async () => {
    const account = await newAccount(t, `${uniqueTag()} tenant`);
    for (const auth of [account.test, account.live]) {
      const res = await listTenants<{ error: { code: string } }>(t.app, '/admin/v1/accounts', {}, auth);
      expect([res.status, res.body.error.code]).toEqual([401, 'invalid_api_key']);
    }
  });
});
