import { ADMIN, type ErrorJson, HOUR, iso, type OfferJson, OffersContext, type Partner, startOffers } from './fixtures';

interface IndicationJson {
  id: string;
  offer_id: string;
  investor_id: string;
  amount: number;
  currency: string;
  terms_version: string;
  status: string;
  created_at: string;
}

describe('offers-api: indications', () => {
  let ctx: OffersContext;
  let alice: Partner;
  let bob: Partner;
  let offer: OfferJson; // live, gbp, minimum £250, price £2.50
  const good = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
    investor_id: 'inv_8842',
    amount: 100_000,
    currency: 'gbp',
    terms_accepted: true,
    terms_version: 'tc-2',
    ...overrides,
  });

  beforeAll(async () => {
    ctx = new OffersContext(await startOffers());
    alice = await ctx.newPartner('Alice Invest');
    bob = await ctx.newPartner('Bob Shares');
    await ctx.publishTerms('tc-1');
    await ctx.publishTerms('tc-2');
    offer = await ctx.newOffer();
    await ctx.share(alice, offer.id);
    await ctx.share(bob, offer.id);
  });
  afterAll(async () => {
    await ctx.t.close();
  });

  it('records an indication: 201 with the stored record and an indication.received event', async () => {
    const res = await ctx.indicate(alice, offer.id, good());
    expect(res.statusCode).toBe(201);
    const body = res.json<IndicationJson>();
    expect(body).toEqual({
      id: expect.stringMatching(/^ind_[A-Za-z0-9]{24}$/) as string,
      offer_id: offer.id,
      investor_id: 'inv_8842',
      amount: 100_000,
      currency: 'gbp',
      terms_version: 'tc-2',
      status: 'received',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/) as string,
    });
    const events = await ctx.events(alice.id, 'indication.received');
    expect(events.map((e) => e.data)).toContainEqual(body);
    // bob shares the offer but hears nothing of alice's indication
    expect((await ctx.events(bob.id, 'indication.received')).filter((e) => e.data['id'] === body.id)).toEqual([]);
  });

  it('accepts exactly the minimum (minimum_investment × 100 minor units)', async () => {
    const res = await ctx.indicate(alice, offer.id, good({ amount: 25_000, investor_id: 'inv_min' }));
    expect(res.statusCode).toBe(201);
  });

  const fieldErrors: Array<[string, Record<string, unknown>, string, string]> = [
    ['investor_id without inv_', { investor_id: '8842' }, 'investor_id', 'parameter_invalid'],
    ['investor_id inv_ alone', { investor_id: 'inv_' }, 'investor_id', 'parameter_invalid'],
    ['investor_id with a space', { investor_id: 'inv_a b' }, 'investor_id', 'parameter_invalid'],
    ['investor_id a number', { investor_id: 8842 }, 'investor_id', 'parameter_invalid'],
    ['investor_id missing', { investor_id: undefined }, 'investor_id', 'parameter_missing'],
    ['amount a decimal', { amount: 1000.5 }, 'amount', 'parameter_invalid'],
    ['amount a string', { amount: '100000' }, 'amount', 'parameter_invalid'],
    ['amount zero', { amount: 0 }, 'amount', 'parameter_invalid'],
    ['amount negative', { amount: -5 }, 'amount', 'parameter_invalid'],
    ['amount missing', { amount: undefined }, 'amount', 'parameter_missing'],
    ['amount below the minimum', { amount: 24_999 }, 'amount', 'amount_too_small'],
    ['currency uppercase', { currency: 'GBP' }, 'currency', 'parameter_invalid'],
    ['currency usd', { currency: 'usd' }, 'currency', 'parameter_invalid'],
    ['currency not the offer’s', { currency: 'eur' }, 'currency', 'parameter_invalid'],
    ['currency missing', { currency: undefined }, 'currency', 'parameter_missing'],
    ['terms_accepted false', { terms_accepted: false }, 'terms_accepted', 'terms_not_accepted'],
    ['terms_accepted a string', { terms_accepted: 'true' }, 'terms_accepted', 'parameter_invalid'],
    ['terms_accepted missing', { terms_accepted: undefined }, 'terms_accepted', 'parameter_missing'],
    ['terms_version old', { terms_version: 'tc-1' }, 'terms_version', 'terms_version_invalid'],
    ['terms_version unknown', { terms_version: 'nope' }, 'terms_version', 'terms_version_invalid'],
    ['terms_version missing', { terms_version: undefined }, 'terms_version', 'parameter_missing'],
    ['an unknown field', { note: 'hi' }, 'note', 'parameter_unknown'],
  ];
  it.each(fieldErrors)('refuses %s (400 %s)', async (_name, overrides, param, code) => {
    const before = (await ctx.events(alice.id, 'indication.received')).length;
    const res = await ctx.indicate(alice, offer.id, good(overrides));
    expect(res.statusCode).toBe(400);
    const { error } = res.json<ErrorJson>();
    expect(error).toMatchObject({ type: 'invalid_request_error', code, param });
    expect(error.request_id).toBe(res.headers['request-id']);
    expect((await ctx.events(alice.id, 'indication.received')).length).toBe(before);
  });

  it('names the current terms version when terms_version is wrong', async () => {
    const res = await ctx.indicate(alice, offer.id, good({ terms_version: 'tc-1' }));
    expect(res.json<ErrorJson>().error.message).toContain("'tc-2'");
    expect(res.json<ErrorJson>().error['current_version']).toBe('tc-2');
  });

  it('states the minimum in minor units', async () => {
    const res = await ctx.indicate(alice, offer.id, good({ amount: 100 }));
    expect(res.json<ErrorJson>().error).toMatchObject({ code: 'amount_too_small', minimum_amount: 25_000 });
  });

  it('states a fractional minimum as the offer shows it (250.50 → 25,050 minor units)', async () => {
    const odd = await ctx.newOffer({ minimum_investment: 250.5, price_per_share: 2.5 });
    await ctx.share(alice, odd.id);
    const low = await ctx.indicate(alice, odd.id, good({ amount: 25_049 }));
    expect(low.statusCode).toBe(400);
    expect(low.json<ErrorJson>().error).toMatchObject({ code: 'amount_too_small', minimum_amount: 25_050 });
    expect(low.json<ErrorJson>().error.message).toContain('minimum_investment 250.5 gbp');
    expect((await ctx.indicate(alice, odd.id, good({ amount: 25_050 }))).statusCode).toBe(201);
  });

  it('takes concurrent indications on one offer (shared row lock): every one lands with its event', async () => {
    const busy = await ctx.newOffer();
    await ctx.share(alice, busy.id);
    const n = 24;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        ctx.indicate(alice, busy.id, good({ investor_id: `inv_burst_${i}` }), { 'idempotency-key': `burst-${i}` }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array.from({ length: n }, () => 201));
    const list = await ctx.inject({ method: 'GET', url: `/api/v1/offers/${busy.id}/indications`, headers: alice.auth });
    expect(list.json<{ total: number }>().total).toBe(n);
    const events = await ctx.events(alice.id, 'indication.received');
    expect(events.filter((e) => e.data['offer_id'] === busy.id)).toHaveLength(n);
  });

  it('refuses a body that is not a JSON object or not JSON', async () => {
    const arr = await ctx.inject({
      method: 'POST',
      url: `/api/v1/offers/${offer.id}/indications`,
      headers: { ...alice.auth, 'content-type': 'application/json' },
      payload: '[1]',
    });
    expect(arr.statusCode).toBe(400);
    const broken = await ctx.inject({
      method: 'POST',
      url: `/api/v1/offers/${offer.id}/indications`,
      headers: { ...alice.auth, 'content-type': 'application/json' },
      payload: '{"amount": ',
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json<ErrorJson>().error.code).toBe('invalid_json');
  });

  it('is 409 offer_not_live on an upcoming or closed offer', async () => {
    const now = Date.now();
    const upcoming = await ctx.newOffer({ opens_at: iso(now + HOUR), closes_at: iso(now + 2 * HOUR) });
    const closed = await ctx.newOffer({ opens_at: iso(now - 2 * HOUR), closes_at: iso(now - HOUR) });
    for (const o of [upcoming, closed]) {
      await ctx.share(alice, o.id);
      const res = await ctx.indicate(alice, o.id, good());
      expect(res.statusCode).toBe(409);
      expect(res.json<ErrorJson>().error).toMatchObject({
        type: 'invalid_request_error',
        code: 'offer_not_live',
        offer_status: o.status,
      });
    }
  });

  it('checks the currency against the offer (eur offer)', async () => {
    const eur = await ctx.newOffer({ currency: 'eur', minimum_investment: 10, price_per_share: 10 });
    await ctx.share(alice, eur.id);
    expect((await ctx.indicate(alice, eur.id, good({ currency: 'gbp' }))).statusCode).toBe(400);
    const ok = await ctx.indicate(alice, eur.id, good({ currency: 'eur', amount: 1_000 }));
    expect(ok.statusCode).toBe(201);
    expect(ok.json<IndicationJson>().currency).toBe('eur');
  });

  it("lists only the caller's own indications; another partner's are invisible", async () => {
    const both = await ctx.newOffer();
    await ctx.share(alice, both.id);
    await ctx.share(bob, both.id);
    const indicate = async (p: Partner, investor: string): Promise<IndicationJson> => {
      const res = await ctx.indicate(p, both.id, good({ investor_id: investor }));
      expect(res.statusCode).toBe(201);
      return res.json<IndicationJson>();
    };
    const alices = [await indicate(alice, 'inv_alice_1'), await indicate(alice, 'inv_alice_2')];
    await indicate(bob, 'inv_bob');
    const aliceList = await ctx.inject({ method: 'GET', url: `/api/v1/offers/${both.id}/indications`, headers: alice.auth });
    expect(aliceList.statusCode).toBe(200);
    const list = aliceList.json<{ indications: IndicationJson[]; total: number }>();
    expect(list.indications.map((i) => i.id).sort()).toEqual(alices.map((i) => i.id).sort());
    expect(list.total).toBe(2);
    const bobList = await ctx.inject({ method: 'GET', url: `/api/v1/offers/${both.id}/indications`, headers: bob.auth });
    expect(bobList.json<{ indications: IndicationJson[] }>().indications.map((i) => i.investor_id)).toEqual(['inv_bob']);
    // Bob cannot cancel Alice's indication: it does not exist for him.
    const del = await ctx.inject({
      method: 'DELETE',
      url: `/api/v1/offers/${both.id}/indications/${alices[0]?.id}`,
      headers: bob.auth,
    });
    expect(del.statusCode).toBe(404);
    expect(del.json<ErrorJson>().error.code).toBe('resource_missing');
  });

  it('cancels an indication while the offer is live, idempotently; not after it closed', async () => {
    const created = (await ctx.indicate(alice, offer.id, good({ investor_id: 'inv_cancel' }))).json<IndicationJson>();
    const url = `/api/v1/offers/${offer.id}/indications/${created.id}`;
    const del = await ctx.inject({ method: 'DELETE', url, headers: alice.auth });
    expect(del.statusCode).toBe(200);
    expect(del.json<IndicationJson>()).toEqual({ ...created, status: 'cancelled' });
    const again = await ctx.inject({ method: 'DELETE', url, headers: alice.auth });
    expect(again.json<IndicationJson>().status).toBe('cancelled');
    const missing = await ctx.inject({
      method: 'DELETE',
      url: `/api/v1/offers/${offer.id}/indications/ind_nope`,
      headers: alice.auth,
    });
    expect(missing.statusCode).toBe(404);

    const short = await ctx.newOffer();
    await ctx.share(alice, short.id);
    const kept = (await ctx.indicate(alice, short.id, good({ investor_id: 'inv_kept' }))).json<IndicationJson>();
    const close = await ctx.inject({
      method: 'PATCH',
      url: `/admin/v1/offers/${short.id}`,
      headers: ADMIN,
      payload: { closes_at: iso(Date.now() - 1000) },
    });
    expect(close.json<OfferJson>().status).toBe('closed');
    const late = await ctx.inject({
      method: 'DELETE',
      url: `/api/v1/offers/${short.id}/indications/${kept.id}`,
      headers: alice.auth,
    });
    expect(late.statusCode).toBe(409);
    expect(late.json<ErrorJson>().error.code).toBe('offer_not_live');
    expect(late.json<ErrorJson>().error.message).toBe(
      `Offer ${short.id} is closed; indications are cancelled only while it is live.`,
    );
  });

  describe('Idempotency-Key', () => {
    it('replays the first response for the same key and body, and records one indication', async () => {
      const key = { 'idempotency-key': 'order-77' };
      const first = await ctx.indicate(alice, offer.id, good({ investor_id: 'inv_idem' }), key);
      expect(first.statusCode).toBe(201);
      const second = await ctx.indicate(alice, offer.id, good({ investor_id: 'inv_idem' }), key);
      expect(second.statusCode).toBe(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.json()).toEqual(first.json());
      const list = await ctx.inject({ method: 'GET', url: `/api/v1/offers/${offer.id}/indications`, headers: alice.auth });
      const mine = list.json<{ indications: IndicationJson[] }>().indications.filter((i) => i.investor_id === 'inv_idem');
      expect(mine).toHaveLength(1);
      const events = await ctx.events(alice.id, 'indication.received');
      expect(events.filter((e) => e.data['investor_id'] === 'inv_idem')).toHaveLength(1);
    });

    it('refuses the same key with another body', async () => {
      const key = { 'idempotency-key': 'order-78' };
      expect((await ctx.indicate(alice, offer.id, good({ investor_id: 'inv_k1' }), key)).statusCode).toBe(201);
      const other = await ctx.indicate(alice, offer.id, good({ investor_id: 'inv_k2' }), key);
      expect(other.statusCode).toBe(422);
      expect(other.json<ErrorJson>().error.type).toBe('idempotency_error');
    });

    it('scopes keys per client: the same key from another partner is a new request', async () => {
      const key = { 'idempotency-key': 'order-79' };
      const a = await ctx.indicate(alice, offer.id, good({ investor_id: 'inv_scope' }), key);
      const b = await ctx.indicate(bob, offer.id, good({ investor_id: 'inv_scope' }), key);
      expect(b.statusCode).toBe(201);
      expect(b.headers['idempotent-replayed']).toBeUndefined();
      expect(b.json<IndicationJson>().id).not.toBe(a.json<IndicationJson>().id);
    });
  });
});
