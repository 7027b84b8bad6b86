import type { PrismaTx, TransactionOptions, TransactionRunner } from '@app/platform';
import type { InMemoryOffersDb } from './in-memory-offers-db';
import type { Surface } from '../typed-fake';

/**
 * TransactionRunner over the in-memory database: each run gets a fresh fake transaction
 * (fake repositories refuse a write outside an open one) and its writes are undone when
 * the work throws. Records the options of every run.
 */
export class FakeTransactionRunner implements Surface<TransactionRunner> {
  readonly runs: Array<TransactionOptions<unknown>> = [];

  constructor(private readonly db: InMemoryOffersDb) {}

  run<T>(work: (tx: PrismaTx) => Promise<T>, options: TransactionOptions<T> = {}): Promise<T> {
    this.runs.push({
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.maxWaitMs === undefined ? {} : { maxWaitMs: options.maxWaitMs }),
    });
    return this.db.transaction(work);
  }
}
