import { HOUR, MINUTE, offersDomain, T0 } from '../../../../test/fakes/offers-api/offers-domain';
import { LIFECYCLE_QUEUE } from './lifecycle.jobs';

/** An upcoming offer opening at T0 + 1 h and closing at T0 + 5 h, in two partners' agreements. */
function world() {
  const domain = offersDomain();
  domain.db.addOffer({ id: 'offer_1', status: 'upcoming', opensAt: new Date(T0 + HOUR), closesAt: new Date(T0 + 5 * HOUR) });
  domain.db.agree('partner_b', 'offer_1');
  domain.db.agree('partner_a', 'offer_1');
  return domain;
}

type Domain = ReturnType<typeof world>;
const sent = ({ db }: Domain): Array<[string, string]> => db.outbox.map((e) => [e.event, e.partnerId]);
const jobIds = ({ queues }: Domain): string[] => [...queues.jobs(LIFECYCLE_QUEUE.name).keys()].sort();

describe('LifecycleService', () => {
  describe('advance', () => {
    it('does nothing before the opening', async () => {
      const domain = world();
      domain.clock.set(T0 + HOUR - 1);
      expect((await domain.lifecycle.advance('offer_1'))?.status).toBe('upcoming');
      expect(sent(domain)).toEqual([]);
    });

    it('opens at opens_at and tells every agreement partner once, with the offer as it now is', async () => {
      const domain = world();
      domain.clock.set(T0 + HOUR);
      expect((await domain.lifecycle.advance('offer_1'))?.status).toBe('live');
      expect(sent(domain)).toEqual([
        ['offer.opened', 'partner_a'],
        ['offer.opened', 'partner_b'],
      ]);
      expect(domain.db.outbox[0]?.data).toMatchObject({ id: 'offer_1', status: 'live' });

      domain.clock.advance(MINUTE);
      await domain.lifecycle.advance('offer_1');
      await domain.lifecycle.advance('offer_1');
      expect(sent(domain)).toHaveLength(2);
    });

    it('sends closing_soon an hour before the close and closes at closes_at, each once', async () => {
      const domain = world();
      domain.db.updateOffer('offer_1', { status: 'live' });
      domain.clock.set(T0 + 4 * HOUR - 1);
      await domain.lifecycle.advance('offer_1');
      expect(sent(domain)).toEqual([]);

      domain.clock.set(T0 + 4 * HOUR);
      await domain.lifecycle.advance('offer_1');
      await domain.lifecycle.advance('offer_1');
      expect(domain.db.offers.get('offer_1')?.closingSoonNotifiedAt).toEqual(new Date(T0 + 4 * HOUR));

      domain.clock.set(T0 + 5 * HOUR);
      expect((await domain.lifecycle.advance('offer_1'))?.status).toBe('closed');
      domain.clock.advance(HOUR);
      await domain.lifecycle.advance('offer_1');
      expect(sent(domain).map(([event]) => event)).toEqual([
        'offer.closing_soon',
        'offer.closing_soon',
        'offer.closed',
        'offer.closed',
      ]);
      expect(domain.db.outbox.at(-1)?.data).toMatchObject({ status: 'closed' });
    });

    it('with less than an hour left at opening, opens and warns in the same transaction, in that order', async () => {
      const domain = world();
      domain.db.updateOffer('offer_1', { closesAt: new Date(T0 + HOUR + 30 * MINUTE) });
      domain.clock.set(T0 + HOUR);
      const runs = domain.transactions.runs.length;
      await domain.lifecycle.advance('offer_1');
      expect(domain.transactions.runs.length - runs).toBe(1);
      expect(sent(domain).map(([event]) => event)).toEqual([
        'offer.opened',
        'offer.opened',
        'offer.closing_soon',
        'offer.closing_soon',
      ]);
    });

    it('after missing everything, opens and closes but sends no closing_soon for a close already past', async () => {
      const domain = world();
      domain.clock.set(T0 + 6 * HOUR);
      expect((await domain.lifecycle.advance('offer_1'))?.status).toBe('closed');
      expect(sent(domain).map(([event]) => event)).toEqual(['offer.opened', 'offer.opened', 'offer.closed', 'offer.closed']);
      expect(domain.db.offers.get('offer_1')?.closingSoonNotifiedAt).toBeNull();
    });

    it('answers undefined for an unknown offer and sends nothing', async () => {
      const domain = world();
      expect(await domain.lifecycle.advance('offer_nope')).toBeUndefined();
      expect(sent(domain)).toEqual([]);
    });
  });

  describe('schedule and reschedule', () => {
    it('enqueues each remaining transition at its time, with an id that makes a second enqueue a no-op', async () => {
      const domain = world();
      const offer = domain.db.offers.get('offer_1');
      if (!offer) throw new Error('no offer');
      await domain.lifecycle.schedule(offer);
      await domain.lifecycle.schedule(offer);
      const jobs = [...domain.queues.jobs(LIFECYCLE_QUEUE.name).values()];
      expect(jobs.map((j) => [j.id, j.name, j.opts.delay, j.opts.attempts])).toEqual([
        [`offer_1.open.${T0 + HOUR}`, 'open', HOUR, 5],
        [`offer_1.closing_soon.${T0 + 4 * HOUR}`, 'closing_soon', 4 * HOUR, 5],
        [`offer_1.close.${T0 + 5 * HOUR}`, 'close', 5 * HOUR, 5],
      ]);
    });

    it('enqueues nothing for a closed offer, no closing_soon once it was sent, and a due job without delay', async () => {
      const domain = world();
      const closed = domain.db.updateOffer('offer_1', { status: 'closed' });
      await domain.lifecycle.schedule(closed);
      expect(jobIds(domain)).toEqual([]);
      const warned = domain.db.updateOffer('offer_1', { status: 'live', closingSoonNotifiedAt: new Date(T0) });
      domain.clock.set(T0 + 6 * HOUR);
      await domain.lifecycle.schedule(warned);
      expect([...domain.queues.jobs(LIFECYCLE_QUEUE.name).values()].map((j) => [j.name, j.opts.delay])).toEqual([['close', 0]]);
    });

    it('reschedule drops the jobs of the old plan and keeps those that did not change', async () => {
      const domain = world();
      const before = domain.db.offers.get('offer_1');
      if (!before) throw new Error('no offer');
      await domain.lifecycle.schedule(before);
      const after = domain.db.updateOffer('offer_1', { closesAt: new Date(T0 + 8 * HOUR) });
      await domain.lifecycle.reschedule(before, after);
      expect(jobIds(domain)).toEqual(
        [`offer_1.close.${T0 + 8 * HOUR}`, `offer_1.closing_soon.${T0 + 7 * HOUR}`, `offer_1.open.${T0 + HOUR}`].sort(),
      );
    });
  });

  describe('sweep', () => {
    it('applies the transitions lost jobs missed and re-enqueues the plans of open offers', async () => {
      const domain = world();
      const { db, clock } = domain;
      db.addOffer({ id: 'offer_open_due', status: 'upcoming', opensAt: new Date(T0 - HOUR), closesAt: new Date(T0 + 9 * HOUR) });
      db.addOffer({ id: 'offer_close_due', status: 'live', opensAt: new Date(T0 - 9 * HOUR), closesAt: new Date(T0 - MINUTE) });
      db.addOffer({
        id: 'offer_warn_due',
        status: 'live',
        opensAt: new Date(T0 - 9 * HOUR),
        closesAt: new Date(T0 + 30 * MINUTE),
      });
      db.addOffer({ id: 'offer_done', status: 'closed', closesAt: new Date(T0 - HOUR) });
      for (const id of ['offer_open_due', 'offer_close_due', 'offer_warn_due', 'offer_done']) db.agree('partner_a', id);
      clock.set(T0);

      const result = await domain.lifecycle.sweep();

      expect(result).toEqual({ advanced: 3, scheduled: 3 });
      expect(db.offers.get('offer_open_due')?.status).toBe('live');
      expect(db.offers.get('offer_close_due')?.status).toBe('closed');
      expect(db.offers.get('offer_warn_due')?.closingSoonNotifiedAt).toEqual(new Date(T0));
      expect(db.offers.get('offer_1')?.status).toBe('upcoming');
      expect(db.outbox.map((e) => [e.event, 'id' in e.data ? e.data.id : undefined]).sort()).toEqual(
        [
          ['offer.closed', 'offer_close_due'],
          ['offer.closing_soon', 'offer_warn_due'],
          ['offer.opened', 'offer_open_due'],
        ].sort(),
      );
      // Open offers get their plan back: offer_1 (upcoming) and the two still live.
      const planned = [...domain.queues.jobs(LIFECYCLE_QUEUE.name).values()].map((j) => j.data);
      expect(new Set(planned.map((data) => JSON.stringify(data)))).toEqual(
        new Set(['offer_1', 'offer_open_due', 'offer_warn_due'].map((offerId) => JSON.stringify({ offerId }))),
      );
    });

    it('a second sweep finds nothing to repair and adds no job', async () => {
      const domain = world();
      domain.clock.set(T0 + 2 * HOUR);
      expect(await domain.lifecycle.sweep()).toEqual({ advanced: 1, scheduled: 1 });
      const before = jobIds(domain);
      const events = domain.db.outbox.length;
      expect(await domain.lifecycle.sweep()).toEqual({ advanced: 0, scheduled: 1 });
      expect(jobIds(domain)).toEqual(before);
      expect(domain.db.outbox).toHaveLength(events);
    });
  });
});
