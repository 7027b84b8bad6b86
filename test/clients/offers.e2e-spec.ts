/**
 * The partner flow of docs/offers.md written with @securities-platform/offers-client (typed
 * by the offers-api OpenAPI document) against a listening offers-api: token → offers → terms
 * → indication → indications.
 */
import {
  createOffersClient,
  fetchAccessToken,
  type ApiError,
  type OAuthError,
  type OffersClient,
} from '@securities-platform/offers-client';
import { offersService } from '../../apps/offers-api/src/service';
import { startTestApp, type TestApp } from '../support/app';
import { ADMIN_KEY, listen } from './support';

describe('offers-client against offers-api', () => {
  let t: TestApp<InstanceType<typeof offersService.configClass>>;
  let baseUrl: string;
  let offerId: string;
  let clientId: string;
  let clientSecret: string;

  beforeAll(async () => {
    t = await startTestApp(offersService);
    baseUrl = await listen(t);
    // Operator set-up with the same client and the admin key: partner, OAuth client, terms, a live offer, agreement.
    const admin = createOffersClient({ baseUrl, accessToken: ADMIN_KEY });
    const partner = await admin.POST('/admin/v1/partners', { body: { name: 'Acme Wealth', tier: 'growth' } });
    if (!partner.data) throw new Error(`partner: ${partner.response.status}`);
    const client = await admin.POST('/admin/v1/partners/{id}/clients', { params: { path: { id: partner.data.id } } });
    if (!client.data) throw new Error(`client: ${client.response.status}`);
    ({ client_id: clientId, client_secret: clientSecret } = client.data);
    const terms = await admin.POST('/admin/v1/terms', {
      body: { version: '2026-11-01', title: 'Investor terms', body: 'Capital at risk.' },
    });
    expect(terms.response.status).toBe(201);
    const offer = await admin.POST('/admin/v1/offers', {
      body: {
        company: 'Acme Robotics plc',
        ticker: 'ACME',
        type: 'ipo',
        price_per_share: 2.5,
        currency: 'gbp',
        minimum_investment: 250,
        opens_at: new Date(Date.now() - 60_000).toISOString(),
        closes_at: new Date(Date.now() + 14 * 86_400_000).toISOString(),
        shares_offered: 40_000_000,
      },
    });
    if (!offer.data) throw new Error(`offer: ${offer.response.status}`);
    offerId = offer.data.id;
    const agreement = await admin.PUT('/admin/v1/partners/{id}/offers/{offer_id}', {
      params: { path: { id: partner.data.id, offer_id: offerId } },
    });
    expect(agreement.response.status).toBe(200);
  });
  afterAll(async () => {
    await t.close();
  });

  async function partnerClient(): Promise<OffersClient> {
    const token = await fetchAccessToken({ baseUrl, clientId, clientSecret });
    if (!token.data) throw new Error(`token: ${token.response.status} ${JSON.stringify(token.error)}`);
    return createOffersClient({ baseUrl, accessToken: token.data.access_token });
  }

  it('token → list offers → terms → indication → list indications', async () => {
    const token = await fetchAccessToken({ baseUrl, clientId, clientSecret });
    if (!token.data) throw new Error(`token: ${token.response.status} ${JSON.stringify(token.error)}`);
    expect(token.data).toEqual({ access_token: expect.any(String) as unknown, token_type: 'Bearer', expires_in: 3600 });
    const api = createOffersClient({ baseUrl, accessToken: token.data.access_token });

    const offers = await api.GET('/api/v1/offers', { params: { query: { status: 'live', type: 'ipo', limit: 20 } } });
    expect(offers.response.status).toBe(200);
    expect(offers.data?.offers.map((o) => [o.id, o.status])).toEqual([[offerId, 'live']]);

    const terms = await api.GET('/api/v1/terms');
    if (!terms.data) throw new Error(`terms: ${terms.response.status}`);
    expect(terms.data.version).toBe('2026-11-01');

    const body = {
      investor_id: 'inv_8842',
      amount: 100_000,
      currency: 'gbp',
      terms_accepted: true,
      terms_version: terms.data.version,
    } as const;
    const indication = await api.POST('/api/v1/offers/{offer_id}/indications', {
      params: { path: { offer_id: offerId }, header: { 'Idempotency-Key': 'order-8842' } },
      body,
    });
    expect(indication.response.status).toBe(201);
    expect(indication.data).toMatchObject({ offer_id: offerId, investor_id: 'inv_8842', amount: 100_000, status: 'received' });

    const list = await api.GET('/api/v1/offers/{offer_id}/indications', { params: { path: { offer_id: offerId } } });
    expect(list.response.status).toBe(200);
    expect(list.data?.indications.map((i) => i.id)).toEqual([indication.data?.id]);
  });

  it('hands back the error bodies, typed by the package', async () => {
    const refused = await fetchAccessToken({ baseUrl, clientId, clientSecret: 'wrong' });
    expect(refused.response.status).toBe(401);
    const oauth: OAuthError | undefined = refused.error;
    expect(oauth).toEqual({ error: 'invalid_client', error_description: expect.any(String) as unknown });

    const api = createOffersClient({ baseUrl, accessToken: 'not-a-token' });
    const res = await api.GET('/api/v1/offers/{id}', { params: { path: { id: offerId } } });
    expect(res.response.status).toBe(401);
    expect((res.error as ApiError | undefined)?.error.code).toBe('invalid_token');
  });

  it('refuses at compile time what the OpenAPI document does not allow (tsc checks the @ts-expect-error lines)', async () => {
    const api = await partnerClient();
    const res = await api.POST('/api/v1/offers/{offer_id}/indications', {
      params: { path: { offer_id: offerId } },
      body: {
        // @ts-expect-error `investor` is not a field of IndicationCreateDto (investor_id is)
        investor: 'inv_1',
        amount: 100_000,
        currency: 'gbp',
        terms_accepted: true,
        terms_version: '2026-11-01',
      },
    });
    // The server refuses it too, at run time.
    expect(res.response.status).toBe(400);
    expect((res.error as ApiError | undefined)?.error).toMatchObject({ code: 'parameter_unknown', param: 'investor' });
    // @ts-expect-error there is no such path in offers-api's document
    await expect(api.GET('/api/v1/offerz', {})).resolves.toMatchObject({ response: { status: 404 } });
  });
});
