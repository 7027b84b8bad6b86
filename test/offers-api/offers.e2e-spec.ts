import { ADMIN, type ErrorJson, HOUR, iso, type OfferJson, OffersContext, type Partner, startOffers } from './fixtures';

describe('offers-api: offers, agreements and terms', () => {
  let ctx: OffersContext;
  let alice: Partner;
  let bob: Partner;
  beforeAll(async () => {
    ctx = new OffersContext(await startOffers());
    alice = await ctx.newPartner('Alice Invest');
    bob = await ctx.newPartner('Bob Shares');
  });
  afterAll(async () => {
    await ctx.t.close();
  });

  const get = (p: Partner, url: string) => ctx.inject({ method: 'GET', url, headers: p.auth });

  describe('admin: create offers', () => {
    it('creates an offer with every Offer field, decimals as numbers, status from the clock', async () => {
      const now = Date.now();
      const live = await ctx.newOffer({ price_per_share: 1.2345, minimum_investment: 100.5 });
      expect(live).toEqual({
        id: expect.stringMatching(/^offer_[A-Za-z0-9]{24}$/) as string,
        company: 'Acme Robotics plc',
        ticker: 'ACME',
        type: 'ipo',
        status: 'live',
        price_per_share: 1.2345,
        currency: 'gbp',
        minimum_investment: 100.5,
        maximum_investment: null,
        opens_at: expect.stringMatching(/Z$/) as string,
        closes_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/) as string,
        shares_offered: 1_000_000,
        documents: [],
        updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/) as string,
      });
      const upcoming = await ctx.newOffer({ opens_at: iso(now + HOUR), closes_at: iso(now + 3 * HOUR) });
      expect(upcoming.status).toBe('upcoming');
      const closed = await ctx.newOffer({ opens_at: iso(now - 3 * HOUR), closes_at: iso(now - HOUR) });
      expect(closed.status).toBe('closed');
      // a non-UTC offset is accepted and answered in UTC
      const offset = await ctx.newOffer({ opens_at: '2030-01-01T10:00:00+02:00', closes_at: '2030-01-02T10:00:00+02:00' });
      expect(offset.opens_at).toBe('2030-01-01T08:00:00.000Z');
    });

    const invalid: Array<[string, Record<string, unknown>, string, string]> = [
      ['unknown type', { type: 'spac' }, 'type', 'parameter_invalid'],
      ['uppercase currency', { currency: 'GBP' }, 'currency', 'parameter_invalid'],
      ['usd', { currency: 'usd' }, 'currency', 'parameter_invalid'],
      ['price as a string', { price_per_share: '2.5' }, 'price_per_share', 'parameter_invalid'],
      ['price with 5 places', { price_per_share: 1.23456 }, 'price_per_share', 'parameter_invalid'],
      ['zero price', { price_per_share: 0 }, 'price_per_share', 'parameter_invalid'],
      ['minimum with 3 places', { minimum_investment: 250.001 }, 'minimum_investment', 'parameter_invalid'],
      ['minimum below one share', { price_per_share: 300, minimum_investment: 250 }, 'minimum_investment', 'parameter_invalid'],
      ['fractional shares_offered', { shares_offered: 1.5 }, 'shares_offered', 'parameter_invalid'],
      ['timestamp without offset', { opens_at: '2030-01-01T10:00:00' }, 'opens_at', 'parameter_invalid'],
      [
        'closes before it opens',
        { opens_at: '2030-01-02T00:00:00Z', closes_at: '2030-01-01T00:00:00Z' },
        'closes_at',
        'parameter_invalid',
      ],
      ['a status', { status: 'live' }, 'status', 'parameter_unknown'],
      ['no company', { company: undefined }, 'company', 'parameter_missing'],
    ];
    it.each(invalid)('refuses %s', async (_name, overrides, param, code) => {
      const payload: Record<string, unknown> = {
        company: 'X plc',
        ticker: 'X',
        type: 'ipo',
        price_per_share: 2.5,
        currency: 'gbp',
        minimum_investment: 250,
        opens_at: '2030-01-01T00:00:00Z',
        closes_at: '2030-01-08T00:00:00Z',
        shares_offered: 10,
        ...overrides,
      };
      const res = await ctx.inject({ method: 'POST', url: '/admin/v1/offers', headers: ADMIN, payload });
      expect(res.statusCode).toBe(400);
      expect(res.json<ErrorJson>().error).toMatchObject({ type: 'invalid_request_error', code, param });
    });

    it('needs the admin key', async () => {
      const res = await ctx.inject({ method: 'POST', url: '/admin/v1/offers', headers: alice.auth, payload: {} });
      expect(res.statusCode).toBe(401);
    });
  });

  describe('agreements and visibility', () => {
    let shared: OfferJson;
    let bobsOnly: OfferJson;
    beforeAll(async () => {
      shared = await ctx.newOffer({ company: 'Shared plc', ticker: 'SHRD' });
      bobsOnly = await ctx.newOffer({ company: 'Bob Only plc', ticker: 'BOB' });
      await ctx.share(alice, shared.id);
      await ctx.share(bob, shared.id);
      await ctx.share(bob, bobsOnly.id);
    });

    it('PUT is idempotent and 404s for an unknown partner or offer', async () => {
      await ctx.share(alice, shared.id);
      const noPartner = await ctx.inject({
        method: 'PUT',
        url: `/admin/v1/partners/ptn_nope/offers/${shared.id}`,
        headers: ADMIN,
      });
      expect(noPartner.statusCode).toBe(404);
      expect(noPartner.json<ErrorJson>().error.code).toBe('resource_missing');
      const noOffer = await ctx.inject({
        method: 'PUT',
        url: `/admin/v1/partners/${alice.id}/offers/offer_nope`,
        headers: ADMIN,
      });
      expect(noOffer.statusCode).toBe(404);
    });

    it("another partner's offer is 404 everywhere, exactly like a missing one", async () => {
      for (const url of [
        `/api/v1/offers/${bobsOnly.id}`,
        `/api/v1/offers/${bobsOnly.id}/indications`,
        `/api/v1/offers/${bobsOnly.id}/allocations`,
      ]) {
        const res = await get(alice, url);
        expect(res.statusCode).toBe(404);
        expect(res.json<ErrorJson>().error.code).toBe('resource_missing');
      }
      const post = await ctx.indicate(alice, bobsOnly.id, {
        investor_id: 'inv_1',
        amount: 100_000,
        currency: 'gbp',
        terms_accepted: true,
        terms_version: 'v1',
      });
      expect(post.statusCode).toBe(404);
      const missing = await get(alice, '/api/v1/offers/offer_doesnotexist');
      expect(missing.statusCode).toBe(404);
      expect(missing.json<ErrorJson>().error.message).toBe("No such offer: 'offer_doesnotexist'");
      expect((await get(bob, `/api/v1/offers/${bobsOnly.id}`)).json<OfferJson>().id).toBe(bobsOnly.id);
    });

    it('lists only offers in the agreement', async () => {
      const aliceList = await get(alice, '/api/v1/offers');
      expect(aliceList.statusCode).toBe(200);
      const body = aliceList.json<{ offers: OfferJson[]; total: number; page: number }>();
      expect(Object.keys(body).sort()).toEqual(['offers', 'page', 'total']);
      expect(body.offers.map((o) => o.id)).toEqual([shared.id]);
      expect(body).toMatchObject({ total: 1, page: 1 });
      expect((await get(bob, '/api/v1/offers')).json<{ total: number }>().total).toBe(2);
      const one = await get(alice, `/api/v1/offers/${shared.id}`);
      expect(one.json<OfferJson>()).toEqual(shared);
    });

    it('needs a partner token', async () => {
      const res = await ctx.inject({ method: 'GET', url: '/api/v1/offers' });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    });
  });

  describe('GET /api/v1/offers filters and pages', () => {
    let carol: Partner;
    const ids: Record<string, string> = {};
    beforeAll(async () => {
      carol = await ctx.newPartner('Carol Capital');
      const now = Date.now();
      const specs: Array<[string, Record<string, unknown>]> = [
        ['live-ipo', { type: 'ipo', closes_at: iso(now + 10 * HOUR) }],
        ['live-placing', { type: 'placing', closes_at: iso(now + 11 * HOUR) }],
        ['upcoming-retail', { type: 'retail_offer', opens_at: iso(now + HOUR), closes_at: iso(now + 12 * HOUR) }],
        ['closed-ipo', { type: 'ipo', opens_at: iso(now - 5 * HOUR), closes_at: iso(now - HOUR) }],
      ];
      for (const [name, overrides] of specs) {
        const offer = await ctx.newOffer(overrides);
        ids[name] = offer.id;
        await ctx.share(carol, offer.id);
      }
    });
    const list = async (query: string): Promise<{ offers: OfferJson[]; total: number; page: number }> => {
      const res = await get(carol, `/api/v1/offers${query}`);
      expect(res.statusCode).toBe(200);
      return res.json();
    };

    it('without status returns live and upcoming, soonest close first', async () => {
      const body = await list('');
      expect(body.offers.map((o) => o.id)).toEqual([ids['live-ipo'], ids['live-placing'], ids['upcoming-retail']]);
      expect(body.total).toBe(3);
    });

    it('filters by status and type', async () => {
      expect((await list('?status=closed')).offers.map((o) => o.id)).toEqual([ids['closed-ipo']]);
      expect((await list('?status=live')).total).toBe(2);
      expect((await list('?status=upcoming')).offers.map((o) => o.status)).toEqual(['upcoming']);
      expect((await list('?type=ipo')).offers.map((o) => o.id)).toEqual([ids['live-ipo']]);
      expect((await list('?type=ipo&status=closed')).offers.map((o) => o.id)).toEqual([ids['closed-ipo']]);
      expect((await list('?type=retail_offer')).total).toBe(1);
    });

    it('pages with limit and a 1-based page; total counts every page', async () => {
      const p1 = await list('?limit=2');
      expect(p1).toMatchObject({ total: 3, page: 1 });
      expect(p1.offers).toHaveLength(2);
      const p2 = await list('?limit=2&page=2');
      expect(p2.offers.map((o) => o.id)).toEqual([ids['upcoming-retail']]);
      expect(p2.page).toBe(2);
      // past the end: no rows, the total still counts every page
      expect(await list('?limit=2&page=3')).toMatchObject({ offers: [], total: 3, page: 3 });
      const closed = (await list('?status=closed')).total;
      expect(await list('?limit=2&page=3&status=closed')).toMatchObject({ offers: [], total: closed });
      expect((await list('?limit=100')).offers).toHaveLength(3);
    });

    it.each([
      ['limit=101', 'limit'],
      ['limit=0', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['page=0', 'page'],
      ['status=open', 'status'],
      ['type=IPO', 'type'],
      ['sort=asc', 'sort'],
    ])('?%s is a 400 naming %s', async (query, param) => {
      const res = await get(carol, `/api/v1/offers?${query}`);
      expect(res.statusCode).toBe(400);
      expect(res.json<ErrorJson>().error).toMatchObject({ type: 'invalid_request_error', param });
    });
  });

  describe('admin: PATCH offers', () => {
    it('changes an upcoming offer and derives the new status', async () => {
      const now = Date.now();
      const offer = await ctx.newOffer({ opens_at: iso(now + HOUR), closes_at: iso(now + 2 * HOUR) });
      const patch = await ctx.inject({
        method: 'PATCH',
        url: `/admin/v1/offers/${offer.id}`,
        headers: ADMIN,
        payload: { price_per_share: 3, opens_at: iso(now - HOUR), company: 'Renamed plc' },
      });
      expect(patch.statusCode).toBe(200);
      expect(patch.json<OfferJson>()).toMatchObject({ status: 'live', price_per_share: 3, company: 'Renamed plc' });
    });

    it('freezes the price of a live offer but lets it close later; closed offers cannot change', async () => {
      const offer = await ctx.newOffer();
      const price = await ctx.inject({
        method: 'PATCH',
        url: `/admin/v1/offers/${offer.id}`,
        headers: ADMIN,
        payload: { price_per_share: 9 },
      });
      expect(price.statusCode).toBe(409);
      expect(price.json<ErrorJson>().error).toMatchObject({ code: 'offer_not_editable', param: 'price_per_share' });
      const same = await ctx.inject({
        method: 'PATCH',
        url: `/admin/v1/offers/${offer.id}`,
        headers: ADMIN,
        payload: { price_per_share: 2.5 },
      });
      expect(same.statusCode).toBe(200);
      const later = iso(Date.parse(offer.closes_at) + HOUR);
      const extend = await ctx.inject({
        method: 'PATCH',
        url: `/admin/v1/offers/${offer.id}`,
        headers: ADMIN,
        payload: { closes_at: later },
      });
      expect(extend.json<OfferJson>().closes_at).toBe(later);
      const close = await ctx.inject({
        method: 'PATCH',
        url: `/admin/v1/offers/${offer.id}`,
        headers: ADMIN,
        payload: { closes_at: iso(Date.now() - 1000) },
      });
      expect(close.json<OfferJson>().status).toBe('closed');
      const again = await ctx.inject({
        method: 'PATCH',
        url: `/admin/v1/offers/${offer.id}`,
        headers: ADMIN,
        payload: { company: 'Y' },
      });
      expect(again.statusCode).toBe(409);
      expect(again.json<ErrorJson>().error.code).toBe('offer_not_editable');
      const missing = await ctx.inject({ method: 'PATCH', url: '/admin/v1/offers/offer_nope', headers: ADMIN, payload: {} });
      expect(missing.statusCode).toBe(404);
    });
  });

  describe('terms', () => {
    it('is 404 before any terms are published, then returns the latest version', async () => {
      // terms are global: a database of its own, whatever the other tests published
      const own = new OffersContext(await startOffers());
      try {
        const partner = await own.newPartner();
        const read = () => own.inject({ method: 'GET', url: '/api/v1/terms', headers: partner.auth });
        const none = await read();
        expect(none.statusCode).toBe(404);
        await own.publishTerms('2026-01', 'Terms 2026-01', 'First body');
        await own.publishTerms('2026-02', 'Terms 2026-02', 'Second body');
        const res = await read();
        expect(res.statusCode).toBe(200);
        const body = res.json<Record<string, unknown>>();
        expect(Object.keys(body).sort()).toEqual(['body', 'published_at', 'title', 'version']);
        expect(body).toMatchObject({ version: '2026-02', title: 'Terms 2026-02', body: 'Second body' });
        expect(body['published_at']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      } finally {
        await own.t.close();
      }
    });

    it('refuses a duplicate or malformed version, and non-admins', async () => {
      await ctx.publishTerms('dup-1');
      const dup = await ctx.inject({
        method: 'POST',
        url: '/admin/v1/terms',
        headers: ADMIN,
        payload: { version: 'dup-1', title: 't', body: 'b' },
      });
      expect(dup.statusCode).toBe(409);
      expect(dup.json<ErrorJson>().error).toMatchObject({ code: 'resource_already_exists', param: 'version' });
      const bad = await ctx.inject({
        method: 'POST',
        url: '/admin/v1/terms',
        headers: ADMIN,
        payload: { version: 'has space', title: 't', body: 'b' },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json<ErrorJson>().error.param).toBe('version');
      const partner = await ctx.inject({
        method: 'POST',
        url: '/admin/v1/terms',
        headers: alice.auth,
        payload: { version: 'x', title: 't', body: 'b' },
      });
      expect(partner.statusCode).toBe(401);
      const noToken = await ctx.inject({ method: 'GET', url: '/api/v1/terms' });
      expect(noToken.statusCode).toBe(401);
    });
  });
});
