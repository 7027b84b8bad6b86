/**
 * Memory and pauses of the vector engine in-process (issue 32, "Memory"): builds one
 * VectorCollection of BENCH_MEMORY_ROWS × BENCH_MEMORY_DIM (default 200,000 × 128) from the
 * scale benchmark's synthetic mixture, with the scale benchmark's ids (`r<i>`) and metadata
 * ({group: i % 100}), and reports:
 *
 * - bytes per vector: RSS after the build (indexes idle, after gc) minus RSS before, ÷ rows;
 *   against the floor 4 × dimension + 4 (ivf) or 4 × dimension (flat: the scan store and
 *   the row catalog, i.e. what an hnsw table holds besides hnswlib's graph);
 * - query latency idle, then while BENCH_MEMORY_INSERT_RATE rows/s (default 1,000) are
 *   inserted, each phase BENCH_MEMORY_SECONDS (default 30) long: queries are issued on a
 *   fixed schedule (BENCH_MEMORY_QPS, default 50/s, open loop) and timed from their
 *   scheduled start, so time spent waiting behind other work on the event loop counts;
 * - the longest GC pause (PerformanceObserver 'gc') and the longest event-loop stall
 *   (monitorEventLoopDelay) of each phase.
 *
 * Usage: node --expose-gc bench/ts-run.mjs bench/vector/memory-engine.ts [ivf|flat|hnsw]
 * Prints one JSON line of results at the end (and progress on stderr).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';
import { VectorCollection, type CollectionRow } from '../../apps/vector-api/src/engine/vector-collection';
import type { IndexKind } from '../../apps/vector-api/src/engine/types';
import { MixtureData } from './scale-data';

const kind: IndexKind = process.argv.includes('flat') ? 'flat' : process.argv.includes('hnsw') ? 'hnsw' : 'ivf';
const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const ROWS = env('BENCH_MEMORY_ROWS', 200_000);
const DIM = env('BENCH_MEMORY_DIM', 128);
const SECONDS = env('BENCH_MEMORY_SECONDS', 30);
const QPS = env('BENCH_MEMORY_QPS', 50);
const INSERT_RATE = env('BENCH_MEMORY_INSERT_RATE', 1000);
const BATCH = 1000;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function rss(): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : process.memoryUsage().rss;
}

async function settledRss(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 200));
  }
  return rss();
}

const log = (msg: string): void => void process.stderr.write(`${new Date().toISOString()} ${msg}\n`);

const data = new MixtureData(DIM, ROWS);
const rowsOf = (from: number, to: number): CollectionRow[] => {
  const rows: CollectionRow[] = [];
  for (let i = from; i < to; i++) rows.push({ id: `r${i}`, label: i, embedding: data.row(i), metadata: { group: i % 100 } });
  return rows;
};

/** GC pauses recorded while `active`. */
const pauses: number[] = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) pauses.push(e.duration);
});
gcObserver.observe({ entryTypes: ['gc'] });

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

interface Phase {
  readonly queries: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly gcMaxMs: number;
  readonly gcCount: number;
  readonly loopMaxMs: number;
  readonly inserted: number;
}

async function phase(c: VectorCollection, insertRate: number, firstRow: number): Promise<Phase> {
  pauses.length = 0;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + SECONDS * 1000;
  let inserted = 0;
  let next = firstRow;
  let inFlight = 0;
  const interval = 1000 / QPS;
  let qi = 0;
  let timer: NodeJS.Timeout | undefined;
  // Inserts: a batch of BATCH rows every BATCH / rate seconds (the HTTP benchmark's 1,000-row requests).
  const insertEvery = insertRate > 0 ? (BATCH / insertRate) * 1000 : Infinity;
  if (insertRate > 0) {
    timer = setInterval(() => {
      c.insert(rowsOf(next, next + BATCH), 0, false);
      next += BATCH;
      inserted += BATCH;
    }, insertEvery);
  }
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      while (start + qi * interval <= now && start + qi * interval < end) {
        const scheduled = start + qi * interval;
        const q = data.query(qi++);
        inFlight++;
        void c.querySliced(q, 10).then(() => {
          latencies.push(performance.now() - scheduled);
          inFlight--;
        });
      }
      if (now >= end) {
        const wait = (): void => (inFlight === 0 ? resolve() : void setTimeout(wait, 5));
        wait();
        return;
      }
      setTimeout(tick, Math.max(0, start + qi * interval - performance.now()));
    };
    tick();
  });
  if (timer) clearInterval(timer);
  loop.disable();
  latencies.sort((a, b) => a - b);
  return {
    queries: latencies.length,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    max: latencies[latencies.length - 1] ?? NaN,
    gcMaxMs: pauses.reduce((a, b) => Math.max(a, b), 0),
    gcCount: pauses.length,
    loopMaxMs: loop.max / 1e6,
    inserted,
  };
}

async function main(): Promise<void> {
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  log(`${kind} ${ROWS} × ${DIM}; load average ${load}`);
  const before = await settledRss();
  const heapBefore = process.memoryUsage();
  const c = new VectorCollection(DIM, kind, { onError: (err) => log(`engine error: ${String(err)}`) });
  const t0 = performance.now();
  pauses.length = 0;
  for (let i = 0; i < ROWS; i += BATCH) {
    c.insert(rowsOf(i, Math.min(ROWS, i + BATCH)));
    if ((i / BATCH) % 50 === 0) await new Promise((r) => setImmediate(r)); // let background work run, as a server would
  }
  const buildGcMax = pauses.reduce((a, b) => Math.max(a, b), 0);
  log(`inserted in ${((performance.now() - t0) / 1000).toFixed(1)} s; waiting for the index`);
  await c.idle();
  const built = (performance.now() - t0) / 1000;
  const after = await settledRss();
  const heapAfter = process.memoryUsage();
  const floor = 4 * DIM + (kind === 'ivf' ? 4 : 0);
  const bytesPerVector = (after - before) / ROWS;
  log(
    `built in ${built.toFixed(1)} s: ${bytesPerVector.toFixed(0)} bytes/vector = ${(bytesPerVector / floor).toFixed(2)} × ${floor}`,
  );
  log(`status ${JSON.stringify(c.status())}`);
  const idle = await phase(c, 0, ROWS);
  log(`idle: ${JSON.stringify(idle)}`);
  const inserting = await phase(c, INSERT_RATE, ROWS);
  log(`inserting: ${JSON.stringify(inserting)}`);
  await c.idle();
  const result = {
    kind,
    rows: ROWS,
    dim: DIM,
    load,
    buildSeconds: Math.round(built * 10) / 10,
    rssBefore: before,
    rssAfter: after,
    bytesPerVector: Math.round(bytesPerVector),
    floor,
    ratio: Math.round((bytesPerVector / floor) * 100) / 100,
    heapUsedDelta: heapAfter.heapUsed - heapBefore.heapUsed,
    externalDelta: heapAfter.external - heapBefore.external,
    arrayBuffersDelta: heapAfter.arrayBuffers - heapBefore.arrayBuffers,
    buildGcMaxMs: Math.round(buildGcMax * 10) / 10,
    idle,
    inserting,
    p99Ratio: Math.round((inserting.p99 / idle.p99) * 100) / 100,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  gcObserver.disconnect();
  c.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
