/**
 * Demo data for `npm start` in development (issue 20, point 4): on a database where a
 * service's part is empty, seed one demo tenant through that service's own HTTP APIs
 * (admin routes, then the public routes with the credentials it creates); on every start,
 * find the demo tenants again by name and issue each a fresh console sign-in link
 * (`POST /admin/v1/console-links`). See directory.ts for what "empty" means.
 *
 * Each service is seeded and linked on its own: one failing leaves the others, and the
 * platform, running.
 */
import { DEMO_NAMES, type DemoService, readServiceStates } from './directory';
import { loadDemoArticles } from './embeddings';
import { SeedClient, SeedHttpError } from './http';
import { seedOffers } from './offers';
import { seedPayments } from './payments';
import { seedVector } from './vector';

export { DEMO_NAMES, type DemoService } from './directory';
export { DEMO_TABLE } from './vector';

export interface SeedOptions {
  readonly databaseUrl: string;
  readonly adminKey: string;
  /** Base URL (http://host:port) of each service that runs; the others are left alone. */
  readonly services: Partial<Record<DemoService, string>>;
  /** The repository root: its node_modules holds the demo embeddings package. */
  readonly root: string;
  readonly log?: (line: string) => void;
  /** Lifetime of the sign-in links (the contract allows at most 900 s). */
  readonly linkTtlSeconds?: number;
}

export interface DemoOutcome {
  readonly service: DemoService;
  readonly name: string;
  /** seeded: created now; found: existed already; skipped: the service has data of its own; failed. */
  readonly action: 'seeded' | 'found' | 'skipped' | 'failed';
  readonly tenantId?: string;
  readonly summary?: string;
  /**
   * The API credential the seeder made (seeded only; never printed): offers
   * `client_id:client_secret`, a vector token, the payments test key.
   */
  readonly credential?: string;
  readonly link?: { readonly url: string; readonly expires_at: string };
  /** Why there is no link (or why seeding failed): one line. */
  readonly problem?: string;
}

const ORDER: readonly DemoService[] = ['offers-api', 'vector-api', 'payments-api'];
const TENANT_FIELD: Readonly<Record<DemoService, string>> = {
  'offers-api': 'partner_id',
  'vector-api': 'project_id',
  'payments-api': 'account_id',
};

export async function seedDemo(options: SeedOptions): Promise<DemoOutcome[]> {
  const log = options.log ?? (() => undefined);
  const services = ORDER.filter((s) => options.services[s] !== undefined);
  const states = await readServiceStates(options.databaseUrl, services);
  const outcomes: DemoOutcome[] = [];
  for (const service of services) {
    const admin = new SeedClient(options.services[service] ?? '', options.adminKey);
    const state = states.get(service);
    const name = DEMO_NAMES[service];
    let outcome: DemoOutcome;
    if (state?.demoId) {
      outcome = { service, name, action: 'found', tenantId: state.demoId };
    } else if (!state?.empty) {
      outcome = { service, name, action: 'skipped', problem: 'the database has data of its own; no demo seeded' };
    } else {
      log(`demo data: seeding ${name} (${service})...`);
      try {
        outcome = { service, name, action: 'seeded', ...(await seedOne(service, admin, options.root, log)) };
      } catch (err) {
        outcome = { service, name, action: 'failed', problem: messageOf(err) };
      }
    }
    if (outcome.tenantId) outcome = { ...outcome, ...(await linkFor(service, admin, outcome.tenantId, options.linkTtlSeconds)) };
    outcomes.push(outcome);
  }
  return outcomes;
}

async function seedOne(
  service: DemoService,
  admin: SeedClient,
  root: string,
  log: (line: string) => void,
): Promise<{ tenantId: string; summary: string; credential: string }> {
  switch (service) {
    case 'offers-api': {
      const demo = await seedOffers(admin, Date.now(), log);
      return { tenantId: demo.partnerId, summary: `${Object.keys(demo.offers).length} offers`, credential: demo.credential };
    }
    case 'vector-api': {
      const demo = await seedVector(admin, loadDemoArticles(root));
      return { tenantId: demo.projectId, summary: `table articles, ${demo.rows} rows`, credential: demo.token };
    }
    case 'payments-api': {
      const demo = await seedPayments(admin);
      return { tenantId: demo.accountId, summary: `${demo.payments} payments`, credential: demo.testKey };
    }
  }
}

async function linkFor(
  service: DemoService,
  admin: SeedClient,
  tenantId: string,
  ttlSeconds: number | undefined,
): Promise<Pick<DemoOutcome, 'link' | 'problem'>> {
  try {
    const link = await admin.post<{ url: string; expires_at: string }>('/admin/v1/console-links', {
      [TENANT_FIELD[service]]: tenantId,
      ...(ttlSeconds === undefined ? {} : { ttl_seconds: ttlSeconds }),
    });
    // an absolute URL (PUBLIC_URL or the request's host); a bare path is made absolute here
    return { link: { url: new URL(link.url, admin.baseUrl).toString(), expires_at: link.expires_at } };
  } catch (err) {
    if (err instanceof SeedHttpError && err.status === 404 && err.code === 'route_not_found') {
      return { problem: 'this build has no console sign-in links (POST /admin/v1/console-links is missing)' };
    }
    return { problem: `no sign-in link: ${messageOf(err)}` };
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
