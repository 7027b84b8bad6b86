/**
 * The scale benchmark's results: their types, the `## Vector engine at scale` section of
 * docs/benchmarks.md (from its heading to its end marker; the rest of the file stays) and
 * docs/benchmarks-scale.svg (index progress over time, one panel per set).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';
import type { GcSummary } from './gc-trace';
import type { Machine } from './measure';

export interface SetSpec {
  /** As given in BENCH_SCALE_SETS: `hnsw-1m-128`. */
  readonly key: string;
  readonly index: 'hnsw' | 'ivf';
  /** Rows of this run (the quick run's are fewer). */
  readonly rows: number;
  readonly dim: number;
  /** Rows the key names. */
  readonly fullRows: number;
}

/** One GET /v1/tables/{t}: `t` in seconds (since the first insert, or since spawn after a restart). */
export interface SampleRow {
  readonly t: number;
  /** Rows in the table (acknowledged). */
  readonly rows: number;
  /** Rows in the index (details.points, else progress × rows, else rows − pending once ready). */
  readonly indexed: number;
  readonly pending: number | null;
  readonly progress: number | null;
  readonly state: string;
}

export interface Latency {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
  /** Seconds the run lasted (latency runs since issue 32: ≥ 30 s and ≥ 1,000 queries). */
  readonly seconds?: number;
}

export interface SetResult {
  readonly spec: SetSpec;
  readonly table: string;
  readonly clusters: number;
  database?: { name: string; url: string; server: string };
  errors: Array<{ step: string; message: string; fatal: boolean }>;
  insert: {
    rows: number;
    /** From the first request to the last acknowledgement. */
    seconds: number;
    rowsPerSecond: number;
    requests: number;
    concurrency: number;
    batch: number;
    meanBodyBytes: number;
    path: string;
  } | null;
  index: {
    lastAckAt: number;
    completeAt: number | null;
    secondsAfterLastAck: number | null;
    timeoutS: number;
    /** index_status at completion (or at the timeout). */
    details: Record<string, number | string | undefined>;
  } | null;
  progress: SampleRow[];
  snapshot: {
    /** false: index_status.details has no snapshot_seq / applied_seq. */
    reported: boolean;
    bytes: number | null;
    writeMs: number | null;
    waitedS: number;
    seq: number | null;
    appliedSeq: number | null;
  } | null;
  memory: {
    /** VmRSS of the same process before its table existed. */
    emptyRss: number;
    rss: number;
    /** VmHWM (peak RSS) at the reading. */
    hwm: number;
    bytesPerVector: number;
    floor: number;
    ratio: number;
    /** index_status.details.m (null: not reported, 16 assumed). */
    m: number | null;
  } | null;
  /** Idle, on the first instance (its answers give the recall). */
  queries: Latency | null;
  /** Idle, on the fresh instance after the restart, just before the insert load. */
  freshQueries: Latency | null;
  underInsert:
    | (Latency & {
        targetRowsPerSecond: number;
        rowsPerRequest: number;
        insertedRows: number;
        insertRowsPerSecond: number;
        insertErrors: number;
        skippedTicks: number;
        firstError: string | null;
      })
    | null;
  recall: { mean: number; min: number; queries: number; exact: Latency } | null;
  restart: {
    stopSeconds: number;
    stopHow: string;
    rows: number;
    listenS: number | null;
    completeS: number | null;
    timeoutS: number;
    rss: number;
    bytesPerVector: number;
    progress: SampleRow[];
    /** Small tables written with SQL before the fresh start (null: none). */
    extraTables?: { tables: number; rows: number; seconds: number } | null;
    /** Seconds from spawn until GET /health/ready answered 200 (null: not within the timeout). */
    readyS?: number | null;
  } | null;
  /** GC pauses of the service (--trace-gc), main thread and workers, per phase. */
  gc?: {
    /** From the first bulk insert until the index was complete. */
    insert?: GcSummary[];
    /** The fresh instance's idle latency run. */
    idle?: GcSummary[];
    /** The fresh instance's run while inserting. */
    underInsert?: GcSummary[];
  } | null;
}

export interface BaselineResult {
  readonly rows: number;
  readonly dim: number;
  readonly m: number;
  readonly efConstruction: number;
  readonly ef: number;
  readonly buildSeconds: number;
  readonly pointsPerSecond: number;
  readonly query: Latency;
  readonly recall: number;
}

