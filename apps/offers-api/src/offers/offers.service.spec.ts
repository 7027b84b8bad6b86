import { jest } from '@jest/globals';
import { HOUR, offersDomain, partner, rejection, T0 } from '../../../../test/fakes/offers-api/offers-domain';
import { LIFECYCLE_QUEUE } from '../lifecycle/lifecycle.jobs';
import type { OfferCreateDto, OfferListQueryDto } from './dto/offer.dto';

const iso = (ms: number): string => new Date(ms).toISOString();

const createDto = (overrides: Partial<OfferCreateDto> = {}): OfferCreateDto => ({
  company: 'Acme Robotics plc',
  ticker: 'ACME',
  type: 'ipo',
  price_per_share: 2.5,
  currency: 'gbp',
  minimum_investment: 250,
  shares_offered: 1_000_000,
  opens_at: iso(T0 + 24 * HOUR),
  closes_at: iso(T0 + 72 * HOUR),
  ...overrides,
});

const query = (overrides: Partial<OfferListQueryDto> = {}): OfferListQueryDto => ({ limit: 20, page: 1, ...overrides });

describe('OffersService', () => {
  describe('partner reads', () => {
    it('lists offers in the agreement only: live and upcoming by default, soonest close first', async () => {
      const { offers, db } = offersDomain();
      db.addOffer({ id: 'offer_late', status: 'live', closesAt: new Date(T0 + 9 * HOUR) });
      db.addOffer({ id: 'offer_soon', status: 'upcoming', closesAt: new Date(T0 + 5 * HOUR) });
      db.addOffer({ id: 'offer_closed', status: 'closed', closesAt: new Date(T0 - HOUR) });
      db.addOffer({ id: 'offer_other', status: 'live' });
      for (const id of ['offer_late', 'offer_soon', 'offer_closed']) db.agree('partner_a', id);
      db.agree('partner_b', 'offer_other');

      const page = await offers.list(partner('partner_a'), query());
      expect(page.offers.map((o) => o.id)).toEqual(['offer_soon', 'offer_late']);
      expect(page).toMatchObject({ total: 2, page: 1 });
      expect((await offers.list(partner('partner_a'), query({ status: 'closed' }))).offers.map((o) => o.id)).toEqual([
        'offer_closed',
      ]);
    });

    it('filters by type and pages with the total over all pages', async () => {
      const { offers, db } = offersDomain();
      for (let i = 1; i <= 5; i++) {
        db.addOffer({ id: `offer_${i}`, type: i === 5 ? 'placing' : 'ipo', closesAt: new Date(T0 + i * HOUR) });
        db.agree('partner_a', `offer_${i}`);
      }
      const second = await offers.list(partner('partner_a'), query({ type: 'ipo', limit: 3, page: 2 }));
      expect(second).toMatchObject({ total: 4, page: 2 });
      expect(second.offers.map((o) => o.id)).toEqual(['offer_4']);
    });

    it('answers an offer in the agreement as the API shows it', async () => {
      const { offers, db } = offersDomain();
      db.addOffer({ id: 'offer_1', pricePerShare: '2.5000', minimumInvestment: '250.00', opensAt: new Date(T0 - HOUR) });
      db.agree('partner_a', 'offer_1');
      expect(await offers.get(partner('partner_a'), 'offer_1')).toEqual({
        id: 'offer_1',
        company: 'Acme Robotics plc',
        ticker: 'ACME',
        type: 'ipo',
        status: 'live',
        price_per_share: 2.5,
        currency: 'gbp',
        minimum_investment: 250,
        maximum_investment: null,
        opens_at: iso(T0 - HOUR),
        closes_at: iso(T0 + 7 * 24 * HOUR),
        shares_offered: 1_000_000,
        documents: [],
        updated_at: iso(T0),
      });
    });

    it('answers 404 for an offer outside the agreement, whether or not it exists', async () => {
      const { offers, db } = offersDomain();
      db.addOffer({ id: 'offer_1' });
      db.agree('partner_b', 'offer_1');
      expect(await rejection(offers.get(partner('partner_a'), 'offer_1'))).toMatchObject({
        code: 'resource_missing',
        status: 404,
      });
      expect(await rejection(offers.requireVisible('partner_a', 'offer_nope'))).toMatchObject({
        code: 'resource_missing',
        status: 404,
      });
      await expect(offers.requireVisible('partner_b', 'offer_1')).resolves.toMatchObject({ id: 'offer_1' });
    });
  });

  describe('adminCreate', () => {
    it('stores an upcoming offer in a transaction and schedules its open, closing-soon and close jobs', async () => {
      const { offers, db, queues, transactions } = offersDomain();
      const created = await offers.adminCreate(createDto());
      expect(created).toMatchObject({ status: 'upcoming', price_per_share: 2.5, minimum_investment: 250 });
      expect(db.offers.get(created.id)).toMatchObject({ status: 'upcoming', pricePerShare: '2.5', closingSoonNotifiedAt: null });
      expect(transactions.runs.length).toBeGreaterThanOrEqual(1);
      const jobs = [...queues.jobs(LIFECYCLE_QUEUE.name).values()];
      expect(jobs.map((j) => [j.name, j.opts.delay])).toEqual([
        ['open', 24 * HOUR],
        ['closing_soon', 71 * HOUR],
        ['close', 72 * HOUR],
      ]);
      expect(jobs.map((j) => j.data)).toEqual([{ offerId: created.id }, { offerId: created.id }, { offerId: created.id }]);
    });

    it('an offer whose opening is past is live at once', async () => {
      const { offers, db } = offersDomain();
      const created = await offers.adminCreate(createDto({ opens_at: iso(T0 - HOUR) }));
      expect(created.status).toBe('live');
      expect(db.offers.get(created.id)?.status).toBe('live');
    });

    it('400 parameter_invalid when closes_at is not after opens_at; nothing stored', async () => {
      const { offers, db } = offersDomain();
      const at = iso(T0 + HOUR);
      expect(await rejection(offers.adminCreate(createDto({ opens_at: at, closes_at: at })))).toMatchObject({
        code: 'parameter_invalid',
        status: 400,
        param: 'closes_at',
      });
      expect(db.offers.size).toBe(0);
    });

    it('400 parameter_invalid when the minimum investment buys less than one share', async () => {
      const { offers } = offersDomain();
      expect(await rejection(offers.adminCreate(createDto({ price_per_share: 10.0001, minimum_investment: 10 })))).toMatchObject({
        code: 'parameter_invalid',
        param: 'minimum_investment',
      });
      await expect(offers.adminCreate(createDto({ price_per_share: 10, minimum_investment: 10 }))).resolves.toBeDefined();
    });

    it('answers even when Redis refuses the lifecycle jobs (the sweep enqueues them later)', async () => {
      const { offers, db, queues } = offersDomain();
      queues.failing = true;
      const created = await offers.adminCreate(createDto());
      expect(db.offers.has(created.id)).toBe(true);
      expect(queues.jobs(LIFECYCLE_QUEUE.name).size).toBe(0);
    });
  });

  describe('adminUpdate', () => {
    it('404 for an unknown offer', async () => {
      const { offers } = offersDomain();
      expect(await rejection(offers.adminUpdate('offer_nope', { company: 'X' }))).toMatchObject({
        code: 'resource_missing',
        status: 404,
      });
    });

    it('409 offer_not_editable for a closed offer', async () => {
      const { offers, db } = offersDomain();
      db.addOffer({ id: 'offer_1', status: 'closed' });
      expect(await rejection(offers.adminUpdate('offer_1', { company: 'X' }))).toMatchObject({
        code: 'offer_not_editable',
        status: 409,
      });
      expect(db.offers.get('offer_1')?.company).toBe('Acme Robotics plc');
    });

    it('409 offer_not_editable when the offer closed between the read and the write', async () => {
      const { offers, db, repositories } = offersDomain();
      db.addOffer({ id: 'offer_1', status: 'live' });
      jest.spyOn(repositories.offers, 'adminUpdate').mockResolvedValueOnce(undefined);
      expect(await rejection(offers.adminUpdate('offer_1', { company: 'X' }))).toMatchObject({ code: 'offer_not_editable' });
    });

    it.each([
      ['price_per_share', { price_per_share: 3 }],
      ['minimum_investment', { minimum_investment: 300 }],
      ['currency', { currency: 'eur' as const }],
      ['opens_at', { opens_at: iso(T0 - 2 * HOUR) }],
    ])('a live offer keeps its terms: 409 offer_not_editable on %s', async (param, change) => {
      const { offers, db } = offersDomain();
      db.addOffer({ id: 'offer_1', status: 'live', opensAt: new Date(T0 - HOUR) });
      expect(await rejection(offers.adminUpdate('offer_1', change))).toMatchObject({
        code: 'offer_not_editable',
        status: 409,
        param,
      });
    });

    it('a live offer takes the same terms in another spelling, and changes company, shares and close', async () => {
      const { offers, db } = offersDomain();
      db.addOffer({ id: 'offer_1', status: 'live', opensAt: new Date(T0 - HOUR), pricePerShare: '2.5' });
      const updated = await offers.adminUpdate('offer_1', {
        price_per_share: 2.5,
        opens_at: iso(T0 - HOUR).replace('Z', '+00:00'),
        company: 'Acme Holdings plc',
        shares_offered: 5,
        closes_at: iso(T0 + 10 * HOUR),
      });
      expect(updated).toMatchObject({ company: 'Acme Holdings plc', shares_offered: 5, closes_at: iso(T0 + 10 * HOUR) });
    });

    it('400 parameter_invalid when the change puts the close before the opening', async () => {
      const { offers, db } = offersDomain();
      db.addOffer({ id: 'offer_1', status: 'upcoming', opensAt: new Date(T0 + HOUR), closesAt: new Date(T0 + 5 * HOUR) });
      expect(await rejection(offers.adminUpdate('offer_1', { closes_at: iso(T0 + HOUR) }))).toMatchObject({
        code: 'parameter_invalid',
        param: 'closes_at',
      });
    });

    it('moving the close forgets a closing-soon notice sent and swaps the old jobs for the new plan', async () => {
      const { offers, db, queues } = offersDomain();
      const created = await offers.adminCreate(createDto());
      db.updateOffer(created.id, { closingSoonNotifiedAt: new Date(T0) });
      const jobIds = (): string[] => [...queues.jobs(LIFECYCLE_QUEUE.name).keys()];
      const oldClose = jobIds().find((id) => id.includes('.close.'));

      await offers.adminUpdate(created.id, { closes_at: iso(T0 + 96 * HOUR) });

      expect(db.offers.get(created.id)?.closingSoonNotifiedAt).toBeNull();
      expect(oldClose).toBeDefined();
      expect(jobIds()).not.toContain(oldClose);
      expect(jobIds()).toContain(`${created.id}.close.${T0 + 96 * HOUR}`);
      expect(jobIds()).toContain(`${created.id}.closing_soon.${T0 + 95 * HOUR}`);
    });

    it('a change that makes the close due closes the offer at once and tells the agreement partners', async () => {
      const { offers, db } = offersDomain();
      db.addOffer({ id: 'offer_1', status: 'live', opensAt: new Date(T0 - 2 * HOUR), closesAt: new Date(T0 + HOUR) });
      db.agree('partner_a', 'offer_1');
      const updated = await offers.adminUpdate('offer_1', { closes_at: iso(T0 - HOUR) });
      expect(updated.status).toBe('closed');
      expect(db.outbox.map((e) => [e.partnerId, e.event])).toEqual([['partner_a', 'offer.closed']]);
    });
  });

  describe('addToAgreement', () => {
    it('adds the offer once: a second call answers the same time', async () => {
      const { offers, db, clock } = offersDomain();
      db.addPartner('partner_a');
      db.addOffer({ id: 'offer_1' });
      const first = await offers.addToAgreement('partner_a', 'offer_1');
      expect(first).toEqual({ partner_id: 'partner_a', offer_id: 'offer_1', created_at: iso(T0) });
      clock.advance(HOUR);
      expect(await offers.addToAgreement('partner_a', 'offer_1')).toEqual(first);
      expect(db.agreements).toHaveLength(1);
      await expect(offers.requireVisible('partner_a', 'offer_1')).resolves.toBeDefined();
    });

    it('404 on id for an unknown partner, 404 on offer_id for an unknown offer', async () => {
      const { offers, db } = offersDomain();
      db.addPartner('partner_a');
      db.addOffer({ id: 'offer_1' });
      expect(await rejection(offers.addToAgreement('partner_nope', 'offer_1'))).toMatchObject({
        code: 'resource_missing',
        status: 404,
        param: 'id',
      });
      expect(await rejection(offers.addToAgreement('partner_a', 'offer_nope'))).toMatchObject({
        code: 'resource_missing',
        status: 404,
        param: 'offer_id',
      });
      expect(db.agreements).toHaveLength(0);
    });
  });
});
