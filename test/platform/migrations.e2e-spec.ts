import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { clientDataModel, findSchemaDrift, migrate, PrismaService, readMigrations } from '@app/platform';
import { createTestDatabase, type TestDatabase } from '../support/database';

const MIGRATIONS = join(process.cwd(), 'prisma', 'migrations');

async function withClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

describe('migration runner', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase({ migrated: false });
  });
  afterEach(async () => {
    await db.drop();
  });

  it('applies every migration once and is idempotent', async () => {
    const names = readMigrations(MIGRATIONS).map((m) => m.name);
    expect(names.length).toBeGreaterThan(0);
    const first = await migrate(db.url, { dir: MIGRATIONS });
    expect(first).toEqual({ applied: names, alreadyApplied: [] });
    const second = await migrate(db.url, { dir: MIGRATIONS });
    expect(second).toEqual({ applied: [], alreadyApplied: names });
    const rows = await withClient(db.url, (c) => c.query<{ n: number }>('SELECT count(*)::int AS n FROM "_prisma_migrations"'));
    expect(rows.rows[0]?.n).toBe(names.length);
  });

  it('records migrations in _prisma_migrations the way Prisma does', async () => {
    await migrate(db.url, { dir: MIGRATIONS });
    const { rows } = await withClient(db.url, (c) =>
      c.query<{ migration_name: string; checksum: string; finished_at: Date | null; applied_steps_count: number; id: string }>(
        'SELECT * FROM "_prisma_migrations" ORDER BY migration_name',
      ),
    );
    expect(rows.map((r) => r.migration_name)).toEqual(readMigrations(MIGRATIONS).map((m) => m.name));
    for (const row of rows) {
      const sql = readFileSync(join(MIGRATIONS, row.migration_name, 'migration.sql'));
      expect(row.checksum).toBe(createHash('sha256').update(sql).digest('hex'));
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.applied_steps_count).toBe(1);
      expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('runs concurrently started migrations one at a time (advisory lock)', async () => {
    const results = await Promise.all([migrate(db.url, { dir: MIGRATIONS }), migrate(db.url, { dir: MIGRATIONS })]);
    const applied = results.flatMap((r) => r.applied);
    expect(applied).toEqual(readMigrations(MIGRATIONS).map((m) => m.name));
  });

  it('refuses an applied migration whose file changed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
    try {
      cpSync(MIGRATIONS, dir, { recursive: true });
      await migrate(db.url, { dir });
      const first = readMigrations(dir)[0];
      if (!first) throw new Error('no migrations');
      writeFileSync(join(dir, first.name, 'migration.sql'), `${first.sql}\n-- edited\n`);
      await expect(migrate(db.url, { dir })).rejects.toThrow(/was modified after it was applied/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rolls back a failing migration completely and reports it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
    try {
      cpSync(MIGRATIONS, dir, { recursive: true });
      const bad = join(dir, '99999999999999_broken');
      cpSync(join(dir, readMigrations(dir)[0]?.name ?? ''), bad, { recursive: true });
      writeFileSync(join(bad, 'migration.sql'), 'CREATE TABLE half_done (id int);\nSELECT * FROM no_such_table;\n');
      await expect(migrate(db.url, { dir })).rejects.toThrow(/99999999999999_broken failed/);
      const tables = await withClient(db.url, (c) => c.query<{ t: string | null }>(`SELECT to_regclass('half_done') AS t`));
      expect(tables.rows[0]?.t).toBeNull();
      const recorded = await withClient(db.url, (c) =>
        c.query(`SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '99999999999999_broken'`),
      );
      expect(recorded.rowCount).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('schema drift between prisma/schema.prisma (generated client) and the migrations', () => {
  let db: TestDatabase;
  let prisma: PrismaService;
  beforeAll(async () => {
    db = await createTestDatabase();
    prisma = new PrismaService({ url: db.url, poolSize: 1 });
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await db.drop();
  });

  it('finds none on the migrated database', async () => {
    const model = clientDataModel(prisma);
    expect(Object.keys(model.models).length).toBeGreaterThan(0);
    const drift = await withClient(db.url, (c) => findSchemaDrift(c, model));
    expect(drift).toEqual({ missingTables: [], missingColumns: [], extraColumns: [], missingEnumValues: [] });
  });

  it('reports a missing column, a missing table and an unknown column', async () => {
    const scratch = await createTestDatabase();
    try {
      await withClient(scratch.url, async (c) => {
        await c.query('ALTER TABLE idempotency_keys DROP COLUMN fingerprint');
        await c.query('ALTER TABLE idempotency_keys ADD COLUMN surprise int');
      });
      const drift = await withClient(scratch.url, (c) => findSchemaDrift(c, clientDataModel(prisma)));
      expect(drift.missingColumns).toEqual(['idempotency_keys.fingerprint']);
      expect(drift.extraColumns).toEqual(['idempotency_keys.surprise']);
      await withClient(scratch.url, (c) => c.query('DROP TABLE idempotency_keys'));
      const dropped = await withClient(scratch.url, (c) => findSchemaDrift(c, clientDataModel(prisma)));
      expect(dropped.missingTables).toEqual(['idempotency_keys']);
    } finally {
      await scratch.drop();
    }
  });
});
