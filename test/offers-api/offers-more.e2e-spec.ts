/**
 * Offers, more (platform contract "Offers, more"; issue 19 item 4), over HTTP against the real
 * PostgreSQL and Redis: documents and maximum_investment on the Offer, incremental sync with
 * modified_after, GET /api/v1/indications/{id}, amending an indication, and the partner-wide
 * allocation list.
 */
import { Clock, PrismaService } from '@app/platform';
import { jest } from '@jest/globals';
import { Client } from 'pg';
import { LifecycleService } from '../../apps/offers-api/src/lifecycle/lifecycle.service';
import { Receiver } from '../webhooks/support/receiver';
import { ADMIN, type ErrorJson, HOUR, iso, type OfferJson, OffersContext, type Partner, startOffers, waitFor } from './fixtures';

interface IndicationJson {
  id: string;
  offer_id: string;
  investor_id: string;
  amount: number;
  currency: string;
  status: string;
}

interface AllocationJson {
  id: string;
  offer_id: string;
  investor_id: string;
  indication_id: string;
  amount_requested: number;
  created_at: string;
}

interface PageJson<T> {
  object: string;
  data: T[];
  has_more: boolean;
}

const DOCS = [
  { type: 'prospectus', title: 'Prospectus', url: 'https://example.com/acme/prospectus.pdf' },
  { type: 'factsheet', title: 'Factsheet', url: 'https://example.com/acme/factsheet.pdf' },
];

/** Waits until the clock has moved past `ms` (what is written next is stamped strictly later). */
async function clockPast(ms: number): Promise<void> {
  await waitFor('the clock to move on', () => Date.now() > ms, { everyMs: 1 });
}

