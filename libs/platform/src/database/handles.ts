import type { Prisma } from './generated/client';

/**
 * The database handles (docs/architecture.md, "Persistence"). Which one a function takes
 * says what it may do:
 *
 * - `Tx`: a transaction in progress, Prisma's model API and raw statements. Only
 *   TransactionRunner creates one (`run`). A write that needs a transaction takes
 *   `tx: Tx`; the pool (PrismaService) has no brand, so the compiler refuses it there.
 * - `SqlTx`: a transaction of raw statements only, run on a pooled `pg` connection
 *   without Prisma's interactive transaction (`runSql`, the measured hot write paths).
 *   Every `Tx` is also an `SqlTx`; a model call on an `SqlTx` does not compile.
 * - `Db`: the pool or a transaction, for one statement atomic by itself (model API).
 * - `Queryable`: anything that runs one raw statement, the pool included. A statement that
 *   is atomic by itself (an upsert, a fan-out INSERT … RETURNING) takes this.
 * - The pool itself is the injected `PrismaService` (reads and single-statement writes),
 *   and `PrismaService.direct` runs raw statements on it without Prisma's per-call work.
 */
declare const inTransaction: unique symbol;

interface InTransaction {
  readonly [inTransaction]: true;
}

/** Raw statements (`Prisma.sql` or a tagged template; never an unsafe string), on whatever handle. */
export interface Queryable {
  $queryRaw<T = unknown>(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<T>;
  /** The number of rows the statement affected. */
  $executeRaw(query: TemplateStringsArray | Prisma.Sql, ...values: unknown[]): Promise<number>;
}

/**
 * The pool or a transaction, for one statement that is atomic by itself (a read, an
 * update of one row): the injected PrismaService, or a Tx passed on. Never for work of
 * two or more writes that must commit together: that takes `Tx`.
 */
export type Db = Prisma.TransactionClient;

/** A transaction in progress (Prisma's interactive transaction). Created only by TransactionRunner. */
export type Tx = Prisma.TransactionClient & InTransaction;

/** A raw-statement transaction (TransactionRunner.runSql). Created only by TransactionRunner. */
export type SqlTx = Queryable & InTransaction;

/** The runner's one way to mark a handle as a transaction (not exported from the library). */
export function asTx(client: Prisma.TransactionClient): Tx {
  return client as Tx;
}

export function asSqlTx(client: Queryable): SqlTx {
  return client as SqlTx;
}
