/**
 * Test data for the HTTP benchmark, created only through the services' public and admin
 * APIs (the admin key is the one the benchmark gave the platform): an offers partner with
 * an OAuth client and token, published terms and ~50 offers; a vector token and an hnsw
 * table of 10,000 random unit vectors; a payments account, its test key and a customer.
 */
import type { Log, Platform } from './platform';
import { mulberry32 } from '../../test/support/random';

export const VECTOR_DIM = 128;
export const VECTOR_ROWS = 10_000;

/** What was seeded, per service (a part is undefined when it was not needed). */
export interface Seed {
  readonly offers?: {
    readonly token: string;
    readonly liveOfferId: string;
    readonly termsVersion: string;
    readonly currency: string;
    /** Smallest accepted indication amount, minor units. */
    readonly minimumAmount: number;
    readonly visibleOffers: number;
  };
  readonly vector?: { readonly token: string; readonly table: string };
  readonly payments?: { readonly key: string; readonly customerId: string };
}

/** The engine tests' seeded generator (mulberry32), so every run queries and stores the same vectors. */
export const rng = mulberry32;

/** A random unit vector (Gaussian components, normalised), rounded to 6 decimals like real JSON payloads. */
export function unitVector(rand: () => number, dim: number): number[] {
  const v = new Array<number>(dim);
  let norm = 0;
  for (let i = 0; i < dim; i++) {
    const g = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    v[i] = g;
    norm += g * g;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dim; i++) v[i] = Math.round((v[i] / norm) * 1e6) / 1e6;
  return v;
}

interface CallOptions {
  readonly token?: string;
  readonly body?: unknown;
  readonly form?: Record<string, string>;
  readonly expect?: number;
}

