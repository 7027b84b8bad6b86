/**
 * Reads the output of `node --trace-gc` (one line per collection, every isolate of the
 * process: the main thread and each worker thread) and sums up the pauses:
 *
 *   [pid:0x…]   1234 ms: Scavenge 4.3 (4.5) -> 3.9 (5.5) MB, 1.26 / 0.00 ms  (average mu = …) allocation failure;
 *   [pid:0x…]   5678 ms: Mark-Compact 90.1 (120.0) -> 80.2 (110.0) MB, 12.34 / 0.00 ms  (+ 45.6 ms in 200 steps …
 *
 * The first number after "MB," is the time the isolate's own thread was stopped (the pause);
 * incremental marking steps done before it ("+ … ms in … steps") are counted separately.
 * The main thread is the isolate of the first line (it starts and collects first).
 *
 * Usable alone: node bench/ts-run.mjs bench/vector/gc-trace.ts <log file> [from byte] [to byte]
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface GcEvent {
  readonly isolate: string;
  /** ms since the isolate started. */
  readonly at: number;
  /** Scavenge, Mark-Compact, Mark-Compact (reduce), Minor Mark-Compact, … */
  readonly type: string;
  readonly pauseMs: number;
  /** Incremental marking done before the final pause (Mark-Compact only). */
  readonly incrementalMs: number;
}

export interface GcTypeSummary {
  readonly type: string;
  readonly count: number;
  readonly totalMs: number;
  readonly maxMs: number;
  readonly p99Ms: number;
}

export interface GcSummary {
  /** Which isolates: "main thread", "workers", "all". */
  readonly scope: string;
  readonly count: number;
  readonly totalMs: number;
  readonly maxMs: number;
  readonly maxType: string;
  readonly p99Ms: number;
  readonly incrementalMs: number;
  readonly byType: GcTypeSummary[];
}

const LINE =
  /^\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: (.+?) [\d.]+ \([\d.]+\) -> [\d.]+ \([\d.]+\) MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms(.*)$/;
const INCREMENTAL = /\(\+ ([\d.]+) ms in \d+ steps/;

export function parseGcTrace(text: string): GcEvent[] {
  const events: GcEvent[] = [];
  for (const line of text.split('\n')) {
    const m = LINE.exec(line.trim());
    if (!m) continue;
    events.push({
      isolate: m[1],
      at: Number(m[2]),
      type: m[3].replace(/\s*\(interleaved\)/, '').trim(),
      pauseMs: Number(m[4]),
      incrementalMs: Number(INCREMENTAL.exec(m[5])?.[1] ?? 0),
    });
  }
  return events;
}

function p99(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(0.99 * sorted.length) - 1))];
}

export function summarizeGc(events: readonly GcEvent[], scope: string): GcSummary {
  const types = new Map<string, number[]>();
  for (const e of events) {
    const list = types.get(e.type) ?? [];
    list.push(e.pauseMs);
    types.set(e.type, list);
  }
  const byType = [...types.entries()]
    .map(([type, ms]) => ({
      type,
      count: ms.length,
      totalMs: ms.reduce((a, b) => a + b, 0),
      maxMs: Math.max(...ms),
      p99Ms: p99(ms),
    }))
    .sort((a, b) => b.totalMs - a.totalMs);
  const longest = events.reduce<GcEvent | undefined>((best, e) => (best && best.pauseMs >= e.pauseMs ? best : e), undefined);
  return {
    scope,
    count: events.length,
    totalMs: events.reduce((a, e) => a + e.pauseMs, 0),
    maxMs: longest?.pauseMs ?? 0,
    maxType: longest?.type ?? '',
    p99Ms: p99(events.map((e) => e.pauseMs)),
    incrementalMs: events.reduce((a, e) => a + e.incrementalMs, 0),
    byType,
  };
}

/**
 * Summaries of the main thread, the worker threads and all isolates, over the events of
 * `window` (the main isolate is decided from all of `all`, the whole log).
 */
export function gcSummaries(all: readonly GcEvent[], window: readonly GcEvent[] = all): GcSummary[] {
  const main = all[0]?.isolate;
  return [
    summarizeGc(
      window.filter((e) => e.isolate === main),
      'main thread',
    ),
    summarizeGc(
      window.filter((e) => e.isolate !== main),
      'worker threads',
    ),
  ];
}

/**
 * The GC lines of a log file between two byte offsets (e.g. before and after a load phase);
 * `all` from `start` (where the process's own lines begin in an appended log) to the end.
 */
export function gcEventsOfLog(file: string, from = 0, to = Infinity, start = 0): { all: GcEvent[]; window: GcEvent[] } {
  const buf = readFileSync(file);
  const all = parseGcTrace(buf.subarray(start).toString('utf8'));
  const window = parseGcTrace(buf.subarray(from, Math.min(to, buf.length)).toString('utf8'));
  return { all, window };
}

export function formatGc(s: GcSummary, indent = '  '): string {
  const head =
    `${indent}${s.scope}: ${s.count} collections, ${s.totalMs.toFixed(0)} ms paused in total, ` +
    `longest ${s.maxMs.toFixed(1)} ms (${s.maxType || 'n/a'}), p99 ${Number.isNaN(s.p99Ms) ? 'n/a' : `${s.p99Ms.toFixed(1)} ms`}` +
    (s.incrementalMs > 0 ? `, + ${s.incrementalMs.toFixed(0)} ms of incremental marking steps` : '');
  return [
    head,
    ...s.byType.map(
      (t) =>
        `${indent}  ${t.type.padEnd(26)} ${String(t.count).padStart(6)} ×, total ${t.totalMs.toFixed(0).padStart(6)} ms, ` +
        `longest ${t.maxMs.toFixed(1).padStart(6)} ms, p99 ${t.p99Ms.toFixed(1).padStart(6)} ms`,
    ),
  ].join('\n');
}

if (process.argv[2] !== undefined && resolve(process.argv[2]) === __filename) {
  const [file, from, to] = process.argv.slice(3);
  if (!file) throw new Error('usage: gc-trace.ts <log file> [from byte] [to byte]');
  const { all, window } = gcEventsOfLog(file, from ? Number(from) : 0, to ? Number(to) : Infinity);
  for (const s of gcSummaries(all, window)) process.stdout.write(`${formatGc(s)}\n`);
}
