/**
 * scripts/dev-seed (the demo data of `npm start`), against the three services booted in-process
 * on one real database and listening on loopback ports, as dev-start runs them. Everything is
 * asserted through the services' own APIs.
 */
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { vectorService } from '../../apps/vector-api/src/service';
import { type DemoOutcome, type DemoService, seedDemo } from '../../scripts/dev-seed';
import type { PlatformConfig } from '@app/platform';
import { ADMIN_KEY, listen } from '../clients/support';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';

interface Offer {
  id: string;
  status: string;
  closes_at: string;
  shares_offered: number;
}

type Json = Record<string, unknown>;

async function call<T = Json>(base: string, bearer: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/**
 * Opens a sign-in link as the console page does: the token from the URL's fragment, posted to
 * POST /console/sign-in on the link's own origin. The session it creates, and its cookie.
 */
async function openLink(url: string): Promise<{ status: number; setCookie: string; tenant?: { id: string; name: string } }> {
  const link = new URL(url);
  const token = /^#token=(cl_[A-Za-z0-9]+)$/.exec(link.hash)?.[1] ?? '';
  const res = await fetch(new URL('/console/sign-in', link.origin), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  const body = (await res.json()) as { tenant?: { id: string; name: string } };
  return { status: res.status, setCookie: res.headers.get('set-cookie') ?? '', ...(body.tenant ? { tenant: body.tenant } : {}) };
}

describe('dev-seed: demo data and console links for npm start', () => {
  let db: TestDatabase;
  const apps: Array<TestApp<PlatformConfig>> = [];
  const base = {} as Record<DemoService, string>;
  let first: DemoOutcome[];

  const outcome = (list: DemoOutcome[], service: DemoService): DemoOutcome => {
    const found = list.find((o) => o.service === service);
    if (!found) throw new Error(`no outcome for ${service}`);
    return found;
  };
  const run = (services: Partial<Record<DemoService, string>> = base): Promise<DemoOutcome[]> =>
    seedDemo({ databaseUrl: db.url, adminKey: ADMIN_KEY, services, root: process.cwd() });

  beforeAll(async () => {
    db = await createTestDatabase();
    const started: Array<[DemoService, TestApp<PlatformConfig>]> = [
      ['offers-api', await startTestApp(offersService, {}, { db })],
      ['vector-api', await startTestApp(vectorService, {}, { db })],
      ['payments-api', await startTestApp(paymentsService, {}, { db })],
    ];
    for (const [name, t] of started) {
      apps.push(t);
      base[name] = await listen(t);
    }
    first = await run();
  }, 120_000);

  afterAll(async () => {
    for (const t of apps) await t.close();
    await db?.drop();
  });

  it('seeds each service once, through its API', () => {
    expect(first.map((o) => [o.service, o.action, o.name])).toEqual([
      ['offers-api', 'seeded', 'Demo Broker'],
      ['vector-api', 'seeded', 'Demo Project'],
      ['payments-api', 'seeded', 'Demo Shop'],
    ]);
    for (const o of first) expect(o.tenantId).toMatch(/^(ptn|proj|acct)_/);
  });

  describe('offers: Demo Broker', () => {
    let token: string;
    let offers: Offer[];
    beforeAll(async () => {
      const [clientId, clientSecret] = (outcome(first, 'offers-api').credential ?? ':').split(':');
      const res = await fetch(`${base['offers-api']}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId ?? '',
          client_secret: clientSecret ?? '',
        }),
      });
      token = ((await res.json()) as { access_token: string }).access_token;
      offers = (
        await call<{ offers: Offer[] }>(
          base['offers-api'],
          token,
          'GET',
          '/api/v1/offers?modified_after=2000-01-01T00:00:00Z&limit=100',
        )
      ).offers;
    });

    it('has an offer in every state: upcoming, live, live closing within the hour, closed, closed and allocated', async () => {
      const now = Date.now();
      const statuses = offers.map((o) => o.status).sort();
      expect(statuses).toEqual(['closed', 'closed', 'live', 'live', 'upcoming']);
      const live = offers.filter((o) => o.status === 'live');
      expect(live.filter((o) => Date.parse(o.closes_at) - now < 3_600_000)).toHaveLength(1);
      expect(live.filter((o) => Date.parse(o.closes_at) - now > 3_600_000)).toHaveLength(1);
      const allocated: boolean[] = [];
      for (const o of offers.filter((x) => x.status === 'closed')) {
        const list = await call<{ allocations: unknown[] }>(
          base['offers-api'],
          token,
          'GET',
          `/api/v1/offers/${o.id}/allocations`,
        );
        allocated.push(list.allocations.length > 0);
      }
      expect(allocated.sort()).toEqual([false, true]);
    });

    it('has indications on the live and closed offers, some cancelled, some amended', async () => {
      const all: Array<{ status: string; id: string }> = [];
      for (const o of offers.filter((x) => x.status !== 'upcoming')) {
        const list = await call<{ indications: Array<{ status: string; id: string }> }>(
          base['offers-api'],
          token,
          'GET',
          `/api/v1/offers/${o.id}/indications`,
        );
        expect(list.indications.filter((i) => i.status === 'received').length).toBeGreaterThan(0);
        all.push(...list.indications);
      }
      expect(all.filter((i) => i.status === 'cancelled').length).toBeGreaterThanOrEqual(3);
      const amended = await call<{ data: unknown[] }>(
        base['offers-api'],
        token,
        'GET',
        '/api/v1/events?type=indication.updated&limit=100',
      );
      expect(amended.data.length).toBeGreaterThanOrEqual(3);
    });

    it('allocated the oversubscribed offer: every investor scaled back, within the shares offered', async () => {
      const closed = offers.filter((o) => o.status === 'closed');
      let allocations: Array<{ outcome: string; shares_allocated: number; shares_requested: number }> = [];
      let offer: Offer | undefined;
      for (const o of closed) {
        const list = await call<{ allocations: typeof allocations }>(
          base['offers-api'],
          token,
          'GET',
          `/api/v1/offers/${o.id}/allocations`,
        );
        if (list.allocations.length > 0) [allocations, offer] = [list.allocations, o];
      }
      expect(allocations.length).toBeGreaterThanOrEqual(5);
      expect(allocations.every((a) => a.outcome === 'scaled')).toBe(true);
      const requested = allocations.reduce((sum, a) => sum + a.shares_requested, 0);
      const given = allocations.reduce((sum, a) => sum + a.shares_allocated, 0);
      expect(requested).toBeGreaterThan(offer?.shares_offered ?? Infinity);
      expect(given).toBeLessThanOrEqual(offer?.shares_offered ?? 0);
    });

    it('has a webhook endpoint, disabled, to point at a receiver', async () => {
      const endpoints = await call<{ data: Array<{ status: string; url: string }> }>(
        base['offers-api'],
        token,
        'GET',
        '/api/v1/webhook-endpoints',
      );
      expect(endpoints.data.map((e) => e.status)).toEqual(['disabled']);
    });
  });

  describe('vector: Demo Project', () => {
    const token = (): string => outcome(first, 'vector-api').credential ?? '';

    it('has the table articles with the package’s 778 real embeddings on an hnsw index', async () => {
      const table = await call<{ name: string; dimension: number; index: string; rows: number }>(
        base['vector-api'],
        token(),
        'GET',
        '/v1/tables/articles',
      );
      expect(table).toMatchObject({ name: 'articles', dimension: 384, index: 'hnsw', rows: 778 });
    });

    it('a query with a stored row’s embedding finds that row first, score ≈ 1', async () => {
      const ids = await call<{ ids: string[] }>(base['vector-api'], token(), 'GET', '/v1/tables/articles/vectors?limit=50');
      const id = ids.ids[37] ?? '';
      const fetched = await call<{ rows: Array<{ id: string; embedding: number[]; metadata: Json }> }>(
        base['vector-api'],
        token(),
        'POST',
        '/v1/tables/articles/fetch',
        { ids: [id], include_values: true },
      );
      const row = fetched.rows[0];
      expect([typeof row?.metadata['title'], typeof row?.metadata['category'], Array.isArray(row?.metadata['tags'])]).toEqual([
        'string',
        'string',
        true,
      ]);
      const result = await call<{ results: Array<{ id: string; score: number }> }>(
        base['vector-api'],
        token(),
        'POST',
        '/v1/tables/articles/query',
        { vector: row?.embedding, n: 5 },
      );
      expect(result.results[0]?.id).toBe(id);
      expect(result.results[0]?.score).toBeCloseTo(1, 4);
      expect(result.results[1]?.score).toBeLessThan(0.9999);
      // and filters make sense on the metadata
      const filtered = await call<{ results: Array<{ metadata: Json }> }>(
        base['vector-api'],
        token(),
        'POST',
        '/v1/tables/articles/query',
        {
          vector: row?.embedding,
          n: 10,
          filter: { category: 'Sapui5' },
        },
      );
      expect(filtered.results).toHaveLength(10);
      expect(filtered.results.every((r) => r.metadata['category'] === 'Sapui5')).toBe(true);
    });
  });

  describe('payments: Demo Shop', () => {
    it('has customers and payments succeeded, refunded in full and in part, failed, requires_capture and canceled', async () => {
      const key = outcome(first, 'payments-api').credential ?? '';
      const customers = await call<{ data: unknown[] }>(base['payments-api'], key, 'GET', '/v2/customers?limit=100');
      expect(customers.data.length).toBeGreaterThanOrEqual(5);
      const list = await call<{
        data: Array<{ status: string; amount: number; amount_refunded: number; refunded: boolean }>;
        has_more: boolean;
      }>(base['payments-api'], key, 'GET', '/v2/payments?limit=100');
      expect(list.has_more).toBe(false);
      const kinds = new Set(
        list.data.map((p) =>
          p.status === 'succeeded' && p.refunded
            ? 'refunded'
            : p.status === 'succeeded' && p.amount_refunded > 0
              ? 'partially_refunded'
              : p.status,
        ),
      );
      expect([...kinds].sort()).toEqual([
        'canceled',
        'failed',
        'partially_refunded',
        'refunded',
        'requires_capture',
        'succeeded',
      ]);
    });
  });

  it('issues a console sign-in link per demo tenant, on its service, that opens a session of that tenant once', async () => {
    for (const o of first) {
      expect(o.link?.url.startsWith(`${base[o.service]}/console/sign-in#token=cl_`)).toBe(true);
      // what a browser fetches for the link (the fragment stays in the browser): the console page
      const page = await fetch(o.link?.url ?? '');
      expect([page.status, page.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^text\/html/)]);
      const opened = await openLink(o.link?.url ?? '');
      expect(opened.status).toBe(200);
      expect(opened.setCookie).toMatch(/^console_session_[a-z]+=cs_[A-Za-z0-9]+;.*HttpOnly/i);
      expect(opened.tenant).toEqual({ id: o.tenantId, name: o.name });
      expect((await openLink(o.link?.url ?? '')).status).toBe(400);
    }
  });

  describe('a second run', () => {
    let second: DemoOutcome[];
    beforeAll(async () => {
      second = await run();
    });

    it('prints fresh links, which work', async () => {
      for (const o of second) {
        expect(o.link?.url).not.toBe(outcome(first, o.service).link?.url);
        const opened = await openLink(o.link?.url ?? '');
        expect([opened.status, opened.tenant?.id]).toEqual([200, o.tenantId]);
      }
    });

    it('finds the same demo tenants by name and seeds nothing more', async () => {
      expect(second.map((o) => [o.service, o.action, o.tenantId])).toEqual(first.map((o) => [o.service, 'found', o.tenantId]));
      expect(second.every((o) => o.credential === undefined)).toBe(true);
      const projects = await call<{ data: Array<{ name: string }> }>(base['vector-api'], ADMIN_KEY, 'GET', '/admin/v1/projects');
      expect(projects.data.map((p) => p.name).sort()).toEqual(['Demo Project', 'default']);
      const table = await call<{ rows: number }>(
        base['vector-api'],
        outcome(first, 'vector-api').credential ?? '',
        'GET',
        '/v1/tables/articles',
      );
      expect(table.rows).toBe(778);
      const payments = await call<{ data: unknown[] }>(
        base['payments-api'],
        outcome(first, 'payments-api').credential ?? '',
        'GET',
        '/v2/payments?limit=100',
      );
      expect(payments.data).toHaveLength(31);
    });
  });

  describe('what is not empty, or not running, is left alone', () => {
    let other: TestDatabase;
    let t: TestApp<PlatformConfig>;
    beforeAll(async () => {
      other = await createTestDatabase();
      t = await startTestApp(paymentsService, {}, { db: other });
    });
    afterAll(async () => {
      await t.close();
      await other.drop();
    });

    it('a service with data of its own gets no demo; one that fails is reported, not thrown', async () => {
      const payments = await listen(t);
      await call(payments, ADMIN_KEY, 'POST', '/admin/v1/accounts', { name: 'Real Shop' });
      const outcomes = await seedDemo({
        databaseUrl: other.url,
        adminKey: ADMIN_KEY,
        // nothing listens on port 9: the offers part is empty, so seeding it is tried, and fails
        services: { 'offers-api': 'http://127.0.0.1:9', 'payments-api': payments },
        root: process.cwd(),
      });
      expect(outcomes.map((o) => [o.service, o.action])).toEqual([
        ['offers-api', 'failed'],
        ['payments-api', 'skipped'],
      ]);
      expect(outcomes[0]?.problem).toEqual(expect.any(String));
      expect(outcomes[1]?.problem).toMatch(/data of its own/);
      expect(outcomes.every((o) => o.link === undefined)).toBe(true);
    });
  });
});
