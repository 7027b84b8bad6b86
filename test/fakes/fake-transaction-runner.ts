import {
  Closing,
  type SqlTx,
  type StoredResponse,
  type TransactionOptions,
  type TransactionRunner,
  type Tx,
} from '@app/platform';
import { storedResponseOf } from './fake-idempotency';
import { opaque, type Surface } from './typed-fake';

/** In-memory state that a transaction can roll back: `snapshot()` returns the function that restores it. */
export interface Snapshottable {
  snapshot(): () => void;
}

/** One transaction the runner ran, as the spec may check it. */
export interface FakeRun {
  readonly id: number;
  /** `run` (Prisma's interactive transaction) or `runSql` (raw statements only). */
  readonly kind: 'run' | 'runSql';
  /** The options as the service passed them (`completion` included). */
  readonly options: TransactionOptions<unknown>;
  outcome: 'open' | 'committed' | 'rolled back';
  /** What the work returned (committed runs). */
  result?: unknown;
  /** What the work threw (rolled-back runs). */
  error?: unknown;
  /**
   * The response the completion hook stored at commit (an IdempotentRequest of
   * `fakeIdempotency()`); undefined without a hook.
   */
  storedResponse?: StoredResponse | undefined;
}

interface OpenRun {
  readonly record: FakeRun;
  readonly undo: Array<() => void>;
  readonly onEnd: Array<() => void>;
}

/** What fakes identify a transaction by: the handle the work got, or the run's Closing. */
type Handle = Tx | SqlTx | Closing;

/**
 * TransactionRunner for unit specs, without a database: each run gets a fresh opaque handle
 * and a real Closing. Fakes refuse a handle that is not an open transaction of this runner
 * (`assertOpen`), so a write outside `run()`, or with a stale handle, fails the test; they
 * register how to undo each write (`write`), undone in reverse order when the work throws,
 * as PostgreSQL rolls back. With a `Snapshottable` state (an in-memory database), the state is
 * also restored on a rollback, and runs are one at a time (a snapshot cannot isolate two).
 * At commit it calls the completion hook (`statement(result)`, then `committed()`) and
 * records the StoredResponse a `fakeIdempotency()` request built.
 */
export class FakeTransactionRunner implements Surface<TransactionRunner> {
  /** Every run, in the order they started. */
  readonly runs: FakeRun[] = [];
  private readonly open = new Map<Handle, OpenRun>();
  private active = 0;

  constructor(private readonly state?: Snapshottable) {}

  get committed(): FakeRun[] {
    return this.runs.filter((r) => r.outcome === 'committed');
  }

  get rolledBack(): FakeRun[] {
    return this.runs.filter((r) => r.outcome === 'rolled back');
  }

  run<T>(work: (tx: Tx, closing: Closing) => Promise<T>, options: TransactionOptions<T> = {}): Promise<T> {
    return this.transaction('run', opaque<Tx>, work, options);
  }

  runSql<T>(work: (tx: SqlTx, closing: Closing) => Promise<T>, options: TransactionOptions<T> = {}): Promise<T> {
    return this.transaction('runSql', opaque<SqlTx>, work, options);
  }

  /** Throws unless `handle` (a run's tx or Closing) belongs to a transaction of this runner that has not ended. */
  assertOpen(handle: Handle): void {
    this.openRun(handle);
  }

  /** Checks `handle` is open and records how to undo a write made in it. */
  write(handle: Handle, undo: () => void): void {
    this.openRun(handle).undo.push(undo);
  }

  /** Runs `fn` when the transaction of `handle` commits or rolls back (releases a fake row lock). */
  onEnd(handle: Handle, fn: () => void): void {
    this.openRun(handle).onEnd.push(fn);
  }

  private async transaction<H extends Tx | SqlTx, T>(
    kind: FakeRun['kind'],
    handle: (name: string) => H,
    work: (tx: H, closing: Closing) => Promise<T>,
    options: TransactionOptions<T>,
  ): Promise<T> {
    if (this.state && this.active > 0) {
      throw new Error('FakeTransactionRunner: a transaction is already open (one at a time over a snapshot state)');
    }
    const record: FakeRun = { id: this.runs.length + 1, kind, options, outcome: 'open' };
    this.runs.push(record);
    const tx = handle(`fake transaction ${record.id}`);
    const closing = new Closing();
    const run: OpenRun = { record, undo: [], onEnd: [] };
    if (this.state) run.undo.push(this.state.snapshot());
    this.open.set(tx, run);
    this.open.set(closing, run);
    this.active += 1;
    try {
      const result = await work(tx, closing);
      // The hook's statement is the transaction's last one: it runs before the commit.
      const statement = options.completion?.statement(result);
      record.outcome = 'committed';
      record.result = result;
      record.storedResponse = statement === undefined ? undefined : storedResponseOf(statement);
      this.end(tx, closing, run);
      options.completion?.committed();
      return result;
    } catch (err) {
      if (record.outcome === 'open') {
        for (const undo of run.undo.reverse()) undo();
        record.outcome = 'rolled back';
        record.error = err;
        this.end(tx, closing, run);
      }
      throw err;
    }
  }

  private end(tx: Handle, closing: Closing, run: OpenRun): void {
    this.open.delete(tx);
    this.open.delete(closing);
    this.active -= 1;
    for (const fn of run.onEnd) fn();
  }

  private openRun(handle: Handle): OpenRun {
    const run = this.open.get(handle);
    if (!run) throw new Error('not an open transaction of FakeTransactionRunner (a write outside TransactionRunner.run?)');
    return run;
  }
}
