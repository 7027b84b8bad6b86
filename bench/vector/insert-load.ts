/**
 * The paced insert load of the vector benchmarks (bench:scale's "queries while inserting",
 * bench:profile's GC phase): `rate` rows/s sent as one request of rate × tickMs / 1000 rows
 * every tickMs (1,000 rows/s → 100 rows every 100 ms), at most `maxInFlight` requests
 * outstanding (a tick with that many pending is skipped and counted). Plus a client asking
 * queries one after the other, for at least a time and at least a count.
 */
import { type MixtureData, insertBody } from './scale-data';
import { expectOk, sleep } from './scale-server';

export interface InsertLoadStats {
  readonly targetRowsPerSecond: number;
  readonly rowsPerRequest: number;
  readonly insertedRows: number;
  readonly insertRowsPerSecond: number;
  readonly insertErrors: number;
  readonly skippedTicks: number;
  readonly firstError: string | null;
  readonly seconds: number;
}

export interface InsertLoad {
  /** Stops sending, waits for the requests in flight. */
  stop(): Promise<InsertLoadStats>;
  /** Rows acknowledged so far. */
  readonly acked: number;
}

export function startInsertLoad(options: {
  readonly url: string;
  readonly token: string;
  readonly data: MixtureData;
  /** First row index to insert (ids r<index>). */
  readonly from: number;
  readonly rate: number;
  readonly tickMs?: number;
  readonly maxInFlight?: number;
}): InsertLoad {
  const tickMs = options.tickMs ?? 100;
  const perTick = Math.max(1, Math.round((options.rate * tickMs) / 1000));
  const maxInFlight = options.maxInFlight ?? 20;
  let nextId = options.from;
  let acked = 0;
  let errors = 0;
  let skipped = 0;
  let firstError: string | undefined;
  const inflight = new Set<Promise<void>>();
  let running = true;
  const t0 = performance.now();
  const loader = (async () => {
    for (let tick = 0; running; tick++) {
      const wait = t0 + tick * tickMs - performance.now();
      if (wait > 0) await sleep(wait);
      if (!running) break;
      if (inflight.size >= maxInFlight) {
        skipped++;
        continue;
      }
      const from = nextId;
      nextId += perTick;
      const p = expectOk('POST', options.url, {
        body: insertBody(options.data, from, from + perTick),
        token: options.token,
        timeoutMs: 60_000,
      })
        .then(() => {
          acked += perTick;
        })
        .catch((err: unknown) => {
          errors++;
          firstError ??= err instanceof Error ? err.message : String(err);
        })
        .finally(() => inflight.delete(p));
      inflight.add(p);
    }
  })();
  return {
    get acked() {
      return acked;
    },
    async stop(): Promise<InsertLoadStats> {
      running = false;
      await loader;
      await Promise.all([...inflight]);
      const seconds = (performance.now() - t0) / 1000;
      return {
        targetRowsPerSecond: options.rate,
        rowsPerRequest: perTick,
        insertedRows: acked,
        insertRowsPerSecond: acked / seconds,
        insertErrors: errors,
        skippedTicks: skipped,
        firstError: firstError ?? null,
        seconds,
      };
    },
  };
}

/**
 * Queries one at a time (cycling through `bodies`) until both `minSeconds` passed and
 * `minQueries` were answered; returns each query's latency in ms and the elapsed seconds.
 */
export async function queryFor(
  ask: (body: string) => Promise<unknown>,
  bodies: readonly string[],
  minSeconds: number,
  minQueries: number,
): Promise<{ ms: number[]; seconds: number }> {
  const ms: number[] = [];
  const t0 = performance.now();
  for (let i = 0; ms.length < minQueries || performance.now() - t0 < minSeconds * 1000; i++) {
    const t = performance.now();
    await ask(bodies[i % bodies.length]);
    ms.push(performance.now() - t);
  }
  return { ms, seconds: (performance.now() - t0) / 1000 };
}
