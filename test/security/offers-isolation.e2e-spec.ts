/**
 * offers-api tenancy: partner A can never read, change or learn the existence of partner
 * B's offers (outside A's agreement), indications, allocations, webhook endpoints and
 * deliveries, or OAuth clients. Every partner route of /openapi.json must have a case below,
 * and every case runs twice: with A's OAuth access token, and with A's console session
 * (cookie + CSRF token), which is a principal of the partner like its token.
 */
import type { LightMyRequestResponse } from 'fastify';
import { ADMIN, type OfferJson, OffersContext, type Partner, startOffers } from '../offers-api/fixtures';
import { consoleSession } from '../support/console';
import { expectNotFound, normalisedError, openApiOperations, opKey, snapshotDatabase, waitFor } from './support';

interface Endpoint {
  id: string;
  url: string;
  secret?: string;
  previous_secret_expires_at: string | null;
}

describe('offers-api: partner isolation', () => {
  let ctx: OffersContext;
  let a: Partner;
  let b: Partner;
  /** offerA: only A's agreement; offerB: only B's; shared: both (live); allocated: both, closed and allocated. */
  let offerA: OfferJson;
  let offerB: OfferJson;
  let shared: OfferJson;
  let allocated: OfferJson;
  const ind: Record<string, string> = {};
  let endpointA: Endpoint;
  let endpointB: Endpoint;
  let deliveryA: string;
  let deliveryB: string;
  /** Strings that only B's data contains: none may appear in an answer to A. */
  let markersOfB: string[];

  const body = (offer: OfferJson, investor: string): Record<string, unknown> => ({
    investor_id: investor,
    amount: 100_000,
    currency: offer.currency,
    terms_accepted: true,
    terms_version: 'sec-1',
  });

  async function indicate(p: Partner, offer: OfferJson, investor: string): Promise<string> {
    const res = await ctx.indicate(p, offer.id, body(offer, investor));
    ctx.expectStatus(res, 201);
    return res.json<{ id: string }>().id;
  }

  async function newEndpoint(p: Partner, path: string): Promise<Endpoint> {
    const res = await ctx.inject({
      method: 'POST',
      url: '/api/v1/webhook-endpoints',
      headers: p.auth,
      payload: { url: `http://127.0.0.1:9/${path}` },
    });
    ctx.expectStatus(res, 201);
    return res.json<Endpoint>();
  }

  async function firstDelivery(p: Partner, endpointId: string): Promise<string> {
    return waitFor(`a delivery for ${endpointId}`, async () => {
      const res = await ctx.inject({ method: 'GET', url: `/api/v1/webhook-endpoints/${endpointId}/deliveries`, headers: p.auth });
      return res.json<{ data: Array<{ id: string }> }>().data[0]?.id;
    });
  }

  /** A's credential for asA: its access token, or its console session's cookie and CSRF token. */
  let principalOfA: Record<string, string> = {};
  let consoleOfA: Record<string, string> = {};
  const asA = (method: 'GET' | 'POST' | 'DELETE' | 'PATCH', url: string, payload?: object): Promise<LightMyRequestResponse> =>
    ctx.inject({ method, url, headers: principalOfA, ...(payload === undefined ? {} : { payload }) });

  /** Runs `work` with A's console session as the principal of asA. */
  async function asConsole(work: () => Promise<void>): Promise<void> {
    principalOfA = consoleOfA;
    try {
      await work();
    } finally {
      principalOfA = a.auth;
    }
  }

  /**
   * A's request on B's objects (`ids`, all present in `url`) is a 404 `resource_missing`
   * that carries none of B's data and reads exactly like the answer for ids that never
   * existed (no existence oracle, no 403).
   */
  async function refused(
    label: string,
    method: 'GET' | 'POST' | 'DELETE' | 'PATCH',
    url: string,
    ids: string[],
    payload?: object,
  ) {
    const res = await asA(method, url, payload);
    expectNotFound(label, res);
    for (const marker of markersOfB.filter((m) => !ids.includes(m))) {
      expect([label, marker, res.body.includes(marker)]).toEqual([label, marker, false]);
    }
    const ghosts = ids.map((id) => `${id.split('_')[0]}_ghost0000000000000000000`);
    const ghostUrl = ids.reduce((u, id, i) => u.split(id).join(ghosts[i]), url);
    const ghost = await asA(method, ghostUrl, payload);
    expect([label, normalisedError(res, ids)]).toEqual([label, normalisedError(ghost, ghosts)]);
  }

  beforeAll(async () => {
    ctx = new OffersContext(await startOffers());
    a = await ctx.newPartner('Alpha Wealth', 'enterprise');
    b = await ctx.newPartner('Beta Shares', 'enterprise');
    principalOfA = a.auth;
    consoleOfA = (await consoleSession(ctx.t.app, 'offers', a.id)).headers;
    await ctx.publishTerms('sec-1');
    offerA = await ctx.newOffer({ ticker: 'AAA' });
    offerB = await ctx.newOffer({ ticker: 'BBB' });
    shared = await ctx.newOffer({ ticker: 'SHR' });
    allocated = await ctx.newOffer({ ticker: 'ALO' });
    await ctx.share(a, offerA.id);
    await ctx.share(b, offerB.id);
    for (const o of [shared, allocated]) {
      await ctx.share(a, o.id);
      await ctx.share(b, o.id);
    }
    endpointA = await newEndpoint(a, 'alpha-hooks');
    endpointB = await newEndpoint(b, 'beta-hooks');

    ind['a'] = await indicate(a, offerA, 'inv_alpha_1');
    ind['aShared'] = await indicate(a, shared, 'inv_alpha_2');
    ind['aAllocated'] = await indicate(a, allocated, 'inv_alpha_3');
    ind['b'] = await indicate(b, offerB, 'inv_beta_1');
    ind['bShared'] = await indicate(b, shared, 'inv_beta_2');
    ind['bAllocated'] = await indicate(b, allocated, 'inv_beta_3');

    const close = await ctx.inject({
      method: 'PATCH',
      url: `/admin/v1/offers/${allocated.id}`,
      headers: ADMIN,
      payload: { closes_at: new Date().toISOString() },
    });
    ctx.expectStatus(close, 200);
    const run = await ctx.inject({
      method: 'POST',
      url: `/admin/v1/offers/${allocated.id}/allocations`,
      headers: ADMIN,
      payload: { shares_available: 1_000, policy: 'pro_rata' },
    });
    ctx.expectStatus(run, 201);

    deliveryA = await firstDelivery(a, endpointA.id);
    deliveryB = await firstDelivery(b, endpointB.id);
    markersOfB = [b.id, b.clientId, 'beta-hooks', 'inv_beta', offerB.id, ind['b'] ?? '', ind['bShared'] ?? '', 'whsec_'];
    const bEvents = await ctx.inject({ method: 'GET', url: '/api/v1/events?type=indication.received', headers: b.auth });
    eventB = bEvents.json<{ data: Array<{ id: string }> }>().data[0]?.id ?? '';
    expect(eventB).toMatch(/^evt_/);
  });

  afterAll(async () => {
    await ctx.t.close();
  });

  /** One case per partner operation of /openapi.json. */
  let eventB = '';
  const CASES: Record<string, () => Promise<void>> = {
    'GET /api/v1/offers': async () => {
      const res = await asA('GET', '/api/v1/offers?limit=100');
      const ids = res.json<{ offers: Array<{ id: string }> }>().offers.map((o) => o.id);
      expect(ids).toEqual(expect.arrayContaining([offerA.id, shared.id]));
      expect(ids).not.toContain(offerB.id);
      for (const status of ['live', 'upcoming', 'closed']) {
        const page = await asA('GET', `/api/v1/offers?status=${status}&limit=100`);
        expect(page.json<{ offers: Array<{ id: string }> }>().offers.map((o) => o.id)).not.toContain(offerB.id);
      }
      // incremental sync (any status) stays inside the agreement too
      const sync = await asA('GET', '/api/v1/offers?modified_after=2000-01-01T00:00:00Z&limit=100');
      const synced = sync.json<{ offers: Array<{ id: string }> }>().offers.map((o) => o.id);
      expect(synced).toEqual(expect.arrayContaining([offerA.id, shared.id, allocated.id]));
      expect(synced).not.toContain(offerB.id);
    },
    'GET /api/v1/offers/{id}': async () => {
      await refused('get B-only offer', 'GET', `/api/v1/offers/${offerB.id}`, [offerB.id]);
    },
    'GET /api/v1/terms': async () => {
      const [ra, rb] = [
        await asA('GET', '/api/v1/terms'),
        await ctx.inject({ method: 'GET', url: '/api/v1/terms', headers: b.auth }),
      ];
      expect(ra.statusCode).toBe(200);
      expect(ra.json()).toEqual(rb.json()); // terms are global by design
    },
    'POST /api/v1/offers/{offer_id}/indications': async () => {
      const before = await snapshotDatabase(ctx.t.db.url);
      await refused(
        'indicate on B-only offer',
        'POST',
        `/api/v1/offers/${offerB.id}/indications`,
        [offerB.id],
        body(offerB, 'inv_alpha_x'),
      );
      const after = await snapshotDatabase(ctx.t.db.url);
      expect(after['indications']).toBe(before['indications']);
      expect(after['webhook_events']).toBe(before['webhook_events']);
    },
    'GET /api/v1/offers/{offer_id}/indications': async () => {
      await refused('list indications of B-only offer', 'GET', `/api/v1/offers/${offerB.id}/indications`, [offerB.id]);
      const own = await asA('GET', `/api/v1/offers/${shared.id}/indications`);
      expect(own.json<{ indications: Array<{ id: string }> }>().indications.map((i) => i.id)).toEqual([ind['aShared']]);
    },
    'DELETE /api/v1/offers/{offer_id}/indications/{id}': async () => {
      // B's indication through B's offer, through the shared offer, and through A's own offer.
      await refused('cancel B ind via B offer', 'DELETE', `/api/v1/offers/${offerB.id}/indications/${ind['b']}`, [
        offerB.id,
        ind['b'] ?? '',
      ]);
      await refused('cancel B ind via shared offer', 'DELETE', `/api/v1/offers/${shared.id}/indications/${ind['bShared']}`, [
        ind['bShared'] ?? '',
      ]);
      await refused('cancel B ind via A offer', 'DELETE', `/api/v1/offers/${offerA.id}/indications/${ind['bShared']}`, [
        ind['bShared'] ?? '',
      ]);
      for (const [offer, id] of [
        [offerB, ind['b']],
        [shared, ind['bShared']],
      ] as const) {
        const res = await ctx.inject({ method: 'GET', url: `/api/v1/offers/${offer.id}/indications`, headers: b.auth });
        expect(res.json<{ indications: Array<{ id: string; status: string }> }>().indications).toContainEqual(
          expect.objectContaining({ id, status: 'received' }),
        );
      }
    },
    'GET /api/v1/indications/{id}': async () => {
      await refused('get B indication', 'GET', `/api/v1/indications/${ind['b']}`, [ind['b'] ?? '']);
      await refused('get B indication on a shared offer', 'GET', `/api/v1/indications/${ind['bShared']}`, [ind['bShared'] ?? '']);
      const own = await asA('GET', `/api/v1/indications/${ind['aShared']}`);
      expect(own.statusCode).toBe(200);
    },
    'PATCH /api/v1/offers/{offer_id}/indications/{id}': async () => {
      const before = await snapshotDatabase(ctx.t.db.url);
      await refused(
        'amend B ind via B offer',
        'PATCH',
        `/api/v1/offers/${offerB.id}/indications/${ind['b']}`,
        [offerB.id, ind['b'] ?? ''],
        {
          amount: 200_000,
        },
      );
      await refused(
        'amend B ind via shared offer',
        'PATCH',
        `/api/v1/offers/${shared.id}/indications/${ind['bShared']}`,
        [ind['bShared'] ?? ''],
        { amount: 200_000 },
      );
      await refused(
        'amend B ind via A offer',
        'PATCH',
        `/api/v1/offers/${offerA.id}/indications/${ind['bShared']}`,
        [ind['bShared'] ?? ''],
        { amount: 200_000 },
      );
      const after = await snapshotDatabase(ctx.t.db.url);
      expect(after['indications']).toBe(before['indications']);
      expect(after['webhook_events']).toBe(before['webhook_events']);
    },
    'GET /api/v1/allocations': async () => {
      const res = await asA('GET', '/api/v1/allocations?limit=100');
      expect(res.statusCode).toBe(200);
      const rows = res.json<{ data: Array<{ indication_id: string }> }>().data;
      expect(rows.map((r) => r.indication_id)).toEqual([ind['aAllocated']]);
      for (const marker of markersOfB) expect(res.body).not.toContain(marker);
      for (const filter of [`offer_id=${offerB.id}`, `offer_id=${allocated.id}&investor_id=inv_beta_3`]) {
        expect((await asA('GET', `/api/v1/allocations?${filter}`)).json<{ data: unknown[] }>().data).toEqual([]);
      }
      // B's allocation as a cursor is refused, as an id that never existed
      const theirs = await ctx.inject({ method: 'GET', url: '/api/v1/allocations', headers: b.auth });
      const allocationB = theirs.json<{ data: Array<{ id: string }> }>().data[0]?.id ?? '';
      expect(allocationB).toMatch(/^alloc_/);
      const viaB = await asA('GET', `/api/v1/allocations?starting_after=${allocationB}`);
      const ghost = await asA('GET', '/api/v1/allocations?starting_after=alloc_ghost0000000000000000000');
      expect(viaB.statusCode).toBe(400);
      expect(normalisedError(viaB, [allocationB])).toEqual(normalisedError(ghost, ['alloc_ghost0000000000000000000']));
    },
    'GET /api/v1/offers/{offer_id}/allocations': async () => {
      await refused('allocations of B-only offer', 'GET', `/api/v1/offers/${offerB.id}/allocations`, [offerB.id]);
      const own = await asA('GET', `/api/v1/offers/${allocated.id}/allocations`);
      const rows = own.json<{ allocations: Array<{ indication_id: string; investor_id: string }> }>().allocations;
      expect(rows.map((r) => r.indication_id)).toEqual([ind['aAllocated']]);
      const theirs = await ctx.inject({ method: 'GET', url: `/api/v1/offers/${allocated.id}/allocations`, headers: b.auth });
      expect(theirs.json<{ allocations: Array<{ indication_id: string }> }>().allocations.map((r) => r.indication_id)).toEqual([
        ind['bAllocated'],
      ]);
    },
    'POST /api/v1/webhook-endpoints': async () => {
      const created = await asA('POST', '/api/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/alpha-second' });
      expect(created.statusCode).toBe(201);
      const id = created.json<Endpoint>().id;
      const byB = await ctx.inject({ method: 'GET', url: `/api/v1/webhook-endpoints/${id}`, headers: b.auth });
      expectNotFound('B reads the endpoint A just created', byB);
      await asA('DELETE', `/api/v1/webhook-endpoints/${id}`);
    },
    'GET /api/v1/webhook-endpoints': async () => {
      const res = await asA('GET', '/api/v1/webhook-endpoints');
      const ids = res.json<{ data: Array<{ id: string }> }>().data.map((e) => e.id);
      expect(ids).toContain(endpointA.id);
      expect(ids).not.toContain(endpointB.id);
      expect(res.body).not.toContain('whsec_');
    },
    'GET /api/v1/webhook-endpoints/{id}': async () => {
      await refused('get B endpoint', 'GET', `/api/v1/webhook-endpoints/${endpointB.id}`, [endpointB.id]);
    },
    'DELETE /api/v1/webhook-endpoints/{id}': async () => {
      await refused('delete B endpoint', 'DELETE', `/api/v1/webhook-endpoints/${endpointB.id}`, [endpointB.id]);
    },
    'POST /api/v1/webhook-endpoints/{id}/rotate-secret': async () => {
      await refused('rotate B secret', 'POST', `/api/v1/webhook-endpoints/${endpointB.id}/rotate-secret`, [endpointB.id]);
    },
    'POST /api/v1/webhook-endpoints/{id}/enable': async () => {
      await refused('enable B endpoint', 'POST', `/api/v1/webhook-endpoints/${endpointB.id}/enable`, [endpointB.id]);
    },
    'GET /api/v1/webhook-endpoints/{id}/deliveries': async () => {
      await refused('list B deliveries', 'GET', `/api/v1/webhook-endpoints/${endpointB.id}/deliveries`, [endpointB.id]);
      // B's delivery as the cursor on A's own endpoint reveals nothing.
      const own = await asA('GET', `/api/v1/webhook-endpoints/${endpointA.id}/deliveries?starting_after=${deliveryB}`);
      expect(own.statusCode).toBe(200);
      expect(own.body).not.toContain(deliveryB);
      for (const marker of markersOfB) expect(own.body).not.toContain(marker);
    },
    'POST /api/v1/webhook-endpoints/{id}/deliveries/{delivery_id}/retry': async () => {
      await refused(
        'retry B delivery on B endpoint',
        'POST',
        `/api/v1/webhook-endpoints/${endpointB.id}/deliveries/${deliveryB}/retry`,
        [endpointB.id, deliveryB],
      );
      await refused(
        'retry B delivery on A endpoint',
        'POST',
        `/api/v1/webhook-endpoints/${endpointA.id}/deliveries/${deliveryB}/retry`,
        [deliveryB],
      );
      await refused(
        'retry A delivery on B endpoint',
        'POST',
        `/api/v1/webhook-endpoints/${endpointB.id}/deliveries/${deliveryA}/retry`,
        [endpointB.id, deliveryA],
      );
    },
    'GET /api/v1/events': async () => {
      const res = await asA('GET', '/api/v1/events?limit=100');
      expect(res.statusCode).toBe(200);
      expect(res.json<{ data: Array<{ id: string }> }>().data.length).toBeGreaterThan(0);
      for (const marker of [eventB, ...markersOfB]) expect(res.body).not.toContain(marker);
      // B's event as a cursor is refused, as an id that never existed
      for (const cursor of ['starting_after', 'ending_before']) {
        const viaB = await asA('GET', `/api/v1/events?${cursor}=${eventB}`);
        const ghost = await asA('GET', `/api/v1/events?${cursor}=evt_ghost0000000000000000000`);
        expect(viaB.statusCode).toBe(400);
        expect(normalisedError(viaB, [eventB])).toEqual(normalisedError(ghost, ['evt_ghost0000000000000000000']));
      }
    },
    'GET /api/v1/events/{id}': async () => {
      await refused('get B event', 'GET', `/api/v1/events/${eventB}`, [eventB]);
    },
    'GET /api/v1/webhook-endpoints/event-types': async () => {
      const [ra, rb] = [
        await asA('GET', '/api/v1/webhook-endpoints/event-types'),
        await ctx.inject({ method: 'GET', url: '/api/v1/webhook-endpoints/event-types', headers: b.auth }),
      ];
      expect(ra.statusCode).toBe(200);
      expect(ra.json()).toEqual(rb.json()); // the catalogue is the service's, the same for everyone
    },
    'PATCH /api/v1/webhook-endpoints/{id}': async () => {
      await refused('update B endpoint', 'PATCH', `/api/v1/webhook-endpoints/${endpointB.id}`, [endpointB.id], {
        url: 'http://127.0.0.1:9/stolen',
        disabled: true,
      });
    },
    'POST /api/v1/webhook-endpoints/{id}/test': async () => {
      await refused(
        'send a test event to B endpoint',
        'POST',
        `/api/v1/webhook-endpoints/${endpointB.id}/test`,
        [endpointB.id],
        {},
      );
    },
    'GET /api/v1/webhook-endpoints/{id}/stats': async () => {
      await refused('read B endpoint stats', 'GET', `/api/v1/webhook-endpoints/${endpointB.id}/stats`, [endpointB.id]);
    },
    'POST /api/v1/webhook-endpoints/{id}/recover': async () => {
      await refused('recover B endpoint', 'POST', `/api/v1/webhook-endpoints/${endpointB.id}/recover`, [endpointB.id], {
        since: '2020-01-01T00:00:00Z',
      });
    },
    'GET /api/v1/clients': async () => {
      const res = await asA('GET', '/api/v1/clients');
      expect(res.statusCode).toBe(200);
      const ids = res.json<{ data: Array<{ client_id: string }> }>().data.map((c) => c.client_id);
      expect(ids).toContain(a.clientId);
      for (const marker of markersOfB) expect(res.body).not.toContain(marker);
    },
    'POST /api/v1/clients': async () => {
      const created = await asA('POST', '/api/v1/clients', { name: 'alpha-second' });
      expect(created.statusCode).toBe(201);
      const id = created.json<{ client_id: string }>().client_id;
      const asB = (method: 'POST' | 'DELETE', url: string) => ctx.inject({ method, url, headers: b.auth });
      expectNotFound('B rotates the client A just created', await asB('POST', `/api/v1/clients/${id}/rotate-secret`));
      expectNotFound('B deletes the client A just created', await asB('DELETE', `/api/v1/clients/${id}`));
      const listB = await ctx.inject({ method: 'GET', url: '/api/v1/clients', headers: b.auth });
      expect(listB.body).not.toContain(id);
      expect((await asA('DELETE', `/api/v1/clients/${id}`)).statusCode).toBe(200);
    },
    'POST /api/v1/clients/{id}/rotate-secret': async () => {
      await refused('rotate B client secret', 'POST', `/api/v1/clients/${b.clientId}/rotate-secret`, [b.clientId], {
        expires_in_hours: 1,
      });
    },
    'DELETE /api/v1/clients/{id}': async () => {
      await refused('delete B client', 'DELETE', `/api/v1/clients/${b.clientId}`, [b.clientId]);
    },
  };

  it('has an isolation case for every partner operation of /openapi.json (and no stale case)', async () => {
    const partnerOps = (await openApiOperations(ctx.t.app)).filter((op) => op.security.includes('partner')).map(opKey);
    expect(partnerOps.filter((op) => /\{/.test(op)).length).toBeGreaterThan(8);
    expect([...partnerOps].sort()).toEqual(Object.keys(CASES).sort());
  });

  it.each(Object.keys(CASES))('%s: A cannot reach B', async (key) => {
    await CASES[key]?.();
  });

  it.each(Object.keys(CASES))("%s: A's console session cannot reach B", async (key) => {
    await asConsole(async () => CASES[key]?.());
  });

  it("A's attempts left every one of B's objects as it was", async () => {
    // the attempts that would change something, made here so this test stands on its own
    for (const key of Object.keys(CASES).filter((k) => /^(POST|DELETE|PATCH) /.test(k))) {
      await CASES[key]?.();
      await asConsole(async () => CASES[key]?.());
    }
    const ep = await ctx.inject({ method: 'GET', url: `/api/v1/webhook-endpoints/${endpointB.id}`, headers: b.auth });
    expect(ep.statusCode).toBe(200);
    expect(ep.json<Endpoint>()).toMatchObject({ url: endpointB.url, previous_secret_expires_at: null, status: 'enabled' });
    const dl = await ctx.inject({ method: 'GET', url: `/api/v1/webhook-endpoints/${endpointB.id}/deliveries`, headers: b.auth });
    expect(dl.json<{ data: Array<{ id: string }> }>().data.map((d) => d.id)).toContain(deliveryB);
    const bClients = await ctx.inject({ method: 'GET', url: '/api/v1/clients', headers: b.auth });
    expect(bClients.json<{ data: unknown[] }>().data).toEqual([
      expect.objectContaining({ client_id: b.clientId, active: true, previous_secret_expires_at: null }),
    ]);
    const bToken = await ctx.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: b.clientId,
        client_secret: b.clientSecret,
      }).toString(),
    });
    expect(bToken.statusCode).toBe(200); // B's secret was neither rotated nor its client deleted
    const bInds = await ctx.inject({ method: 'GET', url: `/api/v1/offers/${offerB.id}/indications`, headers: b.auth });
    expect(bInds.json<{ indications: Array<{ id: string; status: string }> }>().indications).toEqual([
      expect.objectContaining({ id: ind['b'], status: 'received', amount: 100_000 }),
    ]);
    const bShared = await ctx.inject({ method: 'GET', url: `/api/v1/indications/${ind['bShared']}`, headers: b.auth });
    expect(bShared.json()).toMatchObject({ status: 'received', amount: 100_000 });
  });

  it('an Idempotency-Key of one partner never replays for another', async () => {
    // an offer of its own: the indications made here must not show up in the other tests' lists
    const both = await ctx.newOffer({ ticker: 'IDM' });
    await ctx.share(a, both.id);
    await ctx.share(b, both.id);
    const key = 'shared-key-0001';
    const first = await ctx.indicate(a, both.id, body(both, 'inv_same'), { 'idempotency-key': key });
    const second = await ctx.indicate(b, both.id, body(both, 'inv_same'), { 'idempotency-key': key });
    expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.json<{ id: string }>().id).not.toBe(first.json<{ id: string }>().id);
    // and a different body under the same key is not a 422 "reused" for the other partner
    const third = await ctx.indicate(b, both.id, body(both, 'inv_other_b'), { 'idempotency-key': 'alpha-only-key' });
    const fourth = await ctx.indicate(a, both.id, body(both, 'inv_other_a'), { 'idempotency-key': 'alpha-only-key' });
    expect([third.statusCode, fourth.statusCode]).toEqual([201, 201]);
    // the replay does work for the same partner, so the check above can fail
    const replay = await ctx.indicate(a, both.id, body(both, 'inv_same'), { 'idempotency-key': key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });
});