async function call<T>(method: string, url: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  const ok = options.expect === undefined ? res.status >= 200 && res.status < 300 : res.status === options.expect;
  if (!ok) throw new Error(`seeding: ${method} ${url} → ${res.status}: ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

const HOUR = 3_600_000;
const iso = (ms: number): string => new Date(ms).toISOString();
const COMPANIES = ['Acme Robotics', 'Borealis Foods', 'Cobalt Grid', 'Delta Biotech', 'Evergreen Homes', 'Fjord Shipping'];
const TYPES = ['ipo', 'placing', 'retail_offer'] as const;

async function seedOffers(p: Platform, run: string, log: Log): Promise<NonNullable<Seed['offers']>> {
  const admin = p.adminKey;
  const base = p.offers;
  const termsVersion = `bench-${run}`;
  await call(`POST`, `${base}/admin/v1/terms`, {
    token: admin,
    body: { version: termsVersion, title: 'Investor terms', body: 'Capital at risk. '.repeat(40) },
  });
  const partner = await call<{ id: string }>('POST', `${base}/admin/v1/partners`, {
    token: admin,
    body: { name: `Bench Wealth ${run}`, tier: 'enterprise' },
  });
  const other = await call<{ id: string }>('POST', `${base}/admin/v1/partners`, {
    token: admin,
    body: { name: `Other Partner ${run}`, tier: 'growth' },
  });
  const client = await call<{ client_id: string; client_secret: string }>(
    'POST',
    `${base}/admin/v1/partners/${partner.id}/clients`,
    {
      token: admin,
    },
  );
  const tokenRes = await call<{ access_token: string }>('POST', `${base}/oauth/token`, {
    form: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
  });

  // 50 offers: 30 live and 10 upcoming in the partner's agreement, 10 live in another partner's.
  const now = Date.now();
  let liveOfferId = '';
  let visibleOffers = 0;
  for (let i = 0; i < 50; i++) {
    const upcoming = i >= 30 && i < 40;
    const offer = await call<{ id: string; status: string }>('POST', `${base}/admin/v1/offers`, {
      token: admin,
      body: {
        company: `${COMPANIES[i % COMPANIES.length]} ${i} plc`,
        ticker: `B${String(i).padStart(3, '0')}`,
        type: TYPES[i % TYPES.length],
        price_per_share: 1 + (i % 7) * 0.25,
        currency: i % 4 === 3 ? 'eur' : 'gbp',
        minimum_investment: 100 + (i % 5) * 50,
        opens_at: iso(upcoming ? now + (24 + i) * HOUR : now - (i + 1) * HOUR),
        closes_at: iso(now + (72 + i) * HOUR),
        shares_offered: 1_000_000 + i * 1000,
      },
    });
    if (!upcoming && offer.status !== 'live') throw new Error(`seeding: offer ${offer.id} is ${offer.status}, expected live`);
    const owner = i < 40 ? partner.id : other.id;
    await call('PUT', `${base}/admin/v1/partners/${owner}/offers/${offer.id}`, { token: admin });
    if (owner === partner.id) visibleOffers++;
    if (i === 0) liveOfferId = offer.id;
  }
  const first = await call<{ currency: string; minimum_investment: number }>('GET', `${base}/api/v1/offers/${liveOfferId}`, {
    token: tokenRes.access_token,
  });
  log(`offers: enterprise partner ${partner.id}, terms ${termsVersion}, 50 offers (${visibleOffers} in its agreement)`);
  return {
    token: tokenRes.access_token,
    liveOfferId,
    termsVersion,
    currency: first.currency,
    minimumAmount: Math.round(first.minimum_investment * 100),
    visibleOffers,
  };
}

async function seedVector(p: Platform, run: string, log: Log): Promise<NonNullable<Seed['vector']>> {
  const base = p.vector;
  const { token } = await call<{ token: string }>('POST', `${base}/admin/v1/tokens`, {
    token: p.adminKey,
    body: { name: `bench-http-${run}` },
  });
  const table = 'bench_hnsw';
  await call('POST', `${base}/v1/tables`, { token, body: { name: table, dimension: VECTOR_DIM, index: 'hnsw' } });
  const rand = rng(20261121);
  const categories = ['news', 'sports', 'finance', 'science', 'travel', 'food', 'music', 'film'];
  for (let start = 0; start < VECTOR_ROWS; start += 1000) {
    const rows = [];
    for (let r = start; r < Math.min(VECTOR_ROWS, start + 1000); r++) {
      rows.push({
        id: `doc-${r}`,
        embedding: unitVector(rand, VECTOR_DIM),
        metadata: { category: categories[r % categories.length], year: 2000 + (r % 26), tags: [`t${r % 13}`, `t${r % 7}`] },
      });
    }
    await call('POST', `${base}/v1/tables/${table}/insert`, { token, body: { rows } });
  }
  const deadline = Date.now() + 180_000;
  for (;;) {
    const t = await call<{ rows: number; index_status: { state: string; details: Record<string, unknown> } }>(
      'GET',
      `${base}/v1/tables/${table}`,
      { token },
    );
    const pending = Number(t.index_status.details.pending ?? 0);
    if (t.rows === VECTOR_ROWS && t.index_status.state === 'ready' && pending === 0) break;
    if (Date.now() > deadline) throw new Error(`seeding: hnsw index not ready after 180 s: ${JSON.stringify(t.index_status)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  log(`vector: hnsw table ${table}, ${VECTOR_ROWS} rows × ${VECTOR_DIM}, index ready`);
  return { token, table };
}

async function seedPayments(p: Platform, run: string, log: Log): Promise<NonNullable<Seed['payments']>> {
  const base = p.payments;
  const account = await call<{ id: string; test_key: string }>('POST', `${base}/admin/v1/accounts`, {
    token: p.adminKey,
    body: { name: `Bench Shop ${run}` },
  });
  const customer = await call<{ id: string }>('POST', `${base}/v2/customers`, {
    token: account.test_key,
    body: { email: 'bench@example.com', name: 'Bench Customer', metadata: { source: 'bench-http' } },
  });
  log(`payments: account ${account.id}, customer ${customer.id}`);
  return { key: account.test_key, customerId: customer.id };
}

export type SeedPart = 'offers' | 'vector' | 'payments';

/** Seeds the given services (all by default; `--only` seeds just what its scenarios need). */
export async function seed(
  p: Platform,
  run: string,
  log: Log,
  parts: readonly SeedPart[] = ['offers', 'vector', 'payments'],
): Promise<Seed> {
  const [offers, vector, payments] = await Promise.all([
    parts.includes('offers') ? seedOffers(p, run, log) : undefined,
    parts.includes('vector') ? seedVector(p, run, log) : undefined,
    parts.includes('payments') ? seedPayments(p, run, log) : undefined,
  ]);
  return { offers, vector, payments };
}