export interface ScaleReport {
  readonly date: string;
  readonly command: string;
  readonly quick: boolean;
  readonly note: string | null;
  readonly commit: string;
  seconds: number;
  readonly machine: Machine;
  readonly settings: {
    readonly concurrency: number;
    readonly batch: number;
    readonly queries: number;
    readonly latencySeconds?: number;
    readonly latencyQueries?: number;
    readonly recallQueries?: number;
    readonly traceGc?: boolean;
    readonly extraTables?: number;
    readonly extraRows?: number;
    readonly extraDim?: number;
    readonly extraKinds?: readonly string[];
    readonly maxRows?: number;
    readonly loadRate: number;
    readonly loadTickMs: number;
    readonly indexTimeoutS: number;
    readonly snapshotTimeoutS: number;
    readonly baselineRows: number;
    readonly k: number;
    readonly warmupQueries: number;
  };
  baseline: (BaselineResult & { set: string }) | null;
  readonly sets: SetResult[];
}

const DOCS = join(process.cwd(), 'docs');
const SVG_NAME = 'benchmarks-scale.svg';
export const HEADING = '## Vector engine at scale';
const END_MARKER = '<!-- end of the section written by npm run bench:scale -->';

const f = (x: number | null | undefined, digits = 0): string =>
  x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(digits);
const n0 = (x: number | null | undefined): string =>
  x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : Math.round(x).toLocaleString('en-US');
