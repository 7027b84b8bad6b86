import { jest } from '@jest/globals';
import { HOUR, offersDomain, partner, rejection, T0 } from '../../../../test/fakes/offers-api/offers-domain';

/**
 * A closed offer at 2.50 a share (1,000 shares offered) and its indications:
 * partner_a asks for 400 + 200 shares, partner_b for 100; one cancelled indication.
 */
function world() {
  const domain = offersDomain();
  const { db } = domain;
  db.addOffer({ id: 'offer_1', status: 'closed', pricePerShare: '2.5', sharesOffered: 1_000, closesAt: new Date(T0 - HOUR) });
  db.agree('partner_a', 'offer_1');
  db.agree('partner_b', 'offer_1');
  const at = (s: number): Date => new Date(T0 - 2 * HOUR + s * 1_000);
  db.addIndication({
    id: 'ind_a1',
    offerId: 'offer_1',
    partnerId: 'partner_a',
    investorId: 'inv_a1',
    amount: 100_000,
    createdAt: at(1),
  });
  db.addIndication({
    id: 'ind_a2',
    offerId: 'offer_1',
    partnerId: 'partner_a',
    investorId: 'inv_a2',
    amount: 50_000,
    createdAt: at(2),
  });
  db.addIndication({
    id: 'ind_b1',
    offerId: 'offer_1',
    partnerId: 'partner_b',
    investorId: 'inv_b1',
    amount: 25_049,
    createdAt: at(3),
  });
  db.addIndication({
    id: 'ind_x',
    offerId: 'offer_1',
    partnerId: 'partner_b',
    amount: 900_000,
    status: 'cancelled',
    cancelledAt: at(4),
    createdAt: at(4),
  });
  return domain;
}

