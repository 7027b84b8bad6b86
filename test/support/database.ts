import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the e2e tests through jest (test/setup/global-setup.ts)`);
  return value;
}

/** One query on the server's admin database (create/drop databases). */
export function adminQuery<T extends object = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  return queryAt<T>(required('TEST_PG_ADMIN_URL'), sql, params);
}

/** One query on the database at `url` through its own short-lived connection (no app pool, no proxy). */
export async function queryAt<T extends object = Record<string, unknown>>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A fresh database cloned from the migrated template, dropped by `drop()` (and, at the
 * latest, by global teardown).
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const runId = required('TEST_RUN_ID');
  const name = `platform_test_${runId}_${randomBytes(4).toString('hex')}`;
  const template = options.migrated === false ? 'template0' : required('TEST_PG_TEMPLATE');
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
      break;
    } catch (err) {
      // Two files cloning the template at the same instant: PostgreSQL refuses the second.
      if (attempt >= 20 || !/being accessed by other users/.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  const url = new URL(required('TEST_PG_ADMIN_URL'));
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}
