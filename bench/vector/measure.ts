/** Timing, recall, memory, bandwidth and machine helpers of the vector benchmarks. */
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { createWasmMemory, instantiateScanModule } from '../../apps/vector-api/src/engine/simd/scan-kernel';
import { type Dataset, K } from './datasets';

/** Result rows (ids) of one query. */
export type Labels = ArrayLike<number>;

export interface QueryRun {
  readonly queries: number;
  readonly qps: number;
  readonly recall: number;
  readonly msPerQuery: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Full collection (when node runs with --expose-gc), so memory deltas mean something. */
export function collect(): void {
  gc?.();
  gc?.();
}

export function recallOf(ds: Dataset, qi: number, labels: Labels): number {
  const truth = ds.truth.subarray(qi * K, qi * K + K);
  let hit = 0;
  for (let i = 0; i < Math.min(K, labels.length); i++) if (truth.includes(labels[i])) hit++;
  return hit / K;
}

export const query = (ds: Dataset, qi: number): Float32Array => ds.queries.subarray(qi * ds.dim, (qi + 1) * ds.dim);

/**
 * Runs `search` over the held-out queries, single-threaded and one at a time, until all were
 * asked or `budgetMs` passed (slow methods answer a prefix); a few untimed queries first warm
 * the JIT. Recall@10 is computed afterwards from the collected results.
 */
export function runQueries(ds: Dataset, search: (qi: number) => Labels, budgetMs = 1500, minQueries = 20): QueryRun {
  const warm = Math.min(10, ds.queryCount);
  for (let qi = 0; qi < warm; qi++) search(ds.queryCount - 1 - qi);
  const results: Labels[] = [];
  const start = performance.now();
  for (let qi = 0; qi < ds.queryCount; qi++) {
    results.push(search(qi));
    if (timeIsUp(qi, start, budgetMs, minQueries)) break;
  }
  return queryRun(ds, results, performance.now() - start);
}

/** Stop after the budget, at least minQueries in, checking the clock every 8 queries. */
function timeIsUp(qi: number, start: number, budgetMs: number, minQueries: number): boolean {
  return ((qi & 7) === 7 || qi < minQueries) && qi + 1 >= minQueries && performance.now() - start > budgetMs;
}

function queryRun(ds: Dataset, results: readonly Labels[], elapsed: number): QueryRun {
  let recall = 0;
  results.forEach((labels, qi) => (recall += recallOf(ds, qi, labels)));
  const n = results.length;
  return { queries: n, qps: n / (elapsed / 1000), recall: recall / n, msPerQuery: elapsed / n };
}

/** runQueries for a search that answers asynchronously (our hnsw: its graph lives in a worker thread). */
export async function runQueriesAsync(
  ds: Dataset,
  search: (qi: number) => Promise<Labels>,
  budgetMs = 1500,
  minQueries = 20,
): Promise<QueryRun> {
  const warm = Math.min(10, ds.queryCount);
  for (let qi = 0; qi < warm; qi++) await search(ds.queryCount - 1 - qi);
  const results: Labels[] = [];
  const start = performance.now();
  for (let qi = 0; qi < ds.queryCount; qi++) {
    results.push(await search(qi));
    if (timeIsUp(qi, start, budgetMs, minQueries)) break;
  }
  return queryRun(ds, results, performance.now() - start);
}

export interface MemorySample {
  readonly rss: number;
  readonly js: number;
}

export function memory(): MemorySample {
  collect();
  const m = process.memoryUsage();
  return { rss: m.rss, js: m.heapUsed + m.external };
}

export async function timed<T>(fn: () => T | Promise<T>): Promise<{ value: T; seconds: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, seconds: (performance.now() - start) / 1000 };
}

export interface Bandwidth {
  /** Streaming read of a buffer far larger than the caches, WebAssembly f32x4 loads (GB/s). */
  readonly readGBs: number;
  /** The same read over 8 MiB (cache-resident), for contrast. */
  readonly cachedReadGBs: number;
  /** Float32Array.prototype.set of a large buffer, bytes read + written (GB/s). */
  readonly copyGBs: number;
  /** A plain JavaScript loop summing a Float32Array (GB/s). */
  readonly jsSumGBs: number;
  readonly bytes: number;
}

function best(runs: number, fn: () => number): number {
  let top = 0;
  for (let i = 0; i < runs; i++) top = Math.max(top, fn());
  return top;
}

/**
 * The machine's single-thread memory bandwidth, measured in this run: the kernel module's
 * `sum` (the same v128 loads as the scan, no multiplies) streaming 512 MiB, best of 5.
 */
export function measureBandwidth(bytes = 512 * 1024 * 1024): Bandwidth {
  const mem = createWasmMemory(bytes);
  const f32 = new Float32Array(mem.buffer);
  f32.fill(1); // touch every page first
  const kernel = instantiateScanModule(mem);
  const gbs = (b: number, ms: number): number => b / (ms / 1000) / 1e9;
  const readGBs = best(5, () => {
    const t = performance.now();
    kernel.sum(0, bytes);
    return gbs(bytes, performance.now() - t);
  });
  const small = 8 * 1024 * 1024;
  const cachedReadGBs = best(20, () => {
    const t = performance.now();
    kernel.sum(0, small);
    return gbs(small, performance.now() - t);
  });
  const half = f32.length / 2;
  const src = f32.subarray(0, half);
  const dst = new Float32Array(half);
  const copyGBs = best(5, () => {
    const t = performance.now();
    dst.set(src);
    return gbs(2 * half * 4, performance.now() - t);
  });
  const jsSumGBs = best(3, () => {
    const t = performance.now();
    let s = 0;
    for (let i = 0; i < src.length; i++) s += src[i];
    const ms = performance.now() - t;
    return s > 0 ? gbs(half * 4, ms) : 0;
  });
  return { readGBs, cachedReadGBs, copyGBs, jsSumGBs, bytes };
}

export interface Machine {
  readonly nproc: number;
  readonly cpu: string;
  readonly memoryGiB: number;
  readonly node: string;
  /** /proc/loadavg's three averages ('' off Linux). */
  readonly loadAtStart: string;
}

/** CPU model (/proc/cpuinfo), `nproc`, RAM, Node version and load average of this machine. */
export function machineInfo(): Machine {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8');
    cpu = /^model name\s*:\s*(.+)$/m.exec(info)?.[1]?.trim() ?? cpu;
  } catch {
    // not Linux: keep os.cpus()
  }
  let nproc = cpus().length;
  try {
    nproc = Number(execSync('nproc', { encoding: 'utf8' }).trim());
  } catch {
    // keep os.cpus()
  }
  let load = '';
  try {
    load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    // not Linux
  }
  return { nproc, cpu, memoryGiB: totalmem() / 2 ** 30, node: process.version, loadAtStart: load };
}
