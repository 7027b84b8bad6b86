/**
 * GC pauses of a benchmarked service's main thread, recorded by ingest-gc-observer.cjs
 * (preloaded with NODE_OPTIONS): `gcEnv()` gives the variables that turn it on, and
 * `pausesBetween` the pauses that started within a phase.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { type Service, startService } from './support';

export interface GcLog {
  /** Variables for the service: NODE_OPTIONS with the observer, INGEST_GC_LOG. */
  readonly env: Record<string, string>;
  /** The main thread's pauses that started in [from, to] (epoch ms): count, longest, total, by kind. */
  between(from: number, to: number): GcSummary;
  remove(): void;
}

export interface GcSummary {
  readonly count: number;
  readonly maxMs: number;
  readonly maxKind: string;
  readonly totalMs: number;
}

/** With BENCH_CPU_PROF=<file>, the service's main thread is also profiled (see writeProfile). */
export function gcLog(): GcLog {
  const file = join(tmpdir(), `ingest-gc-${randomBytes(4).toString('hex')}.log`);
  const observer = join(__dirname, 'ingest-gc-observer.cjs');
  const profile = process.env.BENCH_CPU_PROF;
  return {
    env: { NODE_OPTIONS: `--require ${observer}`, INGEST_GC_LOG: file, ...(profile ? { INGEST_CPU_PROF: profile } : {}) },
    between(from, to) {
      const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
      let count = 0;
      let maxMs = 0;
      let maxKind = '-';
      let totalMs = 0;
      for (const line of lines) {
        const [at, ms, kind] = line.split(' ');
        const t = Number(at);
        const d = Number(ms);
        if (!(t >= from && t <= to) || !Number.isFinite(d)) continue;
        count++;
        totalMs += d;
        if (d > maxMs) {
          maxMs = d;
          maxKind = kind ?? '?';
        }
      }
      return { count, maxMs, maxKind, totalMs };
    },
    remove() {
      rmSync(file, { force: true });
    },
  };
}

export const describeGc = (g: GcSummary): string =>
  `GC ${g.count} pauses, longest ${g.maxMs.toFixed(1)} ms (${g.maxKind}), ${g.totalMs.toFixed(0)} ms in all`;

/** Asks the service to write its CPU profile (BENCH_CPU_PROF) and gives it a moment. */
export async function writeProfile(pid: number): Promise<void> {
  if (!process.env.BENCH_CPU_PROF) return;
  process.kill(pid, 'SIGUSR2');
  await new Promise((r) => setTimeout(r, 3000));
}

/**
 * vector-api as the stall benchmarks run it: development, rate limits out of the way,
 * no snapshots, quiet logs, and the GC observer of `gc` preloaded.
 */
export function startObservedVectorApi(root: string, databaseUrl: string, gc: GcLog): Promise<Service> {
  return startService({
    root,
    service: 'vector-api',
    nodeEnv: 'development',
    databaseUrl,
    env: { VECTOR_RATE_LIMIT_PER_MINUTE: '100000000', VECTOR_SNAPSHOTS: 'false', LOG_LEVEL: 'error', ...gc.env },
  });
}
