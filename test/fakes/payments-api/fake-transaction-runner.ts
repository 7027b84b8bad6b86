import type { PrismaTx, StoredResponse, TransactionOptions, TransactionRunner } from '@app/platform';
import { opaque, type Surface } from '../typed-fake';

export interface CommittedTransaction {
  /** What the work returned: the response an Idempotency-Key stores unless `storedResponse` overrides it. */
  readonly result: unknown;
  /** `options.responseFor(result)`: the error response stored instead (e.g. a 402 after a decline). */
  readonly storedResponse: StoredResponse | undefined;
}

interface OpenTransaction {
  readonly undo: Array<() => void>;
  readonly onEnd: Array<() => void>;
}

/**
 * TransactionRunner without a database: runs the work with a fresh handle, and rolls back
 * the writes fakes registered with `write()` when the work throws. Fakes refuse a handle
 * that is not an open transaction of this runner, so a write outside `run()` fails the test.
 */
export class FakeTransactionRunner implements Surface<TransactionRunner> {
  readonly committed: CommittedTransaction[] = [];
  rolledBack = 0;
  private readonly open = new Map<PrismaTx, OpenTransaction>();
  private seq = 0;

  async run<T>(work: (tx: PrismaTx) => Promise<T>, options: TransactionOptions<T> = {}): Promise<T> {
    const tx = opaque<PrismaTx>(`fake transaction ${++this.seq}`);
    const state: OpenTransaction = { undo: [], onEnd: [] };
    this.open.set(tx, state);
    try {
      const result = await work(tx);
      this.committed.push({ result, storedResponse: options.responseFor?.(result) });
      return result;
    } catch (err) {
      for (const undo of state.undo.reverse()) undo();
      this.rolledBack += 1;
      throw err;
    } finally {
      this.open.delete(tx);
      for (const end of state.onEnd) end();
    }
  }

  /** Checks `tx` is open and records how to undo a write made in it. */
  write(tx: PrismaTx, undo: () => void): void {
    this.state(tx).undo.push(undo);
  }

  /** Throws unless `tx` is a transaction of this runner that has not ended. */
  assertOpen(tx: PrismaTx): void {
    this.state(tx);
  }

  /** Runs `fn` when `tx` commits or rolls back (releases a fake row lock). */
  onEnd(tx: PrismaTx, fn: () => void): void {
    this.state(tx).onEnd.push(fn);
  }

  private state(tx: PrismaTx): OpenTransaction {
    const state = this.open.get(tx);
    if (!state) throw new Error('not an open transaction of FakeTransactionRunner (a write outside TransactionRunner.run?)');
    return state;
  }
}
