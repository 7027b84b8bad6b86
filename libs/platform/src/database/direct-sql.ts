import type { Pool, PoolClient } from 'pg';
import { Prisma } from './generated/client';
import type { Queryable } from './handles';

/**
 * The raw-SQL helper of the measured hot paths: statements on node-postgres directly (docs/decisions.md
 * 116–117): the same `Prisma.sql` statements and the same pooled connections as Prisma's
 * `$queryRaw` / `$executeRaw`, without Prisma's per-call work (request pipeline, query
 * plan interpretation, tracing spans), which cost more CPU than PostgreSQL spends on them.
 *
 * Results are node-postgres' defaults, which for the column types these statements read
 * are what `$queryRaw` returns too: text, int4 → number, timestamptz → Date, jsonb →
 * parsed JSON. (int8 and numeric would differ: string here, bigint / Decimal there; the
 * hot statements cast such columns to text or int.)
 */

type Connection = Pick<Pool | PoolClient, 'query'>;
type RawArgs = [query: Prisma.Sql | TemplateStringsArray, ...values: unknown[]];

function toSql([query, ...values]: RawArgs): Prisma.Sql {
  return query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values);
}

function send(db: Connection, args: RawArgs) {
  const sql = toSql(args);
  return db.query({ text: sql.text, values: sql.values });
}

async function rows<T>(db: Connection, args: RawArgs): Promise<T> {
  return (await send(db, args)).rows as T;
}

async function count(db: Connection, args: RawArgs): Promise<number> {
  return (await send(db, args)).rowCount ?? 0;
}

/** `$queryRaw` / `$executeRaw` (tagged template or `Prisma.sql`), autocommit on the pool. */
export class DirectSql implements Queryable {
  constructor(private readonly pool: Pool) {}

  $queryRaw<T = unknown>(...args: RawArgs): Promise<T> {
    return rows<T>(this.pool, args);
  }

  /** The number of rows the statement affected. */
  $executeRaw(...args: RawArgs): Promise<number> {
    return count(this.pool, args);
  }
}

/** The transaction ran past its timeout (Prisma's interactive transaction reports the same with P2028: 503). */
export class TransactionExpiredError extends Error {
  readonly code = 'P2028';
  constructor(timeoutMs: number) {
    super(`Transaction expired: it ran longer than its ${timeoutMs} ms timeout and was rolled back.`);
    this.name = 'TransactionExpiredError';
  }
}

/**
 * The connection of a `runSql` transaction: `$queryRaw` and `$executeRaw` only (its type,
 * SqlTx, has nothing else), failing once the transaction has run past its timeout.
 */
class RawTransaction implements Queryable {
  expired = false;

  constructor(
    private readonly client: PoolClient,
    private readonly timeoutMs: number,
  ) {}

  $queryRaw<T = unknown>(...args: RawArgs): Promise<T> {
    if (this.expired) return Promise.reject(new TransactionExpiredError(this.timeoutMs));
    return rows<T>(this.client, args);
  }

  $executeRaw(...args: RawArgs): Promise<number> {
    if (this.expired) return Promise.reject(new TransactionExpiredError(this.timeoutMs));
    return count(this.client, args);
  }
}

/** A pooled connection within `maxWaitMs`, or the pool's own "timeout exceeded" error (503 via isDependencyUnavailable). */
async function connect(pool: Pool, maxWaitMs: number): Promise<PoolClient> {
  let timer: NodeJS.Timeout | undefined;
  let gaveUp = false;
  const pending = pool.connect();
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      gaveUp = true;
      reject(new Error(`timeout exceeded when trying to connect (no pooled connection within ${maxWaitMs} ms)`));
    }, maxWaitMs);
  });
  try {
    return await Promise.race([pending, timeout]);
  } finally {
    clearTimeout(timer);
    // A connection that arrives after we gave up goes straight back to the pool.
    if (gaveUp)
      pending.then(
        (c) => c.release(),
        () => undefined,
      );
  }
}

/**
 * BEGIN, `work`, COMMIT on one pooled connection (ROLLBACK when `work` throws), with
 * Prisma's interactive-transaction limits: `maxWaitMs` for a connection (2 s), `timeoutMs`
 * for the whole transaction (5 s; past it, further statements fail, and the transaction
 * rolls back instead of committing).
 */
export async function rawTransaction<T>(
  pool: Pool,
  work: (tx: Queryable) => Promise<T>,
  options: { timeoutMs?: number; maxWaitMs?: number } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const client = await connect(pool, options.maxWaitMs ?? 2_000);
  const tx = new RawTransaction(client, timeoutMs);
  const timer = setTimeout(() => {
    tx.expired = true;
  }, timeoutMs);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    let result: T;
    try {
      result = await work(tx);
      if (tx.expired) throw new TransactionExpiredError(timeoutMs);
    } catch (error) {
      await client.query('ROLLBACK').catch((e: unknown) => {
        broken = e instanceof Error ? e : new Error(String(e));
      });
      throw error;
    }
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A failed BEGIN / COMMIT / ROLLBACK leaves the connection in an unknown state: drop it.
    broken ??= error instanceof Error && !isStatementError(error) ? error : undefined;
    throw error;
  } finally {
    clearTimeout(timer);
    client.release(broken);
  }
}

/** An error PostgreSQL reported for a statement (SQLSTATE, connection fine) or one of the work's own. */
function isStatementError(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return !(typeof code === 'string' && /^(08|57P0)/.test(code)) && !/Connection terminated|connection error/.test(error.message);
}
