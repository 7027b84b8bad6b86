import type { Db, Queryable, SqlTx, Tx } from './handles';
import type { PrismaService } from './prisma.service';

// What each handle admits is decided by the compiler: each `@ts-expect-error` below fails
// `npm run typecheck` the day the line it marks starts to compile (say, if the brand that
// only TransactionRunner adds were dropped from Tx).
const needsTx = (tx: Tx): Tx => tx;
const needsSqlTx = (tx: SqlTx): SqlTx => tx;
const oneStatement = (db: Db): Db => db;
const rawStatement = (db: Queryable): Queryable => db;

describe('database handles', () => {
  const pool = { name: 'pool' } as unknown as PrismaService;
  const tx = { name: 'tx' } as unknown as Tx;
  const sqlTx = { name: 'sqlTx' } as unknown as SqlTx;

  it('refuses the pool where a transaction is needed', () => {
    // @ts-expect-error the pool is not a transaction
    expect(needsTx(pool)).toBe(pool);
    // @ts-expect-error nor a raw-statement transaction
    expect(needsSqlTx(pool)).toBe(pool);
  });

  it('takes a Tx wherever an SqlTx, a Db or a Queryable is enough, and the pool for one statement', () => {
    expect(needsSqlTx(tx)).toBe(tx);
    expect(oneStatement(tx)).toBe(tx);
    expect(oneStatement(pool)).toBe(pool);
    expect(rawStatement(pool)).toBe(pool);
    expect(rawStatement(sqlTx)).toBe(sqlTx);
  });

  it('refuses an SqlTx where the model API is needed', () => {
    // @ts-expect-error an SqlTx has $queryRaw and $executeRaw only
    expect(needsTx(sqlTx)).toBe(sqlTx);
    // @ts-expect-error nor is it the pool's Db
    expect(oneStatement(sqlTx)).toBe(sqlTx);
  });
});