describe('offers-api: offers, more', () => {
  let ctx: OffersContext;
  let alice: Partner;
  let bob: Partner;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await Receiver.start();
    ctx = new OffersContext(await startOffers({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }));
    alice = await ctx.newPartner('Alice Invest');
    bob = await ctx.newPartner('Bob Shares');
    await ctx.publishTerms('tc-1');
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });
  afterAll(async () => {
    await ctx.t.close();
    await receiver.close();
  });

  const get = (p: Partner, url: string) => ctx.inject({ method: 'GET', url, headers: p.auth });
  const error = (res: { json<T>(): T }) => res.json<ErrorJson>().error;
  const adminPatch = (id: string, payload: Record<string, unknown>) =>
    ctx.inject({ method: 'PATCH', url: `/admin/v1/offers/${id}`, headers: ADMIN, payload });
  const amend = (p: Partner, offerId: string, id: string, payload: Record<string, unknown>) =>
    ctx.inject({ method: 'PATCH', url: `/api/v1/offers/${offerId}/indications/${id}`, headers: p.auth, payload });

  async function shared(overrides: Record<string, unknown> = {}): Promise<OfferJson> {
    const offer = await ctx.newOffer(overrides);
    await ctx.share(alice, offer.id);
    await ctx.share(bob, offer.id);
    return offer;
  }

  async function indicate(p: Partner, offer: OfferJson, investor: string, amount: number): Promise<IndicationJson> {
    const res = await ctx.indicate(p, offer.id, {
      investor_id: investor,
      amount,
      currency: offer.currency,
      terms_accepted: true,
      terms_version: 'tc-1',
    });
    ctx.expectStatus(res, 201);
    return res.json<IndicationJson>();
  }

  /** Closes the offer: the app clock past closes_at, then the lifecycle transition. */
  async function close(offer: OfferJson): Promise<void> {
    const clock = ctx.t.app.get(Clock);
    const after = new Date(Date.parse(offer.closes_at) + 1);
    jest.spyOn(clock, 'now').mockImplementation(() => after);
    jest.spyOn(clock, 'nowMs').mockImplementation(() => after.getTime());
    await ctx.t.app.get(LifecycleService).advance(offer.id);
    jest.restoreAllMocks();
  }

  async function allocate(offerId: string, shares = 1_000_000): Promise<void> {
    const res = await ctx.inject({
      method: 'POST',
      url: `/admin/v1/offers/${offerId}/allocations`,
      headers: ADMIN,
      payload: { shares_available: shares, policy: 'pro_rata' },
    });
    ctx.expectStatus(res, 201);
  }

  /** The plan PostgreSQL picks for `sql` when a sequential scan is off the table (small test tables). */
  async function plan(sql: string, params: unknown[]): Promise<string> {
    const client = new Client({ connectionString: ctx.t.db.url });
    await client.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const rows = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).rows;
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.end();
    }
  }

  describe('documents and maximum_investment', () => {
    it('round-trips through admin create, the partner read and admin patch (documents replaced whole, null removes the maximum)', async () => {
      const offer = await shared({ documents: DOCS, maximum_investment: 50_000.5 });
      expect(offer).toMatchObject({ documents: DOCS, maximum_investment: 50_000.5, minimum_investment: 250 });
      const read = await get(alice, `/api/v1/offers/${offer.id}`);
      expect(read.json<OfferJson>()).toMatchObject({ documents: DOCS, maximum_investment: 50_000.5 });
      expect(read.json<OfferJson>().updated_at).toBe(offer.updated_at);

      const upcoming = await ctx.newOffer({ opens_at: iso(Date.now() + HOUR), closes_at: iso(Date.now() + 3 * HOUR) });
      const cleared = await adminPatch(upcoming.id, { maximum_investment: 1_000 });
      expect(cleared.json<OfferJson>().maximum_investment).toBe(1_000);
      const none = await adminPatch(upcoming.id, { maximum_investment: null, documents: [DOCS[1]] });
      ctx.expectStatus(none, 200);
      expect(none.json<OfferJson>()).toMatchObject({ maximum_investment: null, documents: [DOCS[1]] });
      // absent leaves both as they are
      const same = await adminPatch(upcoming.id, { company: 'Acme Holdings plc' });
      expect(same.json<OfferJson>()).toMatchObject({ maximum_investment: null, documents: [DOCS[1]] });
      const empty = await adminPatch(upcoming.id, { documents: [] });
      expect(empty.json<OfferJson>().documents).toEqual([]);
    });

    it('documents can change while the offer is live; maximum_investment, like the minimum, cannot', async () => {
      const offer = await shared({ maximum_investment: 10_000 });
      const docs = await adminPatch(offer.id, { documents: DOCS });
      ctx.expectStatus(docs, 200);
      expect(docs.json<OfferJson>().documents).toEqual(DOCS);
      const max = await adminPatch(offer.id, { maximum_investment: 20_000 });
      expect(max.statusCode).toBe(409);
      expect(error(max)).toMatchObject({ code: 'offer_not_editable', param: 'maximum_investment' });
      // sending the value it already has is no change
      ctx.expectStatus(await adminPatch(offer.id, { maximum_investment: 10_000 }), 200);
    });

    const invalid: Array<[string, Record<string, unknown>, string, string]> = [
      ['an http URL', { documents: [{ ...DOCS[0], url: 'http://example.com/p.pdf' }] }, 'documents[0].url', 'parameter_invalid'],
      ['not a URL', { documents: [{ ...DOCS[0], url: 'prospectus.pdf' }] }, 'documents[0].url', 'parameter_invalid'],
      ['an unknown type', { documents: [DOCS[0], { ...DOCS[1], type: 'brochure' }] }, 'documents[1].type', 'parameter_invalid'],
      ['an empty title', { documents: [{ ...DOCS[0], title: '' }] }, 'documents[0].title', 'parameter_invalid'],
      ['a title over 200', { documents: [{ ...DOCS[0], title: 'x'.repeat(201) }] }, 'documents[0].title', 'parameter_invalid'],
      ['an unknown field', { documents: [{ ...DOCS[0], size: 3 }] }, 'documents[0].size', 'parameter_unknown'],
      ['21 documents', { documents: Array.from({ length: 21 }, () => DOCS[0]) }, 'documents', 'parameter_invalid'],
      ['documents not an array', { documents: DOCS[0] }, 'documents', 'parameter_invalid'],
      ['a maximum below the minimum', { maximum_investment: 249.99 }, 'maximum_investment', 'parameter_invalid'],
      ['a maximum of 3 decimals', { maximum_investment: 1_000.001 }, 'maximum_investment', 'parameter_invalid'],
      ['a maximum as a string', { maximum_investment: '1000' }, 'maximum_investment', 'parameter_invalid'],
    ];
    it.each(invalid)('admin create refuses %s (400 naming the param)', async (_, overrides, param, code) => {
      const res = await ctx.inject({
        method: 'POST',
        url: '/admin/v1/offers',
        headers: ADMIN,
        payload: {
          company: 'Acme Robotics plc',
          ticker: 'ACME',
          type: 'ipo',
          price_per_share: 2.5,
          currency: 'gbp',
          minimum_investment: 250,
          opens_at: iso(Date.now() - HOUR),
          closes_at: iso(Date.now() + HOUR),
          shares_offered: 1_000,
          ...overrides,
        },
      });
      expect(res.statusCode).toBe(400);
      expect(error(res)).toMatchObject({ code, param });
    });

    it('an indication above maximum_investment × 100 is 400 amount_above_maximum; exactly the maximum is accepted', async () => {
      const offer = await shared({ maximum_investment: 1_000.5 });
      const above = await ctx.indicate(alice, offer.id, {
        investor_id: 'inv_big',
        amount: 100_051,
        currency: 'gbp',
        terms_accepted: true,
        terms_version: 'tc-1',
      });
      expect(above.statusCode).toBe(400);
      expect(error(above)).toMatchObject({
        type: 'invalid_request_error',
        code: 'amount_above_maximum',
        param: 'amount',
        maximum_amount: 100_050,
      });
      await indicate(alice, offer, 'inv_big', 100_050);
    });
  });

  describe('GET /api/v1/indications/{id}', () => {
    it("answers the partner's own indication; another partner's is 404", async () => {
      const offer = await shared();
      const mine = await indicate(alice, offer, 'inv_get_1', 30_000);
      const res = await get(alice, `/api/v1/indications/${mine.id}`);
      ctx.expectStatus(res, 200);
      expect(res.json()).toEqual(mine);
      const theirs = await get(bob, `/api/v1/indications/${mine.id}`);
      expect(theirs.statusCode).toBe(404);
      expect(error(theirs)).toMatchObject({ code: 'resource_missing', param: 'id' });
    });
  });

  describe('PATCH /api/v1/offers/{offer_id}/indications/{id}', () => {
    it('changes the amount and fires indication.updated once (listed and delivered), with previous_amount', async () => {
      const endpoint = await ctx.inject({
        method: 'POST',
        url: '/api/v1/webhook-endpoints',
        headers: alice.auth,
        payload: { url: `${receiver.url}?alice`, events: ['indication.updated'] },
      });
      ctx.expectStatus(endpoint, 201);
      const offer = await shared({ maximum_investment: 2_000 });
      const created = await indicate(alice, offer, 'inv_amend_1', 30_000);

      const res = await amend(alice, offer.id, created.id, { amount: 45_000 });
      ctx.expectStatus(res, 200);
      expect(res.json()).toEqual({ ...created, amount: 45_000 });
      expect((await get(alice, `/api/v1/indications/${created.id}`)).json<IndicationJson>().amount).toBe(45_000);
      // the same amount again changes nothing and fires nothing
      expect((await amend(alice, offer.id, created.id, { amount: 45_000 })).json()).toEqual({ ...created, amount: 45_000 });

      const listed = await get(alice, '/api/v1/events?type=indication.updated&limit=100');
      const mine = listed.json<PageJson<{ data: { id: string } }>>().data.filter((e) => e.data.id === created.id);
      expect(mine).toHaveLength(1);
      expect(mine[0]?.data).toEqual({ ...created, amount: 45_000, previous_amount: 30_000 });
      const delivered = await waitFor('the indication.updated delivery', () =>
        Promise.resolve(receiver.requests.find((r) => r.path.endsWith('?alice') && r.body.includes(created.id))),
      );
      expect(JSON.parse(delivered.body)).toMatchObject({
        event: 'indication.updated',
        data: { id: created.id, amount: 45_000, previous_amount: 30_000 },
      });
      expect(receiver.requests.filter((r) => r.path.endsWith('?alice') && r.body.includes(created.id))).toHaveLength(1);
      expect((await get(bob, `/api/v1/events?type=indication.updated`)).body).not.toContain(created.id);
    });

    it('applies the submit rules: below the minimum and above the maximum are 400, the amount stays', async () => {
      const offer = await shared({ maximum_investment: 2_000 });
      const created = await indicate(alice, offer, 'inv_amend_2', 30_000);
      const low = await amend(alice, offer.id, created.id, { amount: 24_999 });
      expect([low.statusCode, error(low).code, error(low).param]).toEqual([400, 'amount_too_small', 'amount']);
      const high = await amend(alice, offer.id, created.id, { amount: 200_001 });
      expect([high.statusCode, error(high).code, error(high).param]).toEqual([400, 'amount_above_maximum', 'amount']);
      const bad = await amend(alice, offer.id, created.id, { amount: 30_000, currency: 'eur' });
      expect([bad.statusCode, error(bad).code, error(bad).param]).toEqual([400, 'parameter_unknown', 'currency']);
      expect((await get(alice, `/api/v1/indications/${created.id}`)).json<IndicationJson>().amount).toBe(30_000);
      expect(await ctx.events(alice.id, 'indication.updated').then((e) => e.filter((x) => x.data['id'] === created.id))).toEqual(
        [],
      );
    });

    it('refuses a cancelled indication (409 indication_cancelled), a closed offer (409 offer_not_live), and another partner (404)', async () => {
      const offer = await shared({ closes_at: iso(Date.now() + 60_000) });
      const kept = await indicate(alice, offer, 'inv_amend_3', 30_000);
      const gone = await indicate(alice, offer, 'inv_amend_4', 30_000);
      ctx.expectStatus(
        await ctx.inject({ method: 'DELETE', url: `/api/v1/offers/${offer.id}/indications/${gone.id}`, headers: alice.auth }),
        200,
      );
      const cancelled = await amend(alice, offer.id, gone.id, { amount: 40_000 });
      expect([cancelled.statusCode, error(cancelled).code]).toEqual([409, 'indication_cancelled']);
      const foreign = await amend(bob, offer.id, kept.id, { amount: 40_000 });
      expect([foreign.statusCode, error(foreign).code]).toEqual([404, 'resource_missing']);

      await close(offer);
      const closed = await amend(alice, offer.id, kept.id, { amount: 40_000 });
      expect(closed.statusCode).toBe(409);
      expect(error(closed)).toMatchObject({ code: 'offer_not_live', offer_status: 'closed' });
      expect((await get(alice, `/api/v1/indications/${kept.id}`)).json<IndicationJson>().amount).toBe(30_000);
    });

    it('racing the close, an amendment either lands before it (and is allocated) or is refused: never changed after allocation', async () => {
      const outcomes: number[] = [];
      for (let round = 0; round < 6; round++) {
        const offer = await shared({ closes_at: iso(Date.now() + 60_000) });
        const created = await indicate(alice, offer, `inv_race_${round}`, 30_000);
        // the admin moves closes_at to now, which closes the offer at once (the lifecycle advances it)
        const [patched, closing] = await Promise.all([
          amend(alice, offer.id, created.id, { amount: 50_000 }),
          adminPatch(offer.id, { closes_at: new Date().toISOString() }),
        ]);
        ctx.expectStatus(closing, 200);
        expect(closing.json<OfferJson>().status).toBe('closed');
        expect([200, 409]).toContain(patched.statusCode);
        outcomes.push(patched.statusCode);
        await allocate(offer.id);
        const final = (await get(alice, `/api/v1/indications/${created.id}`)).json<IndicationJson>();
        expect(final.amount).toBe(patched.statusCode === 200 ? 50_000 : 30_000);
        const late = await amend(alice, offer.id, created.id, { amount: 60_000 });
        expect(late.statusCode).toBe(409);
        const allocations = await get(alice, `/api/v1/allocations?offer_id=${offer.id}`);
        expect(allocations.json<PageJson<AllocationJson>>().data.map((a) => a.amount_requested)).toEqual([final.amount]);
      }
      // both outcomes occur in practice (measured: 409 409 409 200 200 200); each one is consistent
      expect(outcomes).toHaveLength(6);
    });
  });

  describe('GET /api/v1/offers?modified_after=', () => {
    it('returns offers of any status changed after the time, oldest change first; patches and lifecycle transitions move updated_at', async () => {
      const since = new Date().toISOString();
      await clockPast(Date.parse(since));
      const first = await shared({ closes_at: iso(Date.now() + 60_000) });
      const second = await shared();
      const upcoming = await shared({ opens_at: iso(Date.now() + HOUR), closes_at: iso(Date.now() + 2 * HOUR) });
      const ids = async (p: Partner, query: string) =>
        (await get(p, `/api/v1/offers?modified_after=${encodeURIComponent(since)}&limit=100${query}`))
          .json<{ offers: OfferJson[] }>()
          .offers.map((o) => o.id);
      expect(await ids(alice, '')).toEqual([first.id, second.id, upcoming.id]);

      // an admin change moves the offer to the end
      const patched = await adminPatch(second.id, { company: 'Second plc' });
      expect(Date.parse(patched.json<OfferJson>().updated_at)).toBeGreaterThan(Date.parse(second.updated_at));
      expect(await ids(alice, '')).toEqual([first.id, upcoming.id, second.id]);

      // a lifecycle transition (close) too; the closed offer is still listed (any status)
      await close(first);
      const closed = (await get(alice, `/api/v1/offers/${first.id}`)).json<OfferJson>();
      expect(closed.status).toBe('closed');
      expect(Date.parse(closed.updated_at)).toBeGreaterThan(Date.parse(first.updated_at));
      expect(await ids(alice, '')).toEqual([upcoming.id, second.id, first.id]);
      // and the allocation run marks the offer changed again
      await allocate(first.id);
      const allocated = (await get(alice, `/api/v1/offers/${first.id}`)).json<OfferJson>();
      expect(Date.parse(allocated.updated_at)).toBeGreaterThan(Date.parse(closed.updated_at));

      // status and type still filter; page/limit page; the time is exclusive
      expect(await ids(alice, '&status=closed')).toEqual([first.id]);
      const page2 = await get(alice, `/api/v1/offers?modified_after=${encodeURIComponent(since)}&limit=2&page=2`);
      expect(page2.json()).toMatchObject({ total: 3, page: 2, offers: [{ id: first.id }] });
      const after = await get(alice, `/api/v1/offers?modified_after=${encodeURIComponent(allocated.updated_at)}`);
      expect(after.json<{ offers: OfferJson[] }>().offers.map((o) => o.id)).not.toContain(first.id);

      // only offers in the caller's agreement
      const elsewhere = await ctx.newOffer();
      await ctx.share(bob, elsewhere.id);
      expect(await ids(alice, '')).not.toContain(elsewhere.id);
      expect(await ids(bob, '')).toContain(elsewhere.id);
    });

    it.each(['yesterday', '2026-11-25T10:00:00', '2026-13-01T00:00:00Z'])('400 naming modified_after for %s', async (value) => {
      const res = await get(alice, `/api/v1/offers?modified_after=${encodeURIComponent(value)}`);
      expect(res.statusCode).toBe(400);
      expect(error(res)).toMatchObject({ code: 'parameter_invalid', param: 'modified_after' });
    });

    it('the query can run along offers_updated_at_id_idx', async () => {
      const prisma = ctx.t.app.get(PrismaService);
      expect(prisma).toBeDefined();
      const text = await plan(
        `SELECT o.id FROM offers o
         WHERE EXISTS (SELECT 1 FROM offer_agreements a WHERE a.partner_id = $1 AND a.offer_id = o.id)
           AND o.updated_at > $2::timestamptz
         ORDER BY o.updated_at ASC, o.id ASC LIMIT 20`,
        [alice.id, new Date(Date.now() - HOUR).toISOString()],
      );
      expect(text).toContain('offers_updated_at_id_idx');
    });
  });

  describe('GET /api/v1/allocations', () => {
    let offerOne: OfferJson;
    let offerTwo: OfferJson;
    beforeAll(async () => {
      offerOne = await shared({ closes_at: iso(Date.now() + 60_000) });
      offerTwo = await shared({ closes_at: iso(Date.now() + 60_000) });
      for (const investor of ['inv_l1', 'inv_l2', 'inv_l3']) await indicate(alice, offerOne, investor, 30_000);
      for (const investor of ['inv_l1', 'inv_l4']) await indicate(alice, offerTwo, investor, 30_000);
      await indicate(bob, offerOne, 'inv_bob', 30_000);
      await close(offerOne);
      await allocate(offerOne.id);
      await clockPast(Date.now());
      await close(offerTwo);
      await allocate(offerTwo.id);
    });

    const list = (p: Partner, query = '') => get(p, `/api/v1/allocations?${query}`);
    const allOf = async (p: Partner, query: string): Promise<AllocationJson[]> => {
      const rows: AllocationJson[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = (await list(p, `${query}&limit=2${cursor === undefined ? '' : `&starting_after=${cursor}`}`)).json<
          PageJson<AllocationJson>
        >();
        rows.push(...page.data);
        cursor = page.data.at(-1)?.id;
        if (!page.has_more) return rows;
      }
    };

    it('lists the partner allocations across its offers, newest first, in pages that meet end to end', async () => {
      const first = await list(alice, 'limit=100');
      ctx.expectStatus(first, 200);
      const body = first.json<PageJson<AllocationJson>>();
      expect(body.object).toBe('list');
      expect(body.has_more).toBe(false);
      const mine = body.data.filter((a) => [offerOne.id, offerTwo.id].includes(a.offer_id));
      expect(mine).toHaveLength(5);
      // newest first: offer two was allocated later
      expect(mine.slice(0, 2).every((a) => a.offer_id === offerTwo.id)).toBe(true);
      const sorted = [...body.data].sort((x, y) => y.created_at.localeCompare(x.created_at) || (y.id < x.id ? -1 : 1));
      expect(body.data.map((a) => a.id)).toEqual(sorted.map((a) => a.id));
      expect(body.data.map((a) => a.investor_id)).not.toContain('inv_bob');

      const paged = await allOf(alice, '');
      expect(paged.map((a) => a.id)).toEqual(body.data.map((a) => a.id));
      expect((await list(alice, 'limit=1')).json<PageJson<AllocationJson>>()).toMatchObject({ has_more: true });
      expect((await list(alice)).json<PageJson<AllocationJson>>().data.length).toBeLessThanOrEqual(10);
    });

    it('filters by offer_id and investor_id', async () => {
      expect((await allOf(alice, `offer_id=${offerOne.id}`)).map((a) => a.investor_id).sort()).toEqual([
        'inv_l1',
        'inv_l2',
        'inv_l3',
      ]);
      const l1 = await allOf(alice, 'investor_id=inv_l1');
      expect(l1.map((a) => a.offer_id)).toEqual([offerTwo.id, offerOne.id]);
      expect(await allOf(alice, `offer_id=${offerTwo.id}&investor_id=inv_l4`)).toHaveLength(1);
      expect(await allOf(alice, 'investor_id=inv_bob')).toEqual([]);
    });

    it("a cursor that is not one of the partner's allocations is 400 resource_missing; bad limit and investor_id are 400", async () => {
      const bobs = (await list(bob, 'limit=1')).json<PageJson<AllocationJson>>().data[0];
      expect(bobs?.investor_id).toBe('inv_bob');
      for (const cursor of [bobs?.id ?? '', 'alloc_ghost0000000000000000000']) {
        const res = await list(alice, `starting_after=${cursor}`);
        expect(res.statusCode).toBe(400);
        expect(error(res)).toMatchObject({ code: 'resource_missing', param: 'starting_after' });
      }
      for (const [query, param] of [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['investor_id=bob', 'investor_id'],
        ['colour=red', 'colour'],
      ] as const) {
        const res = await list(alice, query);
        expect([query, res.statusCode, error(res).param]).toEqual([query, 400, param]);
      }
    });

    it('the query can run along allocations_partner_id_created_at_id_idx', async () => {
      const text = await plan(
        `SELECT id FROM allocations WHERE partner_id = $1
           AND (created_at < $2::timestamptz OR (created_at = $2::timestamptz AND id < $3))
         ORDER BY created_at DESC, id DESC LIMIT 11`,
        [alice.id, new Date().toISOString(), 'alloc_zzz'],
      );
      expect(text).toContain('allocations_partner_id_created_at_id_idx');
    });
  });
});