const mib = (bytes: number | null | undefined): string =>
  bytes === null || bytes === undefined || !Number.isFinite(bytes) ? 'n/a' : `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const size = (s: SetSpec): string => `${s.rows.toLocaleString('en-US')} × ${s.dim}`;

type Status = 'met' | 'not met' | 'n/a';
interface TargetRow {
  readonly target: string;
  readonly set: string;
  readonly measured: string;
  readonly status: Status;
}

function indexWait(r: SetResult): string {
  if (!r.index) return 'n/a (insert failed)';
  if (r.index.secondsAfterLastAck === null) return `did not complete in ${r.index.timeoutS} s`;
  return `${f(r.index.secondsAfterLastAck, 1)} s`;
}

function restartWait(r: SetResult): string {
  const x = r.restart;
  if (!x) return 'n/a (not reached)';
  if (x.completeS === null) {
    return x.listenS === null
      ? `not listening within ${x.timeoutS} s`
      : `did not complete in ${x.timeoutS} s (listening after ${f(x.listenS, 1)} s)`;
  }
  return `${f(x.completeS, 1)} s (listening after ${f(x.listenS, 1)} s)`;
}

function extraText(s: SetResult): string {
  const e = s.restart?.extraTables;
  return e ? ` (with ${e.tables.toLocaleString('en-US')} more tables of ${e.rows} rows)` : '';
}

const gcCell = (g: GcSummary[] | undefined): string =>
  g
    ? g
        .map((x) => `${x.scope}: longest ${f(x.maxMs, 1)} ms, p99 ${f(x.p99Ms, 1)} ms, ${x.count} ×, ${f(x.totalMs)} ms`)
        .join('; ')
    : 'n/a';

export function targets(r: ScaleReport): TargetRow[] {
  const rows: TargetRow[] = [];
  for (const s of r.sets) {
    const set = `${s.spec.key} (${size(s.spec)})`;
    const mem = s.memory;
    const limit = s.spec.index === 'hnsw' ? 1.5 : 1.3;
    rows.push({
      target: `RSS per vector ≤ ${limit} × floor`,
      set,
      measured:
        mem && Number.isFinite(mem.ratio)
          ? `${f(mem.bytesPerVector)} bytes/vector = ${f(mem.ratio, 2)} × the floor of ${f(mem.floor)} bytes`
          : 'n/a',
      status: mem && Number.isFinite(mem.ratio) ? (mem.ratio <= limit ? 'met' : 'not met') : 'n/a',
    });
    const x = s.restart;
    rows.push({
      target: 'fresh instance listens ≤ 2 s after spawn, whatever its data',
      set,
      measured: x?.listenS != null ? `${f(x.listenS, 1)} s${extraText(s)}` : 'n/a',
      status: x?.listenS != null ? (x.listenS <= 2 ? 'met' : 'not met') : 'n/a',
    });
    if (s.spec.index === 'hnsw' && s.spec.dim === 128) {
      const scaled =
        s.spec.rows !== 1_000_000 ? ` (target set for 1,000,000 rows; this run has ${s.spec.rows.toLocaleString('en-US')})` : '';
      rows.push({
        target: 'fresh instance: the table complete ≤ 20 s after spawn, with 4,000 more tables in the database',
        set,
        measured: `${restartWait(s)}${extraText(s)}${scaled}`,
        status: !x ? 'n/a' : x.completeS !== null && x.completeS <= 20 ? 'met' : 'not met',
      });
    }
    const idle = s.freshQueries ?? s.queries;
    const busy = s.underInsert;
    rows.push({
      target: 'query p99 while inserting ≤ 2 × idle p99',
      set,
      measured:
        idle && busy
          ? `${f(busy.p99, 1)} ms under ${n0(busy.insertRowsPerSecond)} rows/s vs ${f(idle.p99, 1)} ms idle ` +
            `(${s.freshQueries ? 'same instance' : 'first instance'}) = ${f(busy.p99 / idle.p99, 2)} ×`
          : 'n/a',
      status: idle && busy ? (busy.p99 <= 2 * idle.p99 ? 'met' : 'not met') : 'n/a',
    });
    const gcBusy = s.gc?.underInsert;
    if (gcBusy) {
      rows.push({
        target: 'longest GC pause while inserting (reported, no threshold)',
        set,
        measured: gcBusy
          .map((g) => `${g.scope}: ${f(g.maxMs, 1)} ms (${g.maxType || 'none'}), ${g.count} collections`)
          .join('; '),
        status: 'n/a',
      });
    }
    rows.push({
      target: 'recall@10 ≥ 0.95 (vs "index": "flat")',
      set,
      measured: s.recall ? `${f(s.recall.mean, 4)} (lowest query ${f(s.recall.min, 1)})` : 'n/a',
      status: s.recall ? (s.recall.mean >= 0.95 ? 'met' : 'not met') : 'n/a',
    });
  }
  return rows;
}

function resultsTable(r: ScaleReport): string[] {
  const sets = r.sets;
  const line = (label: string, cell: (s: SetResult) => string): string => `| ${label} | ${sets.map(cell).join(' | ')} |`;
  const b = r.baseline;
  return [
    `| | ${sets.map((s) => `${s.spec.key}: ${size(s.spec)}, ${s.spec.index}`).join(' | ')} |`,
    `|---|${sets.map(() => '---:').join('|')}|`,
    line('insert rows/s (HTTP, 1000 rows a request)', (s) =>
      s.insert ? `${n0(s.insert.rowsPerSecond)} (${n0(s.insert.rows)} rows in ${f(s.insert.seconds, 1)} s)` : 'n/a',
    ),
    line('index complete after the last acknowledged insert', indexWait),
    line('rows ÷ (insert + index) seconds', (s) =>
      s.insert && s.index?.secondsAfterLastAck != null
        ? `${n0(s.insert.rows / (s.insert.seconds + s.index.secondsAfterLastAck))} rows/s` +
          (b && s.spec.index === 'hnsw' && s.spec.dim === b.dim
            ? ` = ${f(s.insert.rows / (s.insert.seconds + s.index.secondsAfterLastAck) / b.pointsPerSecond, 2)} × raw hnswlib`
            : '')
        : 'n/a',
    ),
    line('RSS empty → with the table', (s) => (s.memory ? `${mib(s.memory.emptyRss)} → ${mib(s.memory.rss)}` : 'n/a')),
    line('bytes per vector (RSS Δ ÷ rows)', (s) => (s.memory ? n0(s.memory.bytesPerVector) : 'n/a')),
    line('floor (bytes per vector), ratio', (s) =>
      s.memory
        ? `${f(s.memory.floor)}${s.spec.index === 'hnsw' ? ` (M = ${s.memory.m ?? '16, assumed'})` : ''}, ${f(s.memory.ratio, 2)} ×`
        : 'n/a',
    ),
    line('peak RSS (VmHWM)', (s) => mib(s.memory?.hwm)),
    line('snapshot bytes, write ms', (s) =>
      !s.snapshot
        ? 'n/a'
        : !s.snapshot.reported
          ? 'n/a (not reported)'
          : `${n0(s.snapshot.bytes)} bytes, ${f(s.snapshot.writeMs)} ms`,
    ),
    line('SIGTERM → exit', (s) => (s.restart ? `${f(s.restart.stopSeconds, 1)} s, ${s.restart.stopHow}` : 'n/a')),
    line('fresh instance: index complete after spawn', (s) => `${restartWait(s)}${extraText(s)}`),
    line('fresh instance: /health/ready 200 after spawn', (s) =>
      s.restart?.readyS === undefined
        ? 'n/a'
        : s.restart.readyS === null
          ? 'not within the timeout'
          : `${f(s.restart.readyS, 1)} s`,
    ),
    line('fresh instance: bytes per vector', (s) => (s.restart ? n0(s.restart.bytesPerVector) : 'n/a')),
    line('query p50 / p99 idle (ms)', (s) => (s.queries ? `${f(s.queries.p50, 2)} / ${f(s.queries.p99, 2)}` : 'n/a')),
    line('fresh instance: query p50 / p99 idle (ms)', (s) =>
      s.freshQueries ? `${f(s.freshQueries.p50, 2)} / ${f(s.freshQueries.p99, 2)}` : 'n/a',
    ),
    line('fresh instance: query p50 / p99 while inserting (ms)', (s) =>
      s.underInsert ? `${f(s.underInsert.p50, 2)} / ${f(s.underInsert.p99, 2)}` : 'n/a',
    ),
    line('insert load achieved (rows/s, insert errors)', (s) =>
      s.underInsert ? `${n0(s.underInsert.insertRowsPerSecond)}, ${s.underInsert.insertErrors}` : 'n/a',
    ),
    line('GC pauses, bulk insert + index', (s) => gcCell(s.gc?.insert)),
    line('GC pauses, fresh instance idle queries', (s) => gcCell(s.gc?.idle)),
    line('GC pauses, fresh instance while inserting', (s) => gcCell(s.gc?.underInsert)),
    line('recall@10 mean (lowest)', (s) => (s.recall ? `${f(s.recall.mean, 4)} (${f(s.recall.min, 1)})` : 'n/a')),
    line('exact ("index": "flat") p50 (ms)', (s) => (s.recall ? f(s.recall.exact.p50, 2) : 'n/a')),
    line('query p50 ÷ raw hnswlib p50', (s) =>
      s.queries && b && s.spec.index === 'hnsw' && s.spec.dim === b.dim ? `${f(s.queries.p50 / b.query.p50, 1)} ×` : 'n/a',
    ),
  ];
}

export function renderMarkdown(r: ScaleReport): string {
  const m = r.machine;
  const engineFields = r.sets.some((s) => s.snapshot?.reported || s.progress.some((p) => p.progress !== null));
  const errors = r.sets.flatMap((s) => s.errors.map((e) => `- ${s.spec.key}, ${e.step}: ${e.message}`));
  const b = r.baseline;
  const lines: string[] = [
    HEADING,
    '',
    `_Written by \`npm run bench:scale\`; everything from this heading to the end marker below is replaced on the next run._`,
    '',
    ...(r.note ? [`**${r.note}**`, ''] : []),
    ...(r.quick
      ? [
          '**Quick run (BENCH_SCALE_QUICK=1): each set is cut to 50,000 rows (≤ 256 dimensions) or 20,000 rows (more dimensions);',
          'the targets are set for the full sizes.**',
          '',
        ]
      : []),
    `Engine: vector-api at commit ${r.commit}; its index_status.details ${engineFields ? 'report' : 'do not report'} progress / snapshot fields.`,
    `Command: \`${r.command}\` (${f(r.seconds / 60, 1)} min). Date: ${r.date}.`,
    `Machine: ${m.cpu}, ${m.nproc} CPUs (\`nproc\`), ${f(m.memoryGiB, 1)} GiB RAM, Node ${m.node}; load average at start ${m.loadAtStart || 'n/a'}.` +
      ` Database: ${r.sets[0]?.database?.server ?? 'n/a'}, on the same machine.`,
    '',
    '### Targets',
    '',
    '| target | set | measured | status |',
    '|---|---|---|---|',
    ...targets(r).map((t) => `| ${t.target} | ${t.set} | ${t.measured} | ${t.status === 'n/a' ? 'n/a' : `**${t.status}**`} |`),
    '',
    '### Results',
    '',
    ...resultsTable(r),
    '',
    b
      ? `Raw hnswlib-node in the benchmark's process (M ${b.m}, efConstruction ${b.efConstruction}, ef ${b.ef}), the first ` +
        `${b.rows.toLocaleString('en-US')} rows of ${b.set}'s data: ${n0(b.pointsPerSecond)} points/s (${f(b.buildSeconds, 1)} s), ` +
        `query p50 ${f(b.query.p50, 3)} ms (p99 ${f(b.query.p99, 3)} ms), recall@10 ${f(b.recall, 4)} against a brute force.`
      : 'Raw hnswlib-node baseline: not run (BENCH_SCALE_BASELINE_ROWS=0) or failed.',
    '',
    `![rows indexed over time, per set](${SVG_NAME})`,
    '',
    ...(errors.length > 0 ? ['### Errors', '', ...errors, ''] : []),
    '### How it is measured',
    '',
    '- Each set runs in its own fresh database and table, against the built service (`dist/apps/vector-api/src/main.js`, NODE_ENV',
    '  production, log level warn) started by the benchmark, which reads its RSS from /proc/<pid>/status. Every number comes',
    '  through the HTTP API with an API token; rate limits are raised out of the way (the limiter still runs on every request).',
    '- Data: a seeded gaussian mixture generated by row index (bench/vector/scale-data.ts): ≈ √N unit centres with a decaying',
    '  spectrum, skewed cluster sizes, per-cluster anisotropic noise (intrinsic dimensionality ≈ 18 at 128 dimensions); values',
    `  sent with 6 decimals; ids \`r<row>\`, metadata \`{group: row % 100}\`. ${r.settings.queries} held-out queries come from the`,
    '  same mixture through another random stream.',
    `- Insert: ${r.settings.batch} rows a request, ${r.settings.concurrency} requests in flight; rows/s from the first request to the`,
    '  last acknowledgement. The index is complete when `GET /v1/tables/{t}` shows `index_status.state` `ready` and',
    '  `details.pending` 0 (polled every 250 ms).',
    '- Memory: median VmRSS of 5 readings 2 s after the index completed, minus the same process before its table existed;',
    '  floor per vector: hnsw 4 × dimension + level-0 links (2·M × 4 + 4 bytes) + upper levels ((M × 4 + 4) ÷ (M − 1)),',
    '  ivf 4 × dimension + 4. The index is the process of the service only (PostgreSQL and the benchmark are not counted).',
    '- Snapshot: once `details.snapshot_seq` reaches 90 % of `details.applied_seq` (the service snapshots a table per tenth of it changed; waited up to',
    `  ${r.settings.snapshotTimeoutS} s), \`details.snapshot_bytes\` and \`details.snapshot_write_ms\`; n/a when the engine does not report them.`,
    '- Fresh instance: after the idle latency and recall runs, with the index complete, SIGTERM, then a new process on the',
    '  same database; seconds from its spawn until the index is complete again.',
    `- Latency: one client, one query at a time (n = ${r.settings.k}, the table's index), client-side wall time, cycling through`,
    `  ${r.settings.queries} held-out queries for ≥ ${r.settings.latencySeconds ?? 0} s and ≥ ${r.settings.latencyQueries ?? r.settings.queries} queries after ${r.settings.warmupQueries} warm-up queries: on the first instance, then on the fresh`,
    `  one idle and while a second client inserts ${r.settings.loadRate} rows/s (${(r.settings.loadRate * r.settings.loadTickMs) / 1000} rows every`,
    `  ${r.settings.loadTickMs} ms, new ids, at most 20 requests in flight: "insert load achieved" says what it reached). The target`,
    '  compares the two runs of the fresh instance. Percentiles are nearest-rank.',
    `- Recall@10: the idle answers to the first ${r.settings.recallQueries ?? r.settings.queries} held-out queries against the same table's answers with \`"index": "flat"\` (exact by contract).`,
    `- GC: the services run with \`--trace-gc\`${r.settings.traceGc === false ? ' (not in this run)' : ''}; pauses (the isolate's own stop, incremental marking steps apart) of the main thread and of the worker threads, per phase.`,
    `- Fresh instance among other tables: ${r.settings.extraTables ?? 0} small tables (${r.settings.extraRows ?? 0} rows × ${r.settings.extraDim ?? 0}, index ${(r.settings.extraKinds ?? ['flat']).join(' / ')}) written with SQL into the database before the fresh start.`,
    '- Raw data of the run, with every progress sample: `.data/bench-scale/results.json`.',
    '',
    END_MARKER,
    '',
  ];
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------
// SVG

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function niceStep(range: number, ticks = 5): number {
  const raw = range / ticks;
  const mag = 10 ** Math.floor(Math.log10(raw || 1));
  const unit = raw / mag;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * mag;
}

