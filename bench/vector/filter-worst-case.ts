/**
 * Worst cases of filters within the documented limits (docs/vector.md, "Filters"), in
 * process: how long one filtered query keeps the event loop busy (the longest stretch
 * without a turn, from monitorEventLoopDelay) and how long it takes in all, on a flat,
 * an ivf and an hnsw table. The rows are built to be hostile to the filter planner:
 * 60 low-cardinality fields (each value shared by half the rows, so every clause's
 * posting is large) and 4 fields unique per row (so a range or `$in` clause meets as many
 * distinct values as there are rows).
 *
 *   node bench/ts-run.mjs bench/vector/filter-worst-case.ts [rows=5000,100000] [dim=128] [kinds=flat,ivf,hnsw] [sliced|sync]
 */
import { performance } from 'node:perf_hooks';
import { MAX_FILTER } from '../../apps/vector-api/src/engine/filter-limits';
import { type Filter, parseFilter } from '../../apps/vector-api/src/engine/filter';
import type { IndexKind } from '../../apps/vector-api/src/engine/types';
import { VectorCollection } from '../../apps/vector-api/src/engine/vector-collection';
import { mulberry32 } from '../../test/support/random';

const [rowsArg = '5000,100000', dimArg = '128', kindsArg = 'flat,ivf,hnsw', MODE = 'sliced'] = process.argv.slice(3);
const SIZES = rowsArg.split(',').map(Number);
const DIM = Number(dimArg);
const KINDS = kindsArg.split(',') as IndexKind[];
const LOW = 60;
const UNIQUE = 4;

function vector(rand: () => number): number[] {
  return Array.from({ length: DIM }, () => rand() - 0.5);
}

function build(rows: number, kind: IndexKind): VectorCollection {
  const rand = mulberry32(rows);
  const c = new VectorCollection(DIM, kind, { deferIndex: true });
  for (let start = 0; start < rows; start += 1000) {
    const batch = [];
    for (let r = start; r < Math.min(rows, start + 1000); r++) {
      const metadata: Record<string, number> = {};
      for (let k = 0; k < LOW; k++) metadata[`k${k}`] = (r >> (k % 8)) & 1;
      for (let u = 0; u < UNIQUE; u++) metadata[`u${u}`] = r;
      batch.push({ id: `r${r}`, label: r, embedding: vector(rand), metadata });
    }
    c.insert(batch);
  }
  c.warm();
  return c;
}

/** Filters at (or near) the limits, each hostile in its own way, and no filter for comparison. */
function hostileFilters(rows: number): Record<string, Filter | undefined> {
  const filters: Record<string, Record<string, unknown>> = {};
  // Every key a range that matches every row: the largest possible posting unions.
  const ranges: Record<string, unknown> = {};
  for (let k = 0; k < MAX_FILTER.keys / 2 - UNIQUE; k++) ranges[`k${k}`] = { $gte: 0 };
  for (let u = 0; u < UNIQUE; u++) ranges[`u${u}`] = { $gte: 0 };
  filters['64 ranges, all rows match'] = ranges;
  // Only $ne: the universe is every row, then 64 negative conditions.
  const nes: Record<string, unknown> = {};
  for (let k = 0; k < MAX_FILTER.keys / 2 - UNIQUE; k++) nes[`k${k}`] = { $ne: 7 };
  for (let u = 0; u < UNIQUE; u++) nes[`u${u}`] = { $ne: -1 };
  filters['64 $ne, all rows match'] = nes;
  // The most $in values allowed, on the unique fields: each value hits one row.
  const ins: Record<string, unknown> = {};
  const perKey = Math.min(MAX_FILTER.valuesPerArray, Math.floor(MAX_FILTER.values / UNIQUE));
  for (let u = 0; u < UNIQUE; u++)
    ins[`u${u}`] = { $in: Array.from({ length: perKey }, (_, i) => Math.floor((i * rows) / perKey)) };
  filters[`${UNIQUE} × $in of ${perKey} numbers`] = ins;
  // Many matches (above the exact-scan threshold), far from the query: indexes widen.
  filters['2.5 % of rows, widening'] = { u0: { $lt: Math.max(2001, Math.ceil(rows * 0.025)) } };
  return {
    'no filter': undefined,
    ...Object.fromEntries(Object.entries(filters).map(([name, f]) => [name, parseFilter(f)])),
  };
}

/**
 * Runs `run` while a setImmediate chain records the longest gap between two event-loop
 * turns: a synchronous query is one gap as long as itself, a sliced one many short ones.
 * The gap is measured in wall time and in this process's CPU time (on a loaded machine the
 * process can wait for a core in the middle of a slice; CPU time does not count that).
 */
interface Measured {
  readonly totalMs: number;
  readonly cpuMs: number;
  readonly maxBlockMs: number;
  readonly maxBlockCpuMs: number;
}

async function measure(run: () => Promise<unknown>): Promise<Measured> {
  const cpuNow = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let last = performance.now();
  let lastCpu = cpuNow();
  let maxGap = 0;
  let maxCpuGap = 0;
  let ticking = true;
  const tick = (): void => {
    const now = performance.now();
    const cpu = cpuNow();
    maxGap = Math.max(maxGap, now - last);
    maxCpuGap = Math.max(maxCpuGap, cpu - lastCpu);
    last = now;
    lastCpu = cpu;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  await new Promise((r) => setImmediate(r));
  const started = performance.now();
  const startedCpu = cpuNow();
  await run();
  const totalMs = performance.now() - started;
  const cpuMs = cpuNow() - startedCpu;
  await new Promise((r) => setImmediate(r));
  ticking = false;
  return { totalMs, cpuMs, maxBlockMs: maxGap, maxBlockCpuMs: maxCpuGap };
}

async function main(): Promise<void> {
  const log = (line: string): void => void process.stdout.write(`${line}\n`);
  log(`# ${new Date().toISOString()} node ${process.version}, dim ${DIM}, limits ${JSON.stringify(MAX_FILTER)}`);
  for (const rows of SIZES) {
    for (const kind of KINDS) {
      const c = build(rows, kind);
      await c.idle();
      const q = vector(mulberry32(7));
      for (const [name, filter] of Object.entries(hostileFilters(rows))) {
        // querySliced is what the service runs; MODE=sync (or a checkout without it) measures query().
        const sliced =
          MODE === 'sync'
            ? undefined
            : (c as unknown as { querySliced?: (...a: Parameters<typeof c.query>) => Promise<unknown> }).querySliced;
        const runOnce = async (): Promise<unknown> =>
          sliced ? sliced.call(c, q, 1000, filter, kind) : c.query(q, 1000, filter, kind);
        await runOnce(); // warm-up (first use of an index path, JIT)
        const runs: Measured[] = [];
        for (let i = 0; i < 5; i++) runs.push(await measure(runOnce));
        // The median of 5 runs: one descheduling of the process on a shared machine is not the query's doing.
        const ms = (pick: (m: Measured) => number): string =>
          (runs.map(pick).sort((a, b) => a - b)[2] ?? 0).toFixed(0).padStart(5);
        log(
          `${String(rows).padStart(6)} rows  ${kind.padEnd(4)}  ${name.padEnd(30)} total ${ms((m) => m.totalMs)} ms ` +
            `(cpu ${ms((m) => m.cpuMs)}), longest block ${ms((m) => m.maxBlockMs)} ms (cpu ${ms((m) => m.maxBlockCpuMs)})` +
            (sliced ? ' sliced' : ''),
        );
      }
      c.close();
    }
  }
}

void main();
