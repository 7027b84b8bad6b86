import { Clock } from '@app/platform';
import { jest } from '@jest/globals';
import { LifecycleService } from '../../apps/offers-api/src/lifecycle/lifecycle.service';
import { ADMIN, type ErrorJson, HOUR, iso, type OfferJson, OffersContext, type Partner, startOffers } from './fixtures';

interface AllocationJson {
  id: string;
  indication_id: string;
  investor_id: string;
  offer_id: string;
  shares_allocated: number;
  amount_allocated: number;
  currency: string;
  shares_requested: number;
  amount_requested: number;
  amount_refunded: number;
  scaling_factor: number;
  method: string;
  outcome: string;
  created_at: string;
}

describe('offers-api: allocation', () => {
  let ctx: OffersContext;
  let alice: Partner;
  let bob: Partner;
  beforeAll(async () => {
    ctx = new OffersContext(await startOffers());
    alice = await ctx.newPartner('Alice Invest');
    bob = await ctx.newPartner('Bob Shares');
    await ctx.publishTerms('tc-1');
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });
  afterAll(async () => {
    await ctx.t.close();
  });

  /** A live offer shared with both partners, closing in a minute. */
  async function liveOffer(overrides: Record<string, unknown> = {}): Promise<OfferJson> {
    const offer = await ctx.newOffer({ closes_at: iso(Date.now() + 60_000), ...overrides });
    await ctx.share(alice, offer.id);
    await ctx.share(bob, offer.id);
    return offer;
  }

  async function indicate(p: Partner, offer: OfferJson, investor: string, amount: number): Promise<string> {
    const res = await ctx.indicate(p, offer.id, {
      investor_id: investor,
      amount,
      currency: offer.currency,
      terms_accepted: true,
      terms_version: 'tc-1',
    });
    ctx.expectStatus(res, 201);
    return res.json<{ id: string }>().id;
  }

  /** Closes the offer by moving the clock past closes_at and running the transition. */
  async function close(offer: OfferJson): Promise<void> {
    const clock = ctx.t.app.get(Clock);
    const after = new Date(Date.parse(offer.closes_at) + 1);
    jest.spyOn(clock, 'now').mockImplementation(() => after);
    await ctx.t.app.get(LifecycleService).advance(offer.id);
  }

  const run = (offerId: string, payload: Record<string, unknown>) =>
    ctx.inject({ method: 'POST', url: `/admin/v1/offers/${offerId}/allocations`, headers: ADMIN, payload });

  it('allocates pro rata, stores method and refund, and tells each partner about its own investors only', async () => {
    const offer = await liveOffer({ price_per_share: 2.5, minimum_investment: 250 });
    // requests in shares: a1 4000 (£10,000), a2 400 (£1,000 + 1p), b1 1600 (£4,000)
    const a1 = await indicate(alice, offer, 'inv_a1', 1_000_000);
    const a2 = await indicate(alice, offer, 'inv_a2', 100_001);
    const b1 = await indicate(bob, offer, 'inv_b1', 400_000);
    const cancelled = await indicate(alice, offer, 'inv_gone', 50_000);
    const del = await ctx.inject({
      method: 'DELETE',
      url: `/api/v1/offers/${offer.id}/indications/${cancelled}`,
      headers: alice.auth,
    });
    expect(del.statusCode).toBe(200);

    const early = await run(offer.id, { shares_available: 3_000, policy: 'pro_rata' });
    expect(early.statusCode).toBe(409);
    expect(early.json<ErrorJson>().error.code).toBe('offer_not_closed');

    await close(offer);
    const res = await run(offer.id, { shares_available: 3_000, policy: 'pro_rata' });
    expect(res.statusCode).toBe(201);
    const result = res.json<{ shares_allocated: number; shares_requested: number; allocations: AllocationJson[] }>();
    expect(result).toMatchObject({ shares_requested: 6_000, shares_allocated: 3_000 });
    const byInd = new Map(result.allocations.map((a) => [a.indication_id, a]));
    expect(byInd.has(cancelled)).toBe(false);
    expect(byInd.get(a1)).toMatchObject({
      investor_id: 'inv_a1',
      offer_id: offer.id,
      shares_requested: 4_000,
      shares_allocated: 2_000,
      amount_allocated: 5_000,
      currency: 'gbp',
      amount_requested: 1_000_000,
      amount_refunded: 500_000,
      scaling_factor: 0.5,
      method: 'pro_rata',
      outcome: 'scaled',
    });
    expect(byInd.get(a2)).toMatchObject({ shares_allocated: 200, amount_allocated: 500, amount_refunded: 50_001 });
    expect(byInd.get(b1)).toMatchObject({ shares_allocated: 800, amount_allocated: 2_000 });

    const ofThisOffer = async (partnerId: string) =>
      (await ctx.events(partnerId, 'allocation.scaled')).filter((e) => e.data['offer_id'] === offer.id);
    const scaled = await ofThisOffer(alice.id);
    expect(scaled.map((e) => e.data['investor_id']).sort()).toEqual(['inv_a1', 'inv_a2']);
    expect(scaled.find((e) => e.data['investor_id'] === 'inv_a1')?.data).toMatchObject({
      investor_id: 'inv_a1',
      offer_id: offer.id,
      shares_allocated: 2_000,
      amount_allocated: 5_000,
      currency: 'gbp',
      amount_requested: 1_000_000,
      scaling_factor: 0.5,
    });
    expect((await ofThisOffer(bob.id)).map((e) => e.data['investor_id'])).toEqual(['inv_b1']);

    const mine = await ctx.inject({ method: 'GET', url: `/api/v1/offers/${offer.id}/allocations`, headers: alice.auth });
    expect(mine.statusCode).toBe(200);
    const list = mine.json<{ allocations: AllocationJson[]; total: number }>();
    expect(list.allocations.map((a) => a.investor_id).sort()).toEqual(['inv_a1', 'inv_a2']);
    expect(list.total).toBe(2);

    const again = await run(offer.id, { shares_available: 3_000, policy: 'pro_rata' });
    expect(again.statusCode).toBe(409);
    expect(again.json<ErrorJson>().error.code).toBe('offer_already_allocated');
  });

  it('confirms in full when not oversubscribed (allocation.confirmed)', async () => {
    const offer = await liveOffer();
    await indicate(bob, offer, 'inv_full', 100_000);
    await close(offer);
    const res = await run(offer.id, { shares_available: 1_000, policy: 'pro_rata' });
    const [only] = res.json<{ allocations: AllocationJson[] }>().allocations;
    expect(only).toMatchObject({ shares_allocated: 400, scaling_factor: 1, amount_refunded: 0, outcome: 'confirmed' });
    const confirmed = await ctx.events(bob.id, 'allocation.confirmed');
    expect(confirmed.map((e) => e.data)).toContainEqual(
      expect.objectContaining({
        investor_id: 'inv_full',
        offer_id: offer.id,
        shares_allocated: 400,
        amount_allocated: 1_000,
        currency: 'gbp',
      }),
    );
  });

  it('min_then_pro_rata gives every investor the minimum first', async () => {
    const offer = await liveOffer({ price_per_share: 1, minimum_investment: 1 });
    await indicate(alice, offer, 'inv_small', 1_000); // 10 shares
    await indicate(alice, offer, 'inv_big', 100_000); // 1000 shares
    await close(offer);
    const res = await run(offer.id, { shares_available: 110, policy: 'min_then_pro_rata', minimum_allocation_shares: 20 });
    expect(res.statusCode).toBe(201);
    const all = res.json<{ allocations: AllocationJson[] }>().allocations;
    const by = Object.fromEntries(all.map((a) => [a.investor_id, a]));
    expect(by['inv_small']).toMatchObject({ shares_allocated: 10, outcome: 'confirmed', method: 'min_then_pro_rata' });
    expect(by['inv_big']).toMatchObject({ shares_allocated: 100, outcome: 'scaled', scaling_factor: 0.1 });
  });

  it('validates the request', async () => {
    const offer = await liveOffer();
    await close(offer);
    const cases: Array<[Record<string, unknown>, number, string, string]> = [
      [{ policy: 'pro_rata' }, 400, 'shares_available', 'parameter_missing'],
      [{ shares_available: 1.5, policy: 'pro_rata' }, 400, 'shares_available', 'parameter_invalid'],
      [{ shares_available: 10, policy: 'lottery' }, 400, 'policy', 'parameter_invalid'],
      [{ shares_available: 10, policy: 'min_then_pro_rata' }, 400, 'minimum_allocation_shares', 'parameter_missing'],
      [
        { shares_available: 10, policy: 'pro_rata', minimum_allocation_shares: 5 },
        400,
        'minimum_allocation_shares',
        'parameter_invalid',
      ],
      [{ shares_available: 2_000_000, policy: 'pro_rata' }, 400, 'shares_available', 'parameter_invalid'],
    ];
    for (const [payload, status, param, code] of cases) {
      const res = await run(offer.id, payload);
      expect(res.statusCode).toBe(status);
      expect(res.json<ErrorJson>().error).toMatchObject({ param, code });
    }
    expect((await run('offer_nope', { shares_available: 1, policy: 'pro_rata' })).statusCode).toBe(404);
    const partner = await ctx.inject({
      method: 'POST',
      url: `/admin/v1/offers/${offer.id}/allocations`,
      headers: alice.auth,
      payload: { shares_available: 1, policy: 'pro_rata' },
    });
    expect(partner.statusCode).toBe(401);
  });

  it('an offer closed before any indication allocates nothing', async () => {
    const now = Date.now();
    const offer = await ctx.newOffer({ opens_at: iso(now - 2 * HOUR), closes_at: iso(now - HOUR) });
    const res = await run(offer.id, { shares_available: 10, policy: 'pro_rata' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ shares_allocated: 0, allocations: [] });
  });
});
