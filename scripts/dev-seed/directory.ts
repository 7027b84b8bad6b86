/**
 * What the seeder needs to know before it touches anything: for each service, is its part of
 * the database empty, and does a demo tenant (by name) exist already? Read-only SQL, because
 * the admin APIs list projects but neither partners nor payment accounts; every write goes
 * through the services' HTTP APIs.
 *
 * "Empty", per service (each service's tables are its own, so `npm run start:vector` on a
 * database where only offers data exists still seeds the vector demo):
 * - offers: no partners, no offers and no published terms;
 * - vector: no project but the migrated `default` one (proj_default), no tables and no tokens
 *   (tokens made through the old `POST /admin/v1/tokens` land in `default`);
 * - payments: no accounts.
 */
import { Client } from 'pg';

export type DemoService = 'offers-api' | 'vector-api' | 'payments-api';

export interface ServiceState {
  /** The demo tenant's id when one of that name exists (the oldest, if several). */
  readonly demoId: string | undefined;
  readonly empty: boolean;
}

export const DEMO_NAMES: Readonly<Record<DemoService, string>> = {
  'offers-api': 'Demo Broker',
  'vector-api': 'Demo Project',
  'payments-api': 'Demo Shop',
};

const STATE_SQL: Readonly<Record<DemoService, { demo: string; empty: string }>> = {
  'offers-api': {
    demo: 'SELECT id FROM partners WHERE name = $1 ORDER BY created_at, id LIMIT 1',
    empty: `SELECT NOT EXISTS (SELECT 1 FROM partners) AND NOT EXISTS (SELECT 1 FROM offers)
              AND NOT EXISTS (SELECT 1 FROM terms_versions) AS empty`,
  },
  'vector-api': {
    demo: 'SELECT id FROM vector_projects WHERE name = $1 ORDER BY created_at, id LIMIT 1',
    empty: `SELECT NOT EXISTS (SELECT 1 FROM vector_projects WHERE id <> 'proj_default')
              AND NOT EXISTS (SELECT 1 FROM vector_tables) AND NOT EXISTS (SELECT 1 FROM vector_tokens) AS empty`,
  },
  'payments-api': {
    demo: 'SELECT id FROM payment_accounts WHERE name = $1 ORDER BY created_at, id LIMIT 1',
    empty: 'SELECT NOT EXISTS (SELECT 1 FROM payment_accounts) AS empty',
  },
};

export async function readServiceStates(
  databaseUrl: string,
  services: readonly DemoService[],
): Promise<Map<DemoService, ServiceState>> {
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const states = new Map<DemoService, ServiceState>();
    for (const service of services) {
      const sql = STATE_SQL[service];
      const demo = await client.query<{ id: string }>(sql.demo, [DEMO_NAMES[service]]);
      const empty = await client.query<{ empty: boolean }>(sql.empty);
      states.set(service, { demoId: demo.rows[0]?.id, empty: empty.rows[0]?.empty === true });
    }
    return states;
  } finally {
    await client.end().catch(() => undefined);
  }
}
