/**
 * The offers demo: partner "Demo Broker" (an OAuth client, enterprise tier) and offers in
 * every state, each reached through the real lifecycle (docs/offers.md): an offer created with
 * opens_at in the past opens at once, and moving closes_at into the past closes it at once
 * (offer.closed to the agreement's partners). Then indications (some amended, some cancelled)
 * and an oversubscribed offer allocated pro rata.
 */
import type { SeedClient } from './http';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface Offer {
  id: string;
  status: string;
}

interface DemoOffer {
  readonly key: string;
  readonly company: string;
  readonly ticker: string;
  readonly type: 'ipo' | 'placing' | 'retail_offer';
  readonly currency: 'gbp' | 'eur';
  readonly pricePerShare: number;
  readonly minimumInvestment: number;
  readonly maximumInvestment: number | null;
  readonly sharesOffered: number;
  /** Relative to now. */
  readonly opensIn: number;
  readonly closesIn: number;
  /** Indication amounts in major units; `amend` and `cancel` pick some by index. */
  readonly indications: readonly number[];
  readonly amend?: ReadonlyArray<readonly [index: number, amount: number]>;
  readonly cancel?: readonly number[];
  /** Close the offer (closes_at moved to now) once its indications are in. */
  readonly close?: boolean;
  /** Allocate it after closing. */
  readonly allocate?: { sharesAvailable: number; policy: 'pro_rata' | 'min_then_pro_rata'; minimumShares?: number };
}

/** One offer per state: upcoming, live, live closing soon, closed, closed and allocated. */
const OFFERS: readonly DemoOffer[] = [
  {
    key: 'upcoming',
    company: 'Northwind Wind Farms plc',
    ticker: 'NWND',
    type: 'ipo',
    currency: 'gbp',
    pricePerShare: 1.25,
    minimumInvestment: 250,
    maximumInvestment: 50_000,
    sharesOffered: 2_000_000,
    opensIn: 3 * DAY,
    closesIn: 10 * DAY,
    indications: [],
  },
  {
    key: 'live',
    company: 'Acme Robotics plc',
    ticker: 'ACME',
    type: 'ipo',
    currency: 'gbp',
    pricePerShare: 2.5,
    minimumInvestment: 250,
    maximumInvestment: 100_000,
    sharesOffered: 4_000_000,
    opensIn: -2 * DAY,
    closesIn: 7 * DAY,
    indications: [1_000, 2_500, 500, 12_000, 750, 5_000],
    amend: [[1, 3_000]],
    cancel: [4],
  },
  {
    key: 'closing_soon',
    company: 'Bluebird Foods AG',
    ticker: 'BLUE',
    type: 'placing',
    currency: 'eur',
    pricePerShare: 4,
    minimumInvestment: 500,
    maximumInvestment: null,
    sharesOffered: 500_000,
    opensIn: -3 * DAY,
    // within the last hour: offer.closing_soon fires at once; it closes on its own while you look
    closesIn: 50 * MINUTE,
    indications: [2_000, 800, 15_000],
    amend: [[1, 1_200]],
  },
  {
    key: 'closed',
    company: 'Cobalt Minerals plc',
    ticker: 'COBM',
    type: 'retail_offer',
    currency: 'gbp',
    pricePerShare: 0.8,
    minimumInvestment: 100,
    maximumInvestment: 20_000,
    sharesOffered: 1_000_000,
    opensIn: -6 * DAY,
    closesIn: 1 * DAY,
    indications: [400, 1_600, 250, 9_000],
    cancel: [2],
    close: true,
  },
  {
    key: 'allocated',
    company: 'Helix Therapeutics plc',
    ticker: 'HLX',
    type: 'ipo',
    currency: 'gbp',
    pricePerShare: 5,
    minimumInvestment: 1_000,
    maximumInvestment: 60_000,
    // £100,000 of shares; the indications below ask for £190,000 (after the amendment and the
    // cancellation): oversubscribed 1.9×
    sharesOffered: 20_000,
    opensIn: -9 * DAY,
    closesIn: 1 * DAY,
    indications: [10_000, 25_000, 50_000, 4_000, 60_000, 12_500, 3_000, 20_000, 7_500],
    amend: [[3, 5_000]],
    cancel: [6],
    close: true,
    allocate: { sharesAvailable: 20_000, policy: 'pro_rata' },
  },
];

export interface OffersDemo {
  readonly partnerId: string;
  /** `client_id:client_secret` of the partner's OAuth client. */
  readonly credential: string;
  readonly offers: Readonly<Record<string, string>>;
}