const SERIES = {
  acked: { color: '#7f7f7f', label: 'rows acknowledged (inserts)', dash: '' },
  indexed: { color: '#d62728', label: 'rows indexed (s since the first insert)', dash: '' },
  restart: { color: '#1f77b4', label: 'rows indexed by a fresh instance (s since its spawn)', dash: '6 3' },
};

/** Rows indexed against seconds: after the inserts and after a restart, one panel per set. */
export function renderSvg(r: ScaleReport): string {
  const pw = 440;
  const ph = 320;
  const margin = { l: 70, r: 15, t: 34, b: 45 };
  const legendH = 30;
  const panels = Math.max(1, r.sets.length);
  const width = pw * panels;
  const height = ph + legendH + 20;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
  ];
  r.sets.forEach((s, i) => {
    const x0 = i * pw + margin.l;
    const y0 = margin.t;
    const w = pw - margin.l - margin.r;
    const h = ph - margin.t - margin.b;
    const restart = s.restart?.progress ?? [];
    const all = [...s.progress, ...restart];
    const tMax = Math.max(1, ...all.map((p) => p.t));
    const yMax = Math.max(1, ...all.map((p) => Math.max(p.rows, p.indexed)));
    const xStep = niceStep(tMax);
    const yStep = niceStep(yMax * 1.1);
    const xTop = Math.ceil(tMax / xStep) * xStep;
    // Headroom above the largest value, so flat lines at the top stay off the frame.
    const yTop = Math.ceil((yMax * 1.1) / yStep) * yStep;
    const sx = (t: number): number => x0 + (t / xTop) * w;
    const sy = (v: number): number => y0 + h - (v / yTop) * h;
    parts.push(
      `<text x="${x0 + w / 2}" y="${y0 - 14}" text-anchor="middle" font-size="13" font-weight="bold">${esc(`${s.spec.key}: ${size(s.spec)}, ${s.spec.index}`)}</text>`,
      `<rect x="${x0}" y="${y0}" width="${w}" height="${h}" fill="none" stroke="#333"/>`,
    );
    for (let v = 0; v <= yTop + 1e-9; v += yStep) {
      const y = sy(v);
      parts.push(`<line x1="${x0}" y1="${y.toFixed(1)}" x2="${x0 + w}" y2="${y.toFixed(1)}" stroke="#ddd"/>`);
      parts.push(
        `<text x="${x0 - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end">${Math.round(v).toLocaleString('en-US')}</text>`,
      );
    }
    for (let t = 0; t <= xTop + 1e-9; t += xStep) {
      const x = sx(t);
      parts.push(`<line x1="${x.toFixed(1)}" y1="${y0}" x2="${x.toFixed(1)}" y2="${y0 + h}" stroke="#eee"/>`);
      parts.push(`<text x="${x.toFixed(1)}" y="${y0 + h + 15}" text-anchor="middle">${Number(t.toFixed(6))}</text>`);
    }
    parts.push(`<text x="${x0 + w / 2}" y="${y0 + h + 35}" text-anchor="middle">seconds</text>`);
    parts.push(
      `<text x="${i * pw + 14}" y="${y0 + h / 2}" text-anchor="middle" transform="rotate(-90 ${i * pw + 14} ${y0 + h / 2})">rows</text>`,
    );
    const path = (pts: SampleRow[], value: (p: SampleRow) => number, series: (typeof SERIES)[keyof typeof SERIES]): void => {
      if (pts.length === 0) return;
      const d = pts.map((p, k) => `${k === 0 ? 'M' : 'L'}${sx(p.t).toFixed(1)},${sy(value(p)).toFixed(1)}`).join(' ');
      parts.push(
        `<path d="${d}" fill="none" stroke="${series.color}" stroke-width="1.8"${series.dash ? ` stroke-dasharray="${series.dash}"` : ''}/>`,
      );
    };
    path(s.progress, (p) => p.rows, SERIES.acked);
    path(s.progress, (p) => p.indexed, SERIES.indexed);
    path(restart, (p) => p.indexed, SERIES.restart);
    const lastAck = s.index?.lastAckAt ?? s.insert?.seconds;
    if (lastAck !== undefined) {
      const x = sx(lastAck).toFixed(1);
      parts.push(`<line x1="${x}" y1="${y0}" x2="${x}" y2="${y0 + h}" stroke="#7f7f7f" stroke-dasharray="2 3"/>`);
      parts.push(
        `<text x="${x}" y="${y0 + h - 6}" text-anchor="start" fill="#555" transform="rotate(-90 ${x} ${y0 + h - 6})" dy="-4">last insert acknowledged</text>`,
      );
    }
    const listen = s.restart?.listenS;
    if (listen !== null && listen !== undefined) {
      parts.push(
        `<circle cx="${sx(listen).toFixed(1)}" cy="${sy(0).toFixed(1)}" r="3.5" fill="white" stroke="${SERIES.restart.color}" stroke-width="1.5"><title>fresh instance listening after ${f(listen, 1)} s</title></circle>`,
      );
    }
    const marks: Array<[number | null | undefined, string, string]> = [
      [s.index?.completeAt, SERIES.indexed.color, `complete ${indexWait(s)} after the last insert`],
      [s.restart?.completeS, SERIES.restart.color, `fresh instance complete ${restartWait(s)}`],
    ];
    for (const [t, color, title] of marks) {
      if (t === null || t === undefined) continue;
      const last = t === s.index?.completeAt ? s.progress.at(-1) : restart.at(-1);
      parts.push(
        `<circle cx="${sx(t).toFixed(1)}" cy="${sy(last?.indexed ?? 0).toFixed(1)}" r="4.5" fill="${color}" stroke="black"><title>${esc(title)}</title></circle>`,
      );
    }
    if (all.length === 0) {
      parts.push(`<text x="${x0 + w / 2}" y="${y0 + h / 2}" text-anchor="middle" fill="#a00">no samples</text>`);
    }
  });
  Object.values(SERIES).forEach((series, k) => {
    const x = 20 + k * Math.max(260, width / 3);
    const y = ph + 12;
    parts.push(
      `<line x1="${x - 8}" y1="${y}" x2="${x + 14}" y2="${y}" stroke="${series.color}" stroke-width="2"${series.dash ? ` stroke-dasharray="${series.dash}"` : ''}/>`,
      `<text x="${x + 20}" y="${y + 4}">${esc(series.label)}</text>`,
    );
  });
  parts.push(
    `<text x="${width - 10}" y="${height - 6}" text-anchor="end" fill="#666">ringed point: index complete · hollow point: fresh instance listening · ${esc(r.commit)} · ${esc(r.date.slice(0, 10))}${r.quick ? ' · quick run' : ''}</text>`,
    '</svg>',
    '',
  );
  return parts.join('\n');
}

/**
 * Replaces the section from `## Vector engine at scale` to its end marker (appends it when
 * absent); the rest of docs/benchmarks.md stays. Formatted with the repo's Prettier config.
 */
export async function writeScaleReport(r: ScaleReport): Promise<void> {
  const path = join(DOCS, 'benchmarks.md');
  const section = renderMarkdown(r);
  let doc = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n';
  const start = doc.indexOf(`\n${HEADING}\n`);
  const end = start >= 0 ? doc.indexOf(END_MARKER, start) : -1;
  if (start >= 0 && end >= 0) {
    doc = doc.slice(0, start + 1) + section + doc.slice(end + END_MARKER.length).replace(/^\n+/, '\n');
  } else if (start >= 0) {
    throw new Error(`docs/benchmarks.md has "${HEADING}" without its end marker: fix the file by hand, nothing was written`);
  } else {
    doc = `${doc.trimEnd()}\n\n${section}`;
  }
  const options = (await prettier.resolveConfig(path)) ?? {};
  writeFileSync(path, await prettier.format(doc, { ...options, filepath: path }));
  writeFileSync(join(DOCS, SVG_NAME), renderSvg(r));
}
