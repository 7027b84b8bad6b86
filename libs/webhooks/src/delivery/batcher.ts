import { withoutTrace } from '@app/platform';

/**
 * Gathers the calls made within a few milliseconds into one batch (a small DataLoader):
 * the worker's jobs start and end a few at a time, and one query for all of them costs
 * about what one query for one costs (round trip, parse, commit), so each attempt's load
 * and record share a statement with those of its neighbours.
 *
 * Bounded by construction: every item belongs to a job that awaits it, so a batch holds at
 * most the worker's concurrency; a batch is sent when it reaches `maxBatch` items or
 * `windowMs` after its first item, whichever comes first.
 *
 * A batch runs outside any trace (withoutTrace): it serves the jobs of several traces, so
 * its statements belong to none of them rather than to the one whose item started it.
 */
export interface BatcherOptions<I> {
  readonly maxBatch: number;
  readonly windowMs: number;
  /** Items with the same key never share a batch (a second one starts the next batch). */
  readonly key?: (item: I) => string;
}

interface Pending<I, O> {
  readonly item: I;
  readonly resolve: (value: O) => void;
  readonly reject: (err: unknown) => void;
}

export class Batcher<I, O> {
  private batch: Array<Pending<I, O>> = [];
  private keys = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** Runs one batch; returns one result per item, in order. */
    private readonly run: (items: readonly I[]) => Promise<readonly O[]>,
    private readonly options: BatcherOptions<I>,
  ) {}

  add(item: I): Promise<O> {
    const key = this.options.key?.(item);
    if (key !== undefined && this.keys.has(key)) this.flush();
    return new Promise<O>((resolve, reject) => {
      this.batch.push({ item, resolve, reject });
      if (key !== undefined) this.keys.add(key);
      if (this.batch.length >= this.options.maxBatch) this.flush();
      else if (this.timer === undefined) this.timer = setTimeout(() => this.flush(), this.options.windowMs);
    });
  }

  /** Sends the current batch now (also used at shutdown). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.batch;
    if (batch.length === 0) return;
    this.batch = [];
    this.keys = new Set();
    withoutTrace(() => this.run(batch.map((p) => p.item))).then(
      (results) => {
        batch.forEach((p, i) => {
          if (i < results.length) p.resolve(results[i]);
          else p.reject(new Error('batch returned fewer results than items'));
        });
      },
      (err: unknown) => {
        for (const p of batch) p.reject(err);
      },
    );
  }
}
