import { Injectable } from '@nestjs/common';
import { rawTransaction } from './direct-sql';
import { Prisma } from './generated/client';
import { asSqlTx, asTx, type Queryable, type SqlTx, type Tx } from './handles';
import { PrismaService } from './prisma.service';

/**
 * A row the transaction writes from its own result as its last statement, registered by the
 * service that runs it: the stored response of an Idempotency-Key (idempotency's
 * `IdempotentRequest.completion`). The runner knows nothing of what it writes.
 */
export interface CompletionHook<T> {
  /** The data-modifying statement (with a RETURNING list) that records `result`. */
  statement(result: T): Prisma.Sql;
  /** Called once the transaction has committed. */
  committed(): void;
}

export interface TransactionOptions<T> {
  /** Writes a row from the work's result in the same transaction (see CompletionHook). */
  readonly completion?: CompletionHook<T> | undefined;
  /** How long the transaction may run before PostgreSQL work is abandoned (Prisma's default: 5 s). */
  readonly timeoutMs?: number;
  /** How long to wait for a pooled connection to start the transaction (Prisma's default: 2 s). */
  readonly maxWaitMs?: number;
}

/**
 * Writes a transaction's work hands to its end: each is a data-modifying statement with a
 * RETURNING list (an outbox row, `WebhookEmitter.emit(closing, …)`). After the work, the
 * runner sends them and the completion hook's statement as one statement (each a CTE, every
 * one read, so RETURNING expressions such as `pg_notify` run): one round trip for all of
 * them, still inside the transaction (docs/decisions.md 115).
 */
export class Closing {
  private readonly writes: Prisma.Sql[] = [];

  write(statement: Prisma.Sql): void {
    this.writes.push(statement);
  }

  /** Sends the queued writes, then `last`, as one statement on `tx`. */
  async flush(tx: Queryable, last?: Prisma.Sql): Promise<void> {
    const statements = last === undefined ? this.writes.splice(0) : [...this.writes.splice(0), last];
    if (statements.length === 0) return;
    // Always as CTEs, even one: the statement's RETURNING list (pg_notify's void) is read
    // by the outer count, never handed to the client, which cannot decode a void column.
    const ctes = statements.map((statement, i) => Prisma.sql`${Prisma.raw(`w${i}`)} AS (${statement})`);
    const reads = statements.map((_, i) => Prisma.raw(`(SELECT count(*) FROM w${i})`));
    await tx.$queryRaw`WITH ${Prisma.join(ctes, ', ')} SELECT (${Prisma.join(reads, ' + ')})::int AS n`;
  }
}

/**
 * A transaction for tests, benchmarks and scripts that have no Nest container (the same as
 * TransactionRunner.run without hooks). Everything else receives the transaction as a
 * required `tx: Tx` parameter.
 */
export async function runTransaction<T>(
  prisma: PrismaService,
  work: (tx: Tx, closing: Closing) => Promise<T>,
  options: Pick<TransactionOptions<T>, 'timeoutMs' | 'maxWaitMs'> = {},
): Promise<T> {
  return prisma.$transaction(
    async (client) => {
      const tx = asTx(client);
      const closing = new Closing();
      const result = await work(tx, closing);
      await closing.flush(tx);
      return result;
    },
    {
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
      ...(options.maxWaitMs === undefined ? {} : { maxWait: options.maxWaitMs }),
    },
  );
}

/**
 * The one place a transaction starts (docs/architecture.md, "Persistence"). The work gets
 * the transaction and its Closing; what else the transaction writes is on the call:
 * `options.completion` (an Idempotency-Key's response) and the writes the work queues on
 * `closing` (outbox rows) run as its last statement.
 */
@Injectable()
export class TransactionRunner {
  constructor(private readonly prisma: PrismaService) {}

  /** Prisma's interactive transaction: model queries and raw statements on `tx`. */
  run<T>(work: (tx: Tx, closing: Closing) => Promise<T>, options: TransactionOptions<T> = {}): Promise<T> {
    return this.commit(
      this.prisma.$transaction((client) => this.body(asTx(client), work, options.completion), {
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
        ...(options.maxWaitMs === undefined ? {} : { maxWait: options.maxWaitMs }),
      }),
      options.completion,
    );
  }

  /**
   * Raw statements only (`tx.$queryRaw` / `tx.$executeRaw`; a model call does not compile):
   * BEGIN … COMMIT straight on a pooled `pg` connection, without Prisma's interactive
   * transaction, with the same timeouts (docs/decisions.md 117). For the measured hot write paths.
   */
  runSql<T>(work: (tx: SqlTx, closing: Closing) => Promise<T>, options: TransactionOptions<T> = {}): Promise<T> {
    return this.commit(
      rawTransaction(this.prisma.pool, (client) => this.body(asSqlTx(client), work, options.completion), options),
      options.completion,
    );
  }

  private async body<H extends Queryable, T>(
    tx: H,
    work: (tx: H, closing: Closing) => Promise<T>,
    completion: CompletionHook<T> | undefined,
  ): Promise<T> {
    const closing = new Closing();
    const result = await work(tx, closing);
    await closing.flush(tx, completion?.statement(result));
    return result;
  }

  private async commit<T>(transaction: Promise<T>, completion: CompletionHook<T> | undefined): Promise<T> {
    const result = await transaction;
    completion?.committed();
    return result;
  }
}

/** The value as the HTTP layer will serialize it (Dates → ISO strings, toJSON honoured). */
export function toJson(value: unknown): unknown {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}
