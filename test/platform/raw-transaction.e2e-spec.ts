import { Prisma, PrismaService, TransactionRunner } from '@app/platform';
import { rawTransaction, TransactionExpiredError } from '../../libs/platform/src/database/direct-sql';
import { isDependencyUnavailable } from '../../libs/platform/src/errors/unavailable';
import { createTestDatabase, queryAt, type TestDatabase } from '../support/database';

/**
 * The `runSql` transactions of TransactionRunner (the hot write paths, docs/decisions.md
 * 116–117, 236), its Closing and completion hook, and PrismaService.direct: raw statements on the pool Prisma's adapter uses, on
 * real PostgreSQL. One pooled connection, so a connection left in a transaction, or never
 * returned, fails the next test.
 */
describe('raw transactions on the Prisma pool (runSql)', () => {
  let db: TestDatabase;
  let prisma: PrismaService;
  const ids = (): Promise<string[]> =>
    queryAt<{ id: string }>(db.url, 'SELECT id FROM raw_tx_probe ORDER BY id').then((r) => r.map((x) => x.id));

  beforeAll(async () => {
    db = await createTestDatabase();
    await queryAt(db.url, 'CREATE TABLE raw_tx_probe (id text PRIMARY KEY, at timestamptz(3) NOT NULL, data jsonb, n int)');
    prisma = new PrismaService({ url: db.url, poolSize: 1 });
  });
  beforeEach(() => queryAt(db.url, 'TRUNCATE raw_tx_probe'));
  afterAll(async () => {
    await prisma.$disconnect();
    await db.drop();
  });

  it('commits the work and returns results as $queryRaw does (timestamptz → Date, jsonb parsed, int)', async () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const result = await rawTransaction(prisma.pool, async (tx) => {
      await tx.$executeRaw`INSERT INTO raw_tx_probe (id, at, data, n) VALUES (${'a'}, ${at}, ${JSON.stringify({ b: 1, a: [2] })}::jsonb, ${7})`;
      const affected = await tx.$executeRaw(Prisma.sql`UPDATE raw_tx_probe SET n = n + 1 WHERE id = ${'a'}`);
      const rows = await tx.$queryRaw<Array<{ at: Date; data: unknown; n: number }>>`SELECT at, data, n FROM raw_tx_probe`;
      return { affected, rows };
    });
    expect(result.affected).toBe(1);
    expect(result.rows).toEqual([{ at, data: { a: [2], b: 1 }, n: 8 }]);
    expect(result.rows[0]?.at).toBeInstanceOf(Date);
    // what Prisma reads back is the same
    const viaPrisma = await prisma.$queryRaw<Array<{ at: Date; data: unknown; n: number }>>`SELECT at, data, n FROM raw_tx_probe`;
    expect(viaPrisma).toEqual(result.rows);
    expect(await ids()).toEqual(['a']);
  });

  it('rolls back everything when the work throws, and the connection serves the next transaction', async () => {
    const failure = new Error('work failed');
    await expect(
      rawTransaction(prisma.pool, async (tx) => {
        await tx.$executeRaw`INSERT INTO raw_tx_probe (id, at) VALUES (${'x'}, now())`;
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await ids()).toEqual([]);
    // a statement error aborts the transaction; the same (only) connection is clean afterwards
    await expect(
      rawTransaction(prisma.pool, async (tx) => {
        await tx.$executeRaw`INSERT INTO raw_tx_probe (id, at) VALUES (${'y'}, now())`;
        await tx.$executeRaw`INSERT INTO raw_tx_probe (id, at) VALUES (${'y'}, now())`;
      }),
    ).rejects.toMatchObject({ code: '23505' });
    await rawTransaction(prisma.pool, (tx) => tx.$executeRaw`INSERT INTO raw_tx_probe (id, at) VALUES (${'z'}, now())`);
    expect(await ids()).toEqual(['z']);
    expect(await prisma.direct.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
  });

  it('writes the Closing and the completion hook as its last statement, and rolls them back with the work', async () => {
    const runner = new TransactionRunner(prisma);
    const row = (id: string): Prisma.Sql => Prisma.sql`INSERT INTO raw_tx_probe (id, at) VALUES (${id}, now()) RETURNING id`;
    let committed = 0;
    const completion = { statement: (result: string) => row(`${result}-stored`), committed: () => void committed++ };
    const starts = [
      ['sql', runner.runSql.bind(runner)],
      ['run', runner.run.bind(runner)],
    ] as const;
    for (const [kind, start] of starts) {
      const result = await start(
        async (tx, closing) => {
          await tx.$executeRaw`INSERT INTO raw_tx_probe (id, at) VALUES (${`${kind}-work`}, now())`;
          closing.write(row(`${kind}-outbox-1`));
          closing.write(row(`${kind}-outbox-2`));
          return kind;
        },
        { completion },
      );
      expect(result).toBe(kind);
      await expect(
        start(
          async (tx, closing) => {
            await tx.$executeRaw`INSERT INTO raw_tx_probe (id, at) VALUES (${`${kind}-lost`}, now())`;
            closing.write(row(`${kind}-lost-outbox`));
            return Promise.reject(new Error('work failed'));
          },
          { completion },
        ),
      ).rejects.toThrow('work failed');
    }
    expect(await ids()).toEqual(
      ['run', 'sql'].flatMap((k) => [`${k}-outbox-1`, `${k}-outbox-2`, `${k}-stored`, `${k}-work`]).sort(),
    );
    expect(committed).toBe(2);
  });

  it('past its timeout the transaction fails its next statement and rolls back, as a 503 condition', async () => {
    let caught: unknown;
    try {
      await rawTransaction(
        prisma.pool,
        async (tx) => {
          await tx.$executeRaw`INSERT INTO raw_tx_probe (id, at) VALUES (${'t1'}, now())`;
          await new Promise((r) => setTimeout(r, 150));
          await tx.$executeRaw`INSERT INTO raw_tx_probe (id, at) VALUES (${'t2'}, now())`;
        },
        { timeoutMs: 50 },
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TransactionExpiredError);
    expect(isDependencyUnavailable(caught)).toBe(true);
    // work that ends past the timeout without another statement is not committed either
    await expect(
      rawTransaction(
        prisma.pool,
        async (tx) => {
          await tx.$executeRaw`INSERT INTO raw_tx_probe (id, at) VALUES (${'t3'}, now())`;
          await new Promise((r) => setTimeout(r, 150));
        },
        { timeoutMs: 50 },
      ),
    ).rejects.toBeInstanceOf(TransactionExpiredError);
    expect(await ids()).toEqual([]);
  });

  it('gives up after maxWaitMs without a pooled connection (503), and the late connection returns to the pool', async () => {
    const held = await prisma.pool.connect();
    let caught: unknown;
    try {
      await rawTransaction(prisma.pool, (tx) => tx.$executeRaw`SELECT 1`, { maxWaitMs: 100 });
    } catch (error) {
      caught = error;
    } finally {
      held.release();
    }
    expect(String(caught)).toMatch(/timeout exceeded when trying to connect/);
    expect(isDependencyUnavailable(caught)).toBe(true);
    await rawTransaction(prisma.pool, (tx) => tx.$executeRaw`INSERT INTO raw_tx_probe (id, at) VALUES (${'w'}, now())`, {
      maxWaitMs: 1_000,
    });
    expect(await ids()).toEqual(['w']);
  });

  it('PrismaService.direct runs autocommit statements on the same pool', async () => {
    expect(await prisma.direct.$executeRaw`INSERT INTO raw_tx_probe (id, at) VALUES (${'d'}, now())`).toBe(1);
    expect(await prisma.direct.$queryRaw(Prisma.sql`SELECT id FROM raw_tx_probe`)).toEqual([{ id: 'd' }]);
    expect(prisma.pool.totalCount).toBeLessThanOrEqual(1);
  });
});
