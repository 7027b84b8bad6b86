import { Injectable } from '@nestjs/common';
import { currentIdempotencyClaim } from '../idempotency/idempotency-context';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { rawTransaction } from './direct-sql';
import { Prisma } from './generated/client';
import { PrismaService, type PrismaTx } from './prisma.service';

/** What to store for replay when the transaction's result is answered with an error (e.g. a 402 after a declined charge). */
export interface StoredResponse {
  readonly status: number;
  readonly body: unknown;
}

export interface TransactionOptions<T> {
  /**
   * The response this request will answer with, when it is not `result` with the route's
   * success status — e.g. a failed payment committed and answered 402.
   */
  readonly responseFor?: (result: T) => StoredResponse | undefined;
  /** How long the transaction may run before PostgreSQL work is abandoned (Prisma's default: 5 s). */
  readonly timeoutMs?: number;
  /** How long to wait for a pooled connection to start the transaction (Prisma's default: 2 s). */
  readonly maxWaitMs?: number;
  /**
   * The work uses only `tx.$queryRaw` / `tx.$executeRaw` (and `emit`, which is raw): the
   * transaction then runs straight on a pooled `pg` connection, not as Prisma's interactive
   * transaction, with the same timeouts (docs/decisions.md 117). A model query on `tx`
   * throws. For the hot write paths only.
   */
  readonly sqlOnly?: boolean;
}

/** Statements that ride along with the transaction's idempotency completion (see deferToCompletion). */
const carriedBy = new WeakMap<PrismaTx, Prisma.Sql[]>();

/**
 * Hands a write whose result the transaction does not need (an outbox INSERT) to the
 * transaction's closing statement: when the transaction stores an idempotent response,
 * `statement` runs as a CTE of that same UPDATE, one round trip instead of two, still
 * inside the transaction and after the work. `statement` must be data-modifying with a
 * RETURNING list (it is read, so its RETURNING expressions run). False when nothing will
 * carry it (no Idempotency-Key, or not a TransactionRunner transaction): run it yourself.
 */
export function deferToCompletion(tx: PrismaTx, statement: Prisma.Sql): boolean {
  const carried = carriedBy.get(tx);
  if (!carried) return false;
  carried.push(statement);
  return true;
}

/**
 * The one place a transaction starts (docs/architecture.md, "Transactions"). Everything
 * else receives the transaction as a required `tx` parameter. Scripts and tests that have
 * no Nest container call it with their own Prisma client.
 */
export function runTransaction<T>(
  prisma: PrismaService,
  work: (tx: PrismaTx) => Promise<T>,
  options: Pick<TransactionOptions<T>, 'timeoutMs' | 'maxWaitMs'> = {},
): Promise<T> {
  return prisma.$transaction(work, {
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    ...(options.maxWaitMs === undefined ? {} : { maxWait: options.maxWaitMs }),
  });
}

/**
 * Runs a service's writes in one transaction. When the request carries an Idempotency-Key,
 * the response is stored in the same transaction, so the effect and the replayable response
 * commit together or not at all (a retry can never apply it twice).
 */
@Injectable()
export class TransactionRunner {
  constructor(
    private readonly prisma: PrismaService,
    private readonly idempotency: IdempotencyService,
  ) {}

  run<T>(work: (tx: PrismaTx) => Promise<T>, options: TransactionOptions<T> = {}): Promise<T> {
    const claim = currentIdempotencyClaim();
    const body = async (tx: PrismaTx): Promise<T> => {
      const carried: Prisma.Sql[] = [];
      if (claim && !claim.completed) carriedBy.set(tx, carried);
      let result: T;
      try {
        result = await work(tx);
      } finally {
        carriedBy.delete(tx);
      }
      if (claim && !claim.completed) {
        const response = options.responseFor?.(result) ?? { status: claim.successStatus, body: toJson(result) };
        await this.idempotency.complete(tx, claim.scope, claim.id, response.status, response.body, carried, claim.sealer);
        claim.completed = true;
      } else {
        for (const statement of carried) await tx.$executeRaw(statement);
      }
      return result;
    };
    return options.sqlOnly
      ? rawTransaction(this.prisma.pool, (tx) => body(tx as unknown as PrismaTx), options)
      : runTransaction(this.prisma, body, options);
  }
}

/** The value as the HTTP layer will serialize it (Dates → ISO strings, toJSON honoured). */
export function toJson(value: unknown): unknown {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}
