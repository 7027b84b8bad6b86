import { Injectable } from '@nestjs/common';
import { currentIdempotencyClaim } from '../idempotency/idempotency-context';
import { IdempotencyService } from '../idempotency/idempotency.service';
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
    return runTransaction(
      this.prisma,
      async (tx) => {
        const result = await work(tx);
        if (claim && !claim.completed) {
          const response = options.responseFor?.(result) ?? { status: claim.successStatus, body: toJson(result) };
          await this.idempotency.complete(tx, claim.scope, claim.id, response.status, response.body);
          claim.completed = true;
        }
        return result;
      },
      options,
    );
  }
}

/** The value as the HTTP layer will serialize it (Dates → ISO strings, toJSON honoured). */
export function toJson(value: unknown): unknown {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}
