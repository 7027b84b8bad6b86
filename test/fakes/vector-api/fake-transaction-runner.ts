import type { PrismaTx, TransactionOptions, TransactionRunner } from '@app/platform';
import { opaque, type Surface } from '../typed-fake';

/** In-memory state that a transaction can roll back: `snapshot()` returns the function that restores it. */
export interface Snapshottable {
  snapshot(): () => void;
}

/**
 * TransactionRunner for unit tests: one transaction at a time over an in-memory state,
 * restored when the work throws (as PostgreSQL rolls back). Fake repositories call
 * `assertOpen(tx)` on every write, so a write outside a transaction, or with a stale
 * transaction, fails the test.
 */
export class FakeTransactionRunner implements Surface<TransactionRunner> {
  private open: PrismaTx | undefined;
  private count = 0;
  readonly commits: number[] = [];
  readonly rollbacks: number[] = [];
  readonly options: Array<TransactionOptions<never>> = [];

  constructor(private readonly state: Snapshottable) {}

  async run<T>(work: (tx: PrismaTx) => Promise<T>, options: TransactionOptions<T> = {}): Promise<T> {
    if (this.open) throw new Error('FakeTransactionRunner: a transaction is already open (nested transactions are a bug)');
    const id = ++this.count;
    const tx = opaque<PrismaTx>(`tx#${id}`);
    const restore = this.state.snapshot();
    this.open = tx;
    this.options.push(options);
    try {
      const result = await work(tx);
      this.commits.push(id);
      return result;
    } catch (err) {
      restore();
      this.rollbacks.push(id);
      throw err;
    } finally {
      this.open = undefined;
    }
  }

  /** Throws unless `tx` is the transaction open right now. */
  assertOpen(tx: PrismaTx): void {
    if (tx !== this.open) throw new Error('FakeTransactionRunner: write outside the open transaction');
  }
}
