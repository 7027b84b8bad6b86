/**
 * GET /admin/v1/partners (issue 36, docs/offers.md "Operator"): the operator's list of
 * partners, newest first, searchable by name prefix, with the counts of each partner's
 * agreement and working clients; refused to a partner's own token.
 */
import { byId, listTenants, tenantListCases, uniqueTag } from '../support/tenant-list';
import { ADMIN, OffersContext, type OffersApp, startOffers } from './fixtures';

describe('GET /admin/v1/partners', () => {
  let t: OffersApp;
  let ctx: OffersContext;

  beforeAll(async () => {
    t = await startOffers();
    ctx = new OffersContext(t);
  });
  afterAll(async () => {
    await t.close();
  });

  tenantListCases({
    app: () => t.app,
    path: '/admin/v1/partners',
    create: async (name) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/admin/v1/partners',
        headers: ADMIN,
        payload: { name, tier: 'growth' },
      });
      ctx.expectStatus(res, 201);
      return res.json<{ id: string }>().id;
    },
  });

  it("counts each partner's offers in agreement and working clients, and shows its tier", async () => {
    const tag = uniqueTag();
    const busy = await ctx.newPartner(`${tag} busy`, 'enterprise');
    const idle = await ctx.newPartner(`${tag} idle`, 'starter');
    const [o1, o2] = [await ctx.newOffer(), await ctx.newOffer({ ticker: 'TWO' })];
    await ctx.share(busy, o1.id);
    await ctx.share(busy, o2.id);
    await ctx.share(busy, o2.id); // idempotent: still two
    const extra = await t.app.inject({ method: 'POST', url: `/admin/v1/partners/${busy.id}/clients`, headers: ADMIN });
    ctx.expectStatus(extra, 201);
    const third = await t.app.inject({ method: 'POST', url: `/admin/v1/partners/${busy.id}/clients`, headers: ADMIN });
    ctx.expectStatus(third, 201);
    const disabled = await t.app.inject({
      method: 'DELETE',
      url: `/admin/v1/partners/${busy.id}/clients/${third.json<{ client_id: string }>().client_id}`,
      headers: ADMIN,
    });
    ctx.expectStatus(disabled, 200);

    const res = await listTenants(t.app, '/admin/v1/partners', { name_prefix: tag });
    expect(res.status).toBe(200);
    expect(byId(res.body.data)).toEqual(
      byId([
        {
          id: idle.id,
          name: `${tag} idle`,
          tier: 'starter',
          created_at: expect.any(String) as unknown,
          counts: { offers_in_agreement: 0, active_clients: 1 },
        },
        {
          id: busy.id,
          name: `${tag} busy`,
          tier: 'enterprise',
          created_at: expect.any(String) as unknown,
          counts: { offers_in_agreement: 2, active_clients: 2 },
        },
      ]),
    );
  });

  it("refuses a partner's access token with 401 invalid_api_key", async () => {
    const partner = await ctx.newPartner(`${uniqueTag()} tenant`);
    const res = await listTenants<{ error: { code: string } }>(t.app, '/admin/v1/partners', {}, partner.auth);
    expect([res.status, res.body.error.code]).toEqual([401, 'invalid_api_key']);
  });
});
