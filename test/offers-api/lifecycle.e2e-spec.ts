import { Clock, PrismaService, QueueRegistry } from '@app/platform';
import { jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { LIFECYCLE_QUEUE } from '../../apps/offers-api/src/lifecycle/lifecycle.jobs';
import { LifecycleService } from '../../apps/offers-api/src/lifecycle/lifecycle.service';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { ADMIN, HOUR, iso, type OfferJson, OffersContext, type OffersApp, type Partner, startOffers, waitFor } from './fixtures';

const LIFECYCLE = ['offer.opened', 'offer.closing_soon', 'offer.closed'];

/** The partner's lifecycle events for one offer, and the time each was written. */
async function lifecycleEvents(
  ctx: OffersContext,
  partnerId: string,
  offerId: string,
): Promise<Array<{ event: string; at: number }>> {
  const rows = await ctx.events(partnerId);
  return rows
    .filter((r) => LIFECYCLE.includes(r.event) && r.data['id'] === offerId)
    .map((r) => ({ event: r.event, at: r.createdAt.getTime() }));
}

function expectOnceEachInOrder(events: Array<{ event: string; at: number }>): void {
  expect(events.map((e) => e.event).sort()).toEqual([...LIFECYCLE].sort());
  const at = (name: string): number => events.find((e) => e.event === name)?.at ?? NaN;
  // opened and closing_soon may share a transaction (less than an hour left at opening)
  expect(at('offer.opened')).toBeLessThanOrEqual(at('offer.closing_soon'));
  expect(at('offer.closing_soon')).toBeLessThan(at('offer.closed'));
}

describe('offers-api: lifecycle on BullMQ (real Redis, short delays)', () => {
  let db: TestDatabase;
  const prefix = `test-lc-${randomBytes(4).toString('hex')}`;
  let app: OffersApp | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await app?.close();
    app = undefined;
  });
  afterAll(async () => {
    await db.drop();
  });

  it('fires opened, closing_soon and closed in order, once each, across an app restart', async () => {
    app = await startOffers({ QUEUE_PREFIX: prefix }, { db });
    let ctx = new OffersContext(app);
    const partner = await ctx.newPartner();
    const other = await ctx.newPartner('Not in the agreement');
    const now = Date.now();
    const offer = await ctx.newOffer({ opens_at: iso(now + 1_500), closes_at: iso(now + 4_000) });
    expect(offer.status).toBe('upcoming');
    await ctx.share(partner, offer.id);

    // Less than an hour remains at opening: closing_soon comes with opened.
    await waitFor('opened and closing_soon', async () => {
      const e = await lifecycleEvents(ctx, partner.id, offer.id);
      return e.length === 2 ? e : undefined;
    });
    const live = await ctx.inject({ method: 'GET', url: `/api/v1/offers/${offer.id}`, headers: partner.auth });
    expect(live.json<OfferJson>().status).toBe('live');

    // Restart before the close is due; the delayed close job waits in Redis.
    await app.close();
    app = await startOffers({ QUEUE_PREFIX: prefix }, { db });
    ctx = new OffersContext(app);
    const events = await waitFor('closed', async () => {
      const e = await lifecycleEvents(ctx, partner.id, offer.id);
      return e.some((x) => x.event === 'offer.closed') ? e : undefined;
    });
    expectOnceEachInOrder(events);
    expect((await ctx.events(partner.id, 'offer.opened'))[0]?.data).toMatchObject({ id: offer.id, status: 'live' });
    expect((await ctx.events(partner.id, 'offer.closed'))[0]?.data).toMatchObject({ id: offer.id, status: 'closed' });
    expect(await lifecycleEvents(ctx, other.id, offer.id)).toEqual([]);

    // Late and duplicate jobs change nothing.
    const lifecycle = app.app.get(LifecycleService);
    await Promise.all([lifecycle.advance(offer.id), lifecycle.advance(offer.id), lifecycle.sweep()]);
    expectOnceEachInOrder(await lifecycleEvents(ctx, partner.id, offer.id));
  });

  it('repairs transitions whose jobs were lost (new Redis prefix) with the boot sweep', async () => {
    app = await startOffers({ QUEUE_PREFIX: `${prefix}-a` }, { db });
    let ctx = new OffersContext(app);
    const partner = await ctx.newPartner();
    const now = Date.now();
    const offer = await ctx.newOffer({ opens_at: iso(now + HOUR), closes_at: iso(now + 2 * HOUR) });
    await ctx.share(partner, offer.id);
    await app.close();
    // Down while both transitions fall due (moved into the past instead of waiting for them);
    // the jobs are gone with the old prefix.
    const direct = new Client({ connectionString: db.url });
    await direct.connect();
    try {
      await direct.query('UPDATE offers SET opens_at = $2, closes_at = $3 WHERE id = $1', [
        offer.id,
        new Date(Date.now() - 2 * 60_000),
        new Date(Date.now() - 60_000),
      ]);
    } finally {
      await direct.end();
    }
    app = await startOffers({ QUEUE_PREFIX: `${prefix}-b` }, { db });
    ctx = new OffersContext(app);
    const events = await waitFor('closed after downtime', async () => {
      const e = await lifecycleEvents(ctx, partner.id, offer.id);
      return e.some((x) => x.event === 'offer.closed') ? e : undefined;
    });
    // The warning of an offer that already closed is not sent.
    expect(events.map((e) => e.event)).toEqual(['offer.opened', 'offer.closed']);
    const closed = await ctx.inject({ method: 'GET', url: `/admin/v1/offers/${offer.id}`, headers: ADMIN });
    expect(closed.json<OfferJson>().status).toBe('closed');
  });

  it('one offer whose transition is blocked does not hold up the others', async () => {
    app = await startOffers({ QUEUE_PREFIX: `${prefix}-k` }, { db });
    const ctx = new OffersContext(app);
    const now = Date.now();
    // `stuck` falls due first, so with a single job slot it would be the job holding it
    const stuck = await ctx.newOffer({ opens_at: iso(now + 800), closes_at: iso(now + 2 * HOUR) });
    const other = await ctx.newOffer({ opens_at: iso(now + 1_300), closes_at: iso(now + 2 * HOUR) });
    const blocker = new Client({ connectionString: db.url });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM offers WHERE id = $1 FOR UPDATE', [stuck.id]);
      const status = async (id: string): Promise<string> =>
        (await ctx.inject({ method: 'GET', url: `/admin/v1/offers/${id}`, headers: ADMIN })).json<OfferJson>().status;
      await waitFor('the other offer opens while the first is blocked', async () =>
        (await status(other.id)) === 'live' ? true : undefined,
      );
      expect(await status(stuck.id)).toBe('upcoming');
      await blocker.query('COMMIT');
      await waitFor('the blocked offer opens once released', async () =>
        (await status(stuck.id)) === 'live' ? true : undefined,
      );
    } finally {
      await blocker.end();
    }
  });

  it('reports offers whose transition is overdue in /metrics until a worker applies it', async () => {
    const overdue = async (a: OffersApp): Promise<number> => {
      const res = await a.app.inject({ method: 'GET', url: '/metrics' });
      const m = /^offers_lifecycle_overdue\{[^}]*\} (\d+)$/m.exec(res.body);
      if (!m?.[1]) throw new Error('offers_lifecycle_overdue missing from /metrics');
      return Number(m[1]);
    };
    // an API-only process: nothing applies transitions
    app = await startOffers({ QUEUE_PREFIX: `${prefix}-m`, ROLE: 'api' }, { db });
    const ctx = new OffersContext(app);
    const baseline = await overdue(app);
    const offer = await ctx.newOffer({ opens_at: iso(Date.now() + HOUR), closes_at: iso(Date.now() + 2 * HOUR) });
    expect(await overdue(app)).toBe(baseline);
    await app.app
      .get(PrismaService)
      .offer.update({ where: { id: offer.id }, data: { opensAt: new Date(Date.now() - 3 * 60_000) } });
    expect(await overdue(app)).toBe(baseline + 1);

    const worker = await startOffers({ QUEUE_PREFIX: `${prefix}-m`, ROLE: 'worker' }, { db });
    try {
      // the worker's sweep applies every overdue transition in this database, not only this offer's
      await waitFor('the worker sweep opens it', async () => (await overdue(app as OffersApp)) === 0);
      const live = await ctx.inject({ method: 'GET', url: `/admin/v1/offers/${offer.id}`, headers: ADMIN });
      expect(live.json<OfferJson>().status).toBe('live');
    } finally {
      await worker.close();
    }
  });

  describe('with a controlled clock', () => {
    let ctx: OffersContext;
    let partner: Partner;
    beforeEach(async () => {
      app = await startOffers({ QUEUE_PREFIX: `${prefix}-c${randomBytes(2).toString('hex')}` }, { db });
      ctx = new OffersContext(app);
      partner = await ctx.newPartner();
    });

    it('applies each transition once under concurrent jobs, at the times the contract gives', async () => {
      if (!app) throw new Error('no app');
      const now = Date.now();
      const opensAt = now + 10 * HOUR;
      const closesAt = opensAt + 5 * HOUR;
      const offer = await ctx.newOffer({ opens_at: iso(opensAt), closes_at: iso(closesAt) });
      await ctx.share(partner, offer.id);
      const clock = app.app.get(Clock);
      const lifecycle = app.app.get(LifecycleService);
      const at = (ms: number): void => {
        jest.spyOn(clock, 'now').mockImplementation(() => new Date(ms));
      };
      const names = async (): Promise<string[]> => (await lifecycleEvents(ctx, partner.id, offer.id)).map((e) => e.event);
      const burst = (): Promise<unknown> => Promise.all(Array.from({ length: 5 }, () => lifecycle.advance(offer.id)));

      at(opensAt - 1);
      await burst();
      expect(await names()).toEqual([]);
      at(opensAt);
      await burst();
      expect(await names()).toEqual(['offer.opened']);
      at(closesAt - HOUR - 1);
      await burst();
      expect(await names()).toEqual(['offer.opened']);
      at(closesAt - HOUR);
      await burst();
      expect(await names()).toEqual(['offer.opened', 'offer.closing_soon']);
      at(closesAt);
      await burst();
      await lifecycle.sweep();
      expect(await names()).toEqual(['offer.opened', 'offer.closing_soon', 'offer.closed']);
    });

    it('rescheduling replaces the delayed jobs (job id = offer + transition + time)', async () => {
      if (!app) throw new Error('no app');
      const now = Date.now();
      const offer = await ctx.newOffer({ opens_at: iso(now + HOUR), closes_at: iso(now + 3 * HOUR) });
      await ctx.share(partner, offer.id);
      const queue = app.app.get(QueueRegistry).queue(LIFECYCLE_QUEUE);
      const oldOpen = `${offer.id}.open.${Date.parse(offer.opens_at)}`;
      const planned = async (id: string) => {
        const job = await queue.getJob(id);
        return job && { name: job.name, data: job.data as unknown };
      };
      const data = { offerId: offer.id };
      expect(await planned(oldOpen)).toEqual({ name: 'open', data });
      expect(await planned(`${offer.id}.closing_soon.${Date.parse(offer.closes_at) - HOUR}`)).toEqual({
        name: 'closing_soon',
        data,
      });
      expect(await planned(`${offer.id}.close.${Date.parse(offer.closes_at)}`)).toEqual({ name: 'close', data });

      const soon = iso(Date.now() + 800);
      const patch = await ctx.inject({
        method: 'PATCH',
        url: `/admin/v1/offers/${offer.id}`,
        headers: ADMIN,
        payload: { opens_at: soon },
      });
      expect(patch.statusCode).toBe(200);
      expect(await queue.getJob(oldOpen)).toBeUndefined();
      await waitFor('opened at the new time', async () => {
        const e = await lifecycleEvents(ctx, partner.id, offer.id);
        return e.some((x) => x.event === 'offer.opened') ? e : undefined;
      });
      const got = await ctx.inject({ method: 'GET', url: `/api/v1/offers/${offer.id}`, headers: partner.auth });
      expect(got.json<OfferJson>()).toMatchObject({ status: 'live', opens_at: new Date(soon).toISOString() });
    });
  });
});
