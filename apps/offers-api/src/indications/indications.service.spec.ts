import { HOUR, offersDomain, partner, rejection, T0 } from '../../../../test/fakes/offers-api/offers-domain';
import type { IndicationCreateDto } from './dto/indication.dto';

const TERMS = '2026-11-01';
const A = partner('partner_a');

const body = (overrides: Partial<IndicationCreateDto> = {}): IndicationCreateDto => ({
  investor_id: 'inv_8842',
  amount: 100_000,
  currency: 'gbp',
  terms_accepted: true,
  terms_version: TERMS,
  ...overrides,
});

/** A live gbp offer (minimum 250.00) in partner_a's agreement, with terms published. */
function world() {
  const domain = offersDomain();
  domain.db.addTerms(TERMS, new Date(T0 - HOUR));
  domain.db.addOffer({ id: 'offer_1', status: 'live', minimumInvestment: '250', closesAt: new Date(T0 + HOUR) });
  domain.db.agree('partner_a', 'offer_1');
  return domain;
}

describe('IndicationsService', () => {
  describe('create', () => {
    it('records the indication and its indication.received event in one transaction', async () => {
      const { indications, db, transactions } = world();
      const created = await indications.create(A, 'offer_1', body());
      expect(created).toMatchObject({
        offer_id: 'offer_1',
        investor_id: 'inv_8842',
        amount: 100_000,
        currency: 'gbp',
        terms_version: TERMS,
        status: 'received',
        created_at: new Date(T0).toISOString(),
      });
      expect(created.id).toMatch(/^ind_/);
      expect(db.indications.get(created.id)).toMatchObject({ partnerId: 'partner_a', status: 'received' });
      expect(db.outbox).toEqual([{ partnerId: 'partner_a', event: 'indication.received', data: created }]);
      expect(transactions.runs).toHaveLength(1);
    });

    it('accepts exactly the minimum investment in minor units', async () => {
      const { indications } = world();
      await expect(indications.create(A, 'offer_1', body({ amount: 25_000 }))).resolves.toMatchObject({ amount: 25_000 });
    });

    it('404 for an offer outside the agreement, even one that exists; nothing recorded', async () => {
      const { indications, db } = world();
      db.addOffer({ id: 'offer_2', status: 'live' });
      db.agree('partner_b', 'offer_2');
      for (const id of ['offer_2', 'offer_nope']) {
        expect(await rejection(indications.create(A, id, body()))).toMatchObject({ code: 'resource_missing', status: 404 });
      }
      expect(db.indications.size).toBe(0);
      expect(db.outbox).toHaveLength(0);
    });

    it('400 terms_not_accepted unless terms_accepted is true', async () => {
      const { indications } = world();
      expect(await rejection(indications.create(A, 'offer_1', body({ terms_accepted: false })))).toMatchObject({
        code: 'terms_not_accepted',
        status: 400,
        param: 'terms_accepted',
      });
    });

    it('400 terms_version_invalid for a version that is not the current one, naming it', async () => {
      const { indications, db } = world();
      db.addTerms('2026-12-01', new Date(T0 - 1_000));
      expect(await rejection(indications.create(A, 'offer_1', body({ terms_version: TERMS })))).toMatchObject({
        code: 'terms_version_invalid',
        status: 400,
        param: 'terms_version',
        details: { current_version: '2026-12-01' },
      });
      await expect(indications.create(A, 'offer_1', body({ terms_version: '2026-12-01' }))).resolves.toBeDefined();
    });

    it('400 terms_version_invalid while no terms are published', async () => {
      const { indications, db } = world();
      db.terms = [];
      expect(await rejection(indications.create(A, 'offer_1', body()))).toMatchObject({
        code: 'terms_version_invalid',
        details: {},
      });
    });

    it("400 parameter_invalid on currency when it is not the offer's", async () => {
      const { indications } = world();
      expect(await rejection(indications.create(A, 'offer_1', body({ currency: 'eur' })))).toMatchObject({
        code: 'parameter_invalid',
        status: 400,
        param: 'currency',
      });
    });

    it('400 amount_too_small below minimum_investment × 100, stating the minimum in minor units', async () => {
      const { indications, db } = world();
      db.updateOffer('offer_1', { minimumInvestment: '250.50' });
      expect(await rejection(indications.create(A, 'offer_1', body({ amount: 25_049 })))).toMatchObject({
        code: 'amount_too_small',
        status: 400,
        param: 'amount',
        details: { minimum_amount: 25_050 },
      });
    });

    it('400 amount_above_maximum above maximum_investment × 100, stating the maximum; exactly the maximum is accepted', async () => {
      const { indications, db } = world();
      db.updateOffer('offer_1', { maximumInvestment: '1000.50' });
      expect(await rejection(indications.create(A, 'offer_1', body({ amount: 100_051 })))).toMatchObject({
        code: 'amount_above_maximum',
        status: 400,
        param: 'amount',
        details: { maximum_amount: 100_050 },
      });
      expect(db.indications.size).toBe(0);
      await expect(indications.create(A, 'offer_1', body({ amount: 100_050 }))).resolves.toMatchObject({ amount: 100_050 });
    });

    it.each([
      ['upcoming', 'upcoming', T0 + HOUR],
      ['closed', 'closed', T0 - HOUR],
    ] as const)('409 offer_not_live on an offer that is %s', async (_, status, closesAt) => {
      const { indications, db } = world();
      db.updateOffer('offer_1', { status, closesAt: new Date(closesAt) });
      expect(await rejection(indications.create(A, 'offer_1', body()))).toMatchObject({
        code: 'offer_not_live',
        status: 409,
        details: { offer_status: status },
      });
      expect(db.indications.size).toBe(0);
    });

    it('409 offer_not_live (closed) once closes_at has passed, before the close job ran', async () => {
      const { indications, clock, db } = world();
      clock.set(T0 + HOUR);
      expect(db.offers.get('offer_1')?.status).toBe('live');
      expect(await rejection(indications.create(A, 'offer_1', body()))).toMatchObject({
        code: 'offer_not_live',
        details: { offer_status: 'closed' },
      });
      clock.set(T0 + HOUR - 1);
      await expect(indications.create(A, 'offer_1', body())).resolves.toBeDefined();
    });

    it('checks from the request to the state: terms before amount before the offer being live', async () => {
      const { indications, db } = world();
      db.updateOffer('offer_1', { status: 'closed' });
      const wrong = body({ terms_version: 'old', amount: 1 });
      expect((await rejection(indications.create(A, 'offer_1', wrong))).code).toBe('terms_version_invalid');
      expect((await rejection(indications.create(A, 'offer_1', { ...wrong, terms_version: TERMS }))).code).toBe(
        'amount_too_small',
      );
      expect((await rejection(indications.create(A, 'offer_1', body()))).code).toBe('offer_not_live');
    });
  });

  describe('list', () => {
    it("lists only the caller's indications on the offer, oldest first", async () => {
      const { indications, db, clock } = world();
      db.agree('partner_b', 'offer_1');
      const first = await indications.create(A, 'offer_1', body());
      clock.advance(1_000);
      await indications.create(partner('partner_b'), 'offer_1', body());
      const second = await indications.create(A, 'offer_1', body({ investor_id: 'inv_2' }));
      expect(await indications.list(A, 'offer_1')).toEqual({ indications: [first, second], total: 2 });
    });

    it('404 for an offer outside the agreement', async () => {
      const { indications, db } = world();
      db.addOffer({ id: 'offer_2' });
      expect(await rejection(indications.list(A, 'offer_2'))).toMatchObject({ code: 'resource_missing', status: 404 });
    });
  });

  describe('amend', () => {
    it('changes the amount of a received indication and fires indication.updated with the previous amount, in one transaction', async () => {
      const { indications, db, transactions } = world();
      const created = await indications.create(A, 'offer_1', body());
      const updated = await indications.amend(A, 'offer_1', created.id, { amount: 150_000 });
      expect(updated).toEqual({ ...created, amount: 150_000 });
      expect(db.indications.get(created.id)?.amount).toBe(150_000);
      expect(db.outbox.at(-1)).toEqual({
        partnerId: 'partner_a',
        event: 'indication.updated',
        data: { ...updated, previous_amount: 100_000 },
      });
      expect(transactions.runs).toHaveLength(2);
      // the same amount again changes nothing and fires nothing
      const outboxBefore = db.outbox.length;
      expect(await indications.amend(A, 'offer_1', created.id, { amount: 150_000 })).toEqual(updated);
      expect(db.outbox).toHaveLength(outboxBefore);
    });

    it('applies the submit rules: below the minimum, above the maximum → 400; nothing changes', async () => {
      const { indications, db } = world();
      db.updateOffer('offer_1', { maximumInvestment: '2000' });
      const created = await indications.create(A, 'offer_1', body());
      expect(await rejection(indications.amend(A, 'offer_1', created.id, { amount: 24_999 }))).toMatchObject({
        code: 'amount_too_small',
        param: 'amount',
      });
      expect(await rejection(indications.amend(A, 'offer_1', created.id, { amount: 200_001 }))).toMatchObject({
        code: 'amount_above_maximum',
        param: 'amount',
        details: { maximum_amount: 200_000 },
      });
      expect(db.indications.get(created.id)?.amount).toBe(100_000);
      expect(db.outbox.filter((e) => e.event === 'indication.updated')).toHaveLength(0);
    });

    it('409 offer_not_live once the offer has closed, 409 indication_cancelled on a cancelled one', async () => {
      const { indications, db, clock } = world();
      const created = await indications.create(A, 'offer_1', body());
      const gone = await indications.create(A, 'offer_1', body({ investor_id: 'inv_gone' }));
      await indications.cancel(A, 'offer_1', gone.id);
      expect(await rejection(indications.amend(A, 'offer_1', gone.id, { amount: 150_000 }))).toMatchObject({
        code: 'indication_cancelled',
        status: 409,
      });
      clock.set(T0 + HOUR);
      expect(await rejection(indications.amend(A, 'offer_1', created.id, { amount: 150_000 }))).toMatchObject({
        code: 'offer_not_live',
        status: 409,
        details: { offer_status: 'closed' },
      });
      expect(db.indications.get(created.id)?.amount).toBe(100_000);
    });

    it("404 for another partner's indication", async () => {
      const { indications, db } = world();
      db.agree('partner_b', 'offer_1');
      const theirs = await indications.create(partner('partner_b'), 'offer_1', body());
      expect(await rejection(indications.amend(A, 'offer_1', theirs.id, { amount: 150_000 }))).toMatchObject({
        code: 'resource_missing',
        status: 404,
      });
      expect(await rejection(indications.get(A, theirs.id))).toMatchObject({ code: 'resource_missing', status: 404 });
      await expect(indications.get(partner('partner_b'), theirs.id)).resolves.toEqual(theirs);
    });
  });

  describe('cancel', () => {
    it('cancels a received indication while the offer is live; cancelling again answers the same', async () => {
      const { indications, db } = world();
      const created = await indications.create(A, 'offer_1', body());
      const cancelled = await indications.cancel(A, 'offer_1', created.id);
      expect(cancelled).toEqual({ ...created, status: 'cancelled' });
      expect(db.indications.get(created.id)).toMatchObject({ status: 'cancelled', cancelledAt: new Date(T0) });
      db.updateOffer('offer_1', { status: 'closed' });
      expect(await indications.cancel(A, 'offer_1', created.id)).toEqual(cancelled);
    });

    it('409 offer_not_live once the offer has closed; the indication stays received', async () => {
      const { indications, db, clock } = world();
      const created = await indications.create(A, 'offer_1', body());
      clock.set(T0 + HOUR);
      expect(await rejection(indications.cancel(A, 'offer_1', created.id))).toMatchObject({
        code: 'offer_not_live',
        status: 409,
        details: { offer_status: 'closed' },
      });
      expect(db.indications.get(created.id)?.status).toBe('received');
    });

    it("404 for another partner's indication, an unknown one, or an offer outside the agreement", async () => {
      const { indications, db } = world();
      db.agree('partner_b', 'offer_1');
      const theirs = await indications.create(partner('partner_b'), 'offer_1', body());
      expect(await rejection(indications.cancel(A, 'offer_1', theirs.id))).toMatchObject({
        code: 'resource_missing',
        status: 404,
      });
      expect(await rejection(indications.cancel(A, 'offer_1', 'ind_nope'))).toMatchObject({ code: 'resource_missing' });
      db.addOffer({ id: 'offer_2' });
      expect(await rejection(indications.cancel(A, 'offer_2', theirs.id))).toMatchObject({ code: 'resource_missing' });
      expect(db.indications.get(theirs.id)?.status).toBe('received');
    });
  });
});