describe('AllocationsService', () => {
  describe('run', () => {
    it('scales an oversubscribed offer pro rata: rows, totals, events and the allocated mark in one 60 s transaction', async () => {
      const { allocations, db, transactions } = world();
      const result = await allocations.run('offer_1', { policy: 'pro_rata', shares_available: 350 });

      expect(result).toMatchObject({ offer_id: 'offer_1', policy: 'pro_rata', shares_available: 350 });
      expect(result.shares_requested).toBe(700);
      expect(result.shares_allocated).toBe(350);
      expect(result.allocations.map((a) => [a.indication_id, a.shares_requested, a.shares_allocated])).toEqual([
        ['ind_a1', 400, 200],
        ['ind_a2', 200, 100],
        ['ind_b1', 100, 50],
      ]);
      expect(result.allocations[2]).toMatchObject({
        investor_id: 'inv_b1',
        amount_requested: 25_049,
        amount_allocated: 125,
        amount_refunded: 12_549,
        scaling_factor: 0.5,
        method: 'pro_rata',
        outcome: 'scaled',
        currency: 'gbp',
        created_at: new Date(T0).toISOString(),
      });

      expect(db.allocations).toHaveLength(3);
      expect(db.offers.get('offer_1')?.allocatedAt).toEqual(new Date(T0));
      expect(db.outbox.map((e) => [e.partnerId, e.event])).toEqual([
        ['partner_a', 'allocation.scaled'],
        ['partner_a', 'allocation.scaled'],
        ['partner_b', 'allocation.scaled'],
      ]);
      const b1 = result.allocations[2];
      expect(db.outbox[2]?.data).toEqual({
        investor_id: 'inv_b1',
        offer_id: 'offer_1',
        shares_allocated: 50,
        amount_allocated: 125,
        currency: 'gbp',
        amount_requested: 25_049,
        scaling_factor: 0.5,
        indication_id: 'ind_b1',
        allocation_id: b1?.id,
      });
      expect(transactions.runs.map((r) => r.options)).toEqual([{ timeoutMs: 60_000 }]);
    });

    it('fills everyone when demand fits: allocation.confirmed, nothing refunded but the remainder of a share', async () => {
      const { allocations, db } = world();
      const result = await allocations.run('offer_1', { policy: 'pro_rata', shares_available: 1_000 });
      expect(result.shares_allocated).toBe(result.shares_requested);
      expect(result.allocations.every((a) => a.outcome === 'confirmed' && a.scaling_factor === 1)).toBe(true);
      expect(result.allocations.map((a) => a.amount_refunded)).toEqual([0, 0, 49]);
      expect(new Set(db.outbox.map((e) => e.event))).toEqual(new Set(['allocation.confirmed']));
    });

    it('min_then_pro_rata gives each applicant the minimum first', async () => {
      const { allocations } = world();
      const result = await allocations.run('offer_1', {
        policy: 'min_then_pro_rata',
        shares_available: 160,
        minimum_allocation_shares: 40,
      });
      // 3 × 40 first; 40 left over residuals 360, 160, 60 (580): 24.8, 11.0, 4.1 → 24 + 11 + 4 = 39, +1 to the largest remainder
      expect(result.allocations.map((a) => a.shares_allocated)).toEqual([65, 51, 44]);
      expect(result.shares_allocated).toBe(160);
    });

    it('400 parameter_missing: min_then_pro_rata needs minimum_allocation_shares', async () => {
      const { allocations, db } = world();
      expect(await rejection(allocations.run('offer_1', { policy: 'min_then_pro_rata', shares_available: 10 }))).toMatchObject({
        code: 'parameter_missing',
        status: 400,
        param: 'minimum_allocation_shares',
      });
      expect(db.offers.get('offer_1')?.allocatedAt).toBeNull();
    });

    it('400 parameter_invalid: minimum_allocation_shares only with min_then_pro_rata', async () => {
      const { allocations } = world();
      expect(
        await rejection(allocations.run('offer_1', { policy: 'pro_rata', shares_available: 10, minimum_allocation_shares: 1 })),
      ).toMatchObject({ code: 'parameter_invalid', param: 'minimum_allocation_shares' });
    });

    it('400 parameter_invalid: shares_available at most shares_offered', async () => {
      const { allocations } = world();
      expect(await rejection(allocations.run('offer_1', { policy: 'pro_rata', shares_available: 1_001 }))).toMatchObject({
        code: 'parameter_invalid',
        status: 400,
        param: 'shares_available',
      });
    });

    it('404 for an unknown offer', async () => {
      const { allocations } = world();
      expect(await rejection(allocations.run('offer_nope', { policy: 'pro_rata', shares_available: 1 }))).toMatchObject({
        code: 'resource_missing',
        status: 404,
      });
    });

    it.each(['live', 'upcoming'] as const)('409 offer_not_closed for an offer that is %s; nothing written', async (status) => {
      const { allocations, db } = world();
      db.updateOffer('offer_1', { status });
      expect(await rejection(allocations.run('offer_1', { policy: 'pro_rata', shares_available: 10 }))).toMatchObject({
        code: 'offer_not_closed',
        status: 409,
      });
      expect(db.allocations).toHaveLength(0);
      expect(db.outbox).toHaveLength(0);
    });

    it('409 offer_already_allocated on a second run; the first allocation stands', async () => {
      const { allocations, db } = world();
      await allocations.run('offer_1', { policy: 'pro_rata', shares_available: 350 });
      const [rows, events] = [db.allocations.length, db.outbox.length];
      expect(await rejection(allocations.run('offer_1', { policy: 'pro_rata', shares_available: 700 }))).toMatchObject({
        code: 'offer_already_allocated',
        status: 409,
      });
      expect([db.allocations.length, db.outbox.length]).toEqual([rows, events]);
    });

    it('409 offer_already_allocated for a run that loses the claim to a concurrent one', async () => {
      const { allocations, db, repositories } = world();
      // Read closed and unallocated, then another run claims it first.
      jest.spyOn(repositories.allocations, 'claimRun').mockResolvedValueOnce(false);
      expect(await rejection(allocations.run('offer_1', { policy: 'pro_rata', shares_available: 350 }))).toMatchObject({
        code: 'offer_already_allocated',
        status: 409,
      });
      expect(db.allocations).toHaveLength(0);
    });

    it('a failure after the claim rolls the claim back with everything else', async () => {
      const { allocations, db, repositories } = world();
      jest.spyOn(repositories.allocations, 'insert').mockRejectedValueOnce(new Error('connection lost'));
      await expect(allocations.run('offer_1', { policy: 'pro_rata', shares_available: 350 })).rejects.toThrow('connection lost');
      expect(db.offers.get('offer_1')?.allocatedAt).toBeNull();
      expect(db.outbox).toHaveLength(0);
      await expect(allocations.run('offer_1', { policy: 'pro_rata', shares_available: 350 })).resolves.toBeDefined();
    });
  });

  describe('listForPartner', () => {
    it("is empty before the run, then lists only the caller's allocations", async () => {
      const { allocations } = world();
      expect(await allocations.listForPartner(partner('partner_b'), 'offer_1')).toEqual({ allocations: [], total: 0 });
      const run = await allocations.run('offer_1', { policy: 'pro_rata', shares_available: 350 });
      const listed = await allocations.listForPartner(partner('partner_a'), 'offer_1');
      // One run stamps every row with the same time: the order is by id then, so compare as a set.
      expect(listed.total).toBe(2);
      expect(listed.allocations).toHaveLength(2);
      expect(listed.allocations).toEqual(
        expect.arrayContaining(run.allocations.filter((a) => a.indication_id.startsWith('ind_a'))),
      );
    });

    it('404 for an offer outside the agreement', async () => {
      const { allocations } = world();
      expect(await rejection(allocations.listForPartner(partner('partner_c'), 'offer_1'))).toMatchObject({
        code: 'resource_missing',
        status: 404,
      });
    });
  });
});