export async function seedOffers(admin: SeedClient, now: number, log: (line: string) => void): Promise<OffersDemo> {
  const terms = await admin.post<{ version: string }>('/admin/v1/terms', {
    version: `demo-${new Date(now).toISOString().slice(0, 10)}`,
    title: 'Demo investor terms',
    body: 'Demo data for local development. Capital at risk: the value of shares can fall as well as rise.',
  });
  const partner = await admin.post<{ id: string }>('/admin/v1/partners', { name: 'Demo Broker', tier: 'enterprise' });
  const client = await admin.post<{ client_id: string; client_secret: string }>(`/admin/v1/partners/${partner.id}/clients`);
  const token = await admin.send<{ access_token: string }>('POST', '/oauth/token', {
    form: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
  });
  const api = admin.as(token.body.access_token);

  const ids: Record<string, string> = {};
  let investor = 0;
  for (const spec of OFFERS) {
    const created = await admin.post<Offer>('/admin/v1/offers', {
      company: spec.company,
      ticker: spec.ticker,
      type: spec.type,
      price_per_share: spec.pricePerShare,
      currency: spec.currency,
      minimum_investment: spec.minimumInvestment,
      maximum_investment: spec.maximumInvestment,
      shares_offered: spec.sharesOffered,
      opens_at: new Date(now + spec.opensIn).toISOString(),
      closes_at: new Date(now + spec.closesIn).toISOString(),
      documents: [
        {
          type: 'prospectus',
          title: `${spec.company} prospectus`,
          url: `https://example.com/demo/${spec.ticker.toLowerCase()}/prospectus.pdf`,
        },
        {
          type: 'key_information',
          title: 'Key information document',
          url: `https://example.com/demo/${spec.ticker.toLowerCase()}/kid.pdf`,
        },
      ],
    });
    ids[spec.key] = created.id;
    await admin.put(`/admin/v1/partners/${partner.id}/offers/${created.id}`);

    const indicationIds: string[] = [];
    for (const amount of spec.indications) {
      investor += 1;
      const indication = await api.post<{ id: string }>(`/api/v1/offers/${created.id}/indications`, {
        investor_id: `inv_demo_${String(investor).padStart(4, '0')}`,
        amount: amount * 100,
        currency: spec.currency,
        terms_accepted: true,
        terms_version: terms.version,
      });
      indicationIds.push(indication.id);
    }
    for (const [index, amount] of spec.amend ?? []) {
      await api.patch(`/api/v1/offers/${created.id}/indications/${indicationIds[index]}`, { amount: amount * 100 });
    }
    for (const index of spec.cancel ?? []) {
      await api.delete(`/api/v1/offers/${created.id}/indications/${indicationIds[index]}`);
    }
    if (spec.close) {
      // closes_at reached: the admin change closes it through the lifecycle (offer.closed)
      const closed = await admin.patch<Offer>(`/admin/v1/offers/${created.id}`, {
        closes_at: new Date(Date.now() - 1_000).toISOString(),
      });
      if (closed.status !== 'closed') throw new Error(`offer ${created.id} did not close (status ${closed.status})`);
    }
    if (spec.allocate) {
      await admin.post(`/admin/v1/offers/${created.id}/allocations`, {
        shares_available: spec.allocate.sharesAvailable,
        policy: spec.allocate.policy,
        ...(spec.allocate.minimumShares === undefined ? {} : { minimum_allocation_shares: spec.allocate.minimumShares }),
      });
    }
  }

  await addDisabledWebhookEndpoint(api, log);
  return { partnerId: partner.id, credential: `${client.client_id}:${client.client_secret}`, offers: ids };
}

/**
 * A webhook endpoint, disabled (nothing is sent): the console's Webhooks page then has one to
 * edit, point at a real receiver and enable. Optional: a refusal is logged, not fatal.
 */
async function addDisabledWebhookEndpoint(api: SeedClient, log: (line: string) => void): Promise<void> {
  try {
    const endpoint = await api.post<{ id: string }>('/api/v1/webhook-endpoints', {
      url: 'http://127.0.0.1:9/demo-webhooks',
      description: 'Demo endpoint (disabled): point it at your receiver, then enable it',
    });
    await api.patch(`/api/v1/webhook-endpoints/${endpoint.id}`, { disabled: true });
  } catch (err) {
    log(`demo data: offers webhook endpoint skipped (${err instanceof Error ? err.message : String(err)})`);
  }
}
