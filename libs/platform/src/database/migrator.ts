import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from 'pg';

/**
 * Applies prisma/migrations/<name>/migration.sql in name order and records each in
 * `_prisma_migrations` exactly as `prisma migrate deploy` does (same table, checksum =
 * sha256 hex of the file), so the Prisma CLI accepts the database on a machine that has
 * its schema engine. Prisma's CLI cannot run here (docs/decisions.md).
 *
 * Differences from Prisma, both stricter: each migration runs inside one transaction with
 * its bookkeeping row, so a failed migration leaves nothing behind; and an applied
 * migration whose file changed stops the run instead of only warning.
 */

/** The advisory lock key `prisma migrate` takes, so our runner and Prisma's exclude each other. */
const PRISMA_ADVISORY_LOCK = 72707369;

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationFile {
  readonly name: string;
  readonly sql: string;
  readonly checksum: string;
}

export interface MigrationResult {
  readonly applied: string[];
  readonly alreadyApplied: string[];
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

export const DEFAULT_MIGRATIONS_DIR = resolve(process.cwd(), 'prisma', 'migrations');

export function readMigrations(dir: string = DEFAULT_MIGRATIONS_DIR): MigrationFile[] {
  if (!existsSync(dir)) throw new MigrationError(`Migrations folder not found: ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql, 'utf8').digest('hex') };
    });
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

export async function migrate(
  databaseUrl: string,
  options: { dir?: string; log?: (line: string) => void } = {},
): Promise<MigrationResult> {
  const log = options.log ?? (() => undefined);
  const files = readMigrations(options.dir);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK]);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const { rows } = await client.query<AppliedRow>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"',
    );
    const byName = new Map<string, AppliedRow>();
    for (const row of rows) if (row.rolled_back_at === null) byName.set(row.migration_name, row);

    const failed = rows.find((r) => r.finished_at === null && r.rolled_back_at === null);
    if (failed) {
      throw new MigrationError(
        `Migration ${failed.migration_name} started but did not finish; resolve it (prisma migrate resolve) before migrating again`,
      );
    }

    const result: MigrationResult = { applied: [], alreadyApplied: [] };
    for (const file of files) {
      const existing = byName.get(file.name);
      if (existing) {
        if (existing.checksum !== file.checksum) {
          throw new MigrationError(`Migration ${file.name} was modified after it was applied (checksum differs)`);
        }
        result.alreadyApplied.push(file.name);
        continue;
      }
      const id = randomUUID();
      try {
        await client.query('BEGIN');
        await client.query(
          'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
          [id, file.checksum, file.name],
        );
        await client.query(file.sql);
        await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new MigrationError(`Migration ${file.name} failed: ${(err as Error).message}`);
      }
      log(`applied migration ${file.name}`);
      result.applied.push(file.name);
    }
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK]).catch(() => undefined);
    await client.end();
  }
}
