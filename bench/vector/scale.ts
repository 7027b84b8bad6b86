/**
 * vector-api at scale (issue 16): real vector-api processes (the built
 * dist/apps/vector-api/src/main.js), driven only through their HTTP API, one fresh database
 * and table per set. Per set: insert rate, seconds from the last acknowledged insert until
 * the index is complete (with its progress over time), RSS per vector against the index's
 * floor, snapshot size and write time (when the engine reports them), seconds from a fresh
 * start until the index is complete again, query latency idle and under a paced insert load,
 * and recall@10 against the same table's exact (`"index": "flat"`) answers. Plus raw
 * hnswlib-node in-process on a sample of the same 128-d data, for ratios.
 *
 *   npm run bench:scale                                   (hnsw-1m-128, ivf-1m-128, hnsw-100k-768)
 *   BENCH_SCALE_QUICK=1 npm run bench:scale               (50,000 rows at ≤ 256 dimensions, 20,000 above)
 *   BENCH_SCALE_SETS=hnsw-1m-128 npm run bench:scale      (<index>-<rows, k/m suffix>-<dimension>, comma-separated)
 *   BENCH_SCALE_ROWS=100000 npm run bench:scale           (every set capped at that many rows: a smoke run)
 *
 * Issue 32's measurements: latency runs (idle, and while inserting) last ≥ BENCH_SCALE_LATENCY_S
 * (30; quick 10) and ≥ BENCH_SCALE_LATENCY_QUERIES (1,000; quick 200) queries; the services run
 * with --trace-gc (BENCH_SCALE_TRACE_GC=0: not) and the report gives the GC pauses of the
 * bulk insert + index phase, the idle queries and the queries while inserting, main thread
 * and workers apart; before the restart, BENCH_SCALE_EXTRA_TABLES (4,000; 0: none) small
 * tables of BENCH_SCALE_EXTRA_ROWS (25) rows × BENCH_SCALE_EXTRA_DIM (64), of the index kinds
 * BENCH_SCALE_EXTRA_KINDS (flat; e.g. flat,hnsw,ivf: in turn), are written straight into the database with SQL (rows, change log, seq: what
 * the API would have written), so the fresh instance starts among them: seconds from spawn
 * until it listens, until /health/ready answers 200 and until the big table is complete.
 * Recall uses the first BENCH_SCALE_RECALL_QUERIES (200) held-out queries.
 *
 * Writes .data/bench-scale/results.json (after every set), the `## Vector engine at scale`
 * section of docs/benchmarks.md and docs/benchmarks-scale.svg (BENCH_SCALE_DOCS=0: not).
 * Other settings: BENCH_SCALE_CONCURRENCY (insert requests in flight, 4), BENCH_SCALE_QUERIES
 * (held-out queries, 200), BENCH_SCALE_LOAD_RATE (rows/s of the insert load during the
 * second latency run, 1000), BENCH_SCALE_INDEX_TIMEOUT_S (each wait for a complete index;
 * 3600, quick 900), BENCH_SCALE_SNAPSHOT_TIMEOUT_S (600), BENCH_SCALE_BASELINE_ROWS (raw
 * hnswlib sample; 100,000, quick 20,000; 0 skips it), BENCH_SCALE_NOTE (a line for the
 * section's header), BENCH_SCALE_RENDER_ONLY=1 (only the docs, from the last results.json), BENCH_SCALE_LOG_LEVEL (the services', warn). The services inherit the
 * environment, so engine settings (VECTOR_*) pass through. Needs PostgreSQL
 * (BENCH_SCALE_PG_URL or DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres)
 * and Redis (REDIS_URL).
 */
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import hnswlib from 'hnswlib-node';
import { Client } from 'pg';
import { buildIfNeeded } from '../http/platform';
import { formatGc, gcEventsOfLog, gcSummaries } from './gc-trace';
import { queryFor, startInsertLoad } from './insert-load';
import { collect, machineInfo } from './measure';
import { insertBody, MixtureData, vectorJson } from './scale-data';
import { mulberry32 as mulberry } from '../../test/support/random';
import {
  type SampleRow,
  type ScaleReport,
  type SetResult,
  type BaselineResult,
  type Latency,
  writeScaleReport,
  type SetSpec,
} from './scale-report';
import {
  cleanOrphans,
  createDatabase,
  DATA_DIR,
  dropDatabase,
  expectOk,
  runBenchmark,
  ROOT,
  sleep,
  VectorService,
} from './scale-server';

const { HierarchicalNSW } = hnswlib;

const env = process.env;
const quick = env.BENCH_SCALE_QUICK === '1';
const num = (name: string, fallback: number): number => {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number ≥ 0, not ${v}`);
  return n;
};
const SETTINGS = {
  concurrency: Math.max(1, num('BENCH_SCALE_CONCURRENCY', 4)),
  batch: 1000,
  queries: Math.max(1, num('BENCH_SCALE_QUERIES', quick ? 200 : 1000)),
  /** Each latency run lasts at least this long and at least latencyQueries queries. */
  latencySeconds: num('BENCH_SCALE_LATENCY_S', quick ? 10 : 30),
  latencyQueries: Math.max(1, num('BENCH_SCALE_LATENCY_QUERIES', quick ? 200 : 1000)),
  recallQueries: Math.max(1, num('BENCH_SCALE_RECALL_QUERIES', 200)),
  traceGc: env.BENCH_SCALE_TRACE_GC !== '0',
  extraTables: Math.round(num('BENCH_SCALE_EXTRA_TABLES', 4000)),
  extraRows: Math.max(1, Math.round(num('BENCH_SCALE_EXTRA_ROWS', 25))),
  extraDim: Math.max(1, Math.round(num('BENCH_SCALE_EXTRA_DIM', 64))),
  /**
   * Index kinds of the extra tables, in turn. flat by default: today every hnsw and ivf
   * table has a worker thread of its own, and 4,000 of them (a third each flat, hnsw, ivf)
   * took vector-api past 5.5 GB RSS and 640 threads before it listened (stopped there).
   */
  extraKinds: (env.BENCH_SCALE_EXTRA_KINDS ?? 'flat').split(',').map((k) => {
    const kind = k.trim();
    if (kind !== 'flat' && kind !== 'hnsw' && kind !== 'ivf')
      throw new Error(`BENCH_SCALE_EXTRA_KINDS: "${kind}" is not flat, hnsw or ivf`);
    return kind;
  }),
  /** Caps every set's rows (0: no cap). */
  maxRows: Math.round(num('BENCH_SCALE_ROWS', 0)),
  loadRate: Math.max(10, num('BENCH_SCALE_LOAD_RATE', 1000)),
  /** The insert load sends loadRate ÷ 10 rows every 100 ms. */
  loadTickMs: 100,
  indexTimeoutS: num('BENCH_SCALE_INDEX_TIMEOUT_S', quick ? 900 : 3600),
  snapshotTimeoutS: num('BENCH_SCALE_SNAPSHOT_TIMEOUT_S', 600),
  baselineRows: num('BENCH_SCALE_BASELINE_ROWS', quick ? 20_000 : 100_000),
  sampleMs: 1000,
  k: 10,
  warmupQueries: 10,
};
const DEFAULT_SETS = 'hnsw-1m-128,ivf-1m-128,hnsw-100k-768';

function parseSets(text: string): SetSpec[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((key) => {
      const m = /^(hnsw|ivf)-(\d+)([km]?)-(\d+)$/.exec(key);
      if (!m) throw new Error(`BENCH_SCALE_SETS: "${key}" is not <hnsw|ivf>-<rows>[k|m]-<dimension> (e.g. hnsw-1m-128)`);
      const fullRows = Number(m[2]) * (m[3] === 'm' ? 1_000_000 : m[3] === 'k' ? 1000 : 1);
      const dim = Number(m[4]);
      let rows = quick ? Math.min(fullRows, dim <= 256 ? 50_000 : 20_000) : fullRows;
      if (SETTINGS.maxRows > 0) rows = Math.min(rows, SETTINGS.maxRows);
      return { key, index: m[1] as 'hnsw' | 'ivf', rows, dim, fullRows };
    });
}

const started = performance.now();
const log = (msg: string): void => {
  process.stderr.write(`[bench:scale] ${msg} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
};

// ---------------------------------------------------------------------------------------
// Helpers

interface TableView {
  rows: number;
  index_status: { state: string; details: Record<string, number | undefined> };
}

function complete(t: TableView, expectedRows: number): boolean {
  return t.rows >= expectedRows && t.index_status.state === 'ready' && t.index_status.details.pending === 0;
}

/** Rows in the index: details.points, else progress × rows, else rows − pending once ready. */
function indexedRows(t: TableView): number {
  const d = t.index_status.details;
  if (typeof d.points === 'number') return d.points;
  if (typeof d.progress === 'number') return d.progress * t.rows;
  if (t.index_status.state !== 'ready') return 0;
  return typeof d.pending === 'number' ? t.rows - d.pending : t.rows;
}

function toSample(t: number, view: TableView): SampleRow {
  const d = view.index_status.details;
  return {
    t: Math.round(t * 100) / 100,
    rows: view.rows,
    indexed: indexedRows(view),
    pending: d.pending ?? null,
    progress: d.progress ?? null,
    state: view.index_status.state,
  };
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

function latency(ms: readonly number[]): Latency {
  return {
    count: ms.length,
    p50: percentile(ms, 0.5),
    p99: percentile(ms, 0.99),
    max: ms.length ? Math.max(...ms) : NaN,
    mean: ms.length ? ms.reduce((a, b) => a + b, 0) / ms.length : NaN,
  };
}

const fmtS = (s: number): string => `${s.toFixed(1)} s`;

/** Bytes of the index's floor per vector (see the report's notes). */
function floorBytes(index: 'hnsw' | 'ivf', dim: number, m: number): number {
  if (index === 'ivf') return 4 * dim + 4;
  return 4 * dim + (2 * m * 4 + 4) + (m * 4 + 4) / (m - 1);
}

// ---------------------------------------------------------------------------------------
// One set

class SetRun {
  private readonly data: MixtureData;
  private readonly table: string;
  private readonly queryBodies: string[];
  private readonly flatBodies: string[];
  private readonly warmBodies: string[];
  private token = '';
  private insertPath = 'insert';
  private svc: VectorService | undefined;
  /** performance.now() at the first insert: the progress samples' zero. */
  private clockOffset = 0;
  /** Rows acknowledged so far (the set's rows, then the insert load's). */
  private expectedRows = 0;
  readonly result: SetResult;

  constructor(
    readonly spec: SetSpec,
    private readonly adminKey: string,
  ) {
    this.data = new MixtureData(spec.dim, spec.rows);
    this.table = `scale_${spec.key.replace(/[^a-z0-9]/g, '_')}`;
    const q = new Float32Array(spec.dim);
    this.queryBodies = [];
    this.flatBodies = [];
    for (let j = 0; j < SETTINGS.queries; j++) {
      const v = vectorJson(this.data.query(j, q));
      this.queryBodies.push(`{"vector":${v},"n":${SETTINGS.k}}`);
      if (j < SETTINGS.recallQueries) this.flatBodies.push(`{"vector":${v},"n":${SETTINGS.k},"index":"flat"}`);
    }
    this.warmBodies = Array.from(
      { length: SETTINGS.warmupQueries },
      (_, j) => `{"vector":${vectorJson(this.data.query(SETTINGS.queries + j, q))},"n":${SETTINGS.k}}`,
    );
    this.result = {
      spec,
      table: this.table,
      clusters: this.data.clusters,
      errors: [],
      insert: null,
      index: null,
      progress: [],
      snapshot: null,
      memory: null,
      queries: null,
      freshQueries: null,
      underInsert: null,
      recall: null,
      restart: null,
      gc: null,
    };
  }

  private url(path: string): string {
    if (!this.svc) throw new Error('no service running');
    return `${this.svc.base}${path}`;
  }

  private async view(timeoutMs = 30_000): Promise<TableView> {
    return (await expectOk('GET', this.url(`/v1/tables/${this.table}`), { token: this.token, timeoutMs })) as TableView;
  }

  private async query(body: string): Promise<{ ms: number; ids: string[] }> {
    const t = performance.now();
    const res = (await expectOk('POST', this.url(`/v1/tables/${this.table}/query`), {
      body,
      token: this.token,
      timeoutMs: 120_000,
    })) as { results: Array<{ id: string }> };
    return { ms: performance.now() - t, ids: res.results.map((r) => r.id) };
  }

  /**
   * Polls GET /v1/tables/{t} until the index is complete or `timeoutS` passes; samples go to
   * `samples` (at most one per sampleMs), `t` as given by `clock`. Returns the clock's value
   * at completion, or null after the timeout.
   */
  private async waitComplete(
    timeoutS: number,
    clock: () => number,
    samples: SampleRow[],
    what: string,
  ): Promise<{ at: number | null; last: TableView | undefined }> {
    const deadline = performance.now() + timeoutS * 1000;
    let last: TableView | undefined;
    let lastSample = -Infinity;
    let lastLog = performance.now();
    for (;;) {
      if (this.svc && !this.svc.alive) throw new Error(`vector-api ${this.svc.pid} exited; see ${this.svc.logFile}`);
      try {
        last = await this.view(Math.min(30_000, Math.max(1000, deadline - performance.now())));
        const now = clock();
        const done = complete(last, this.expectedRows);
        if (done || now - lastSample >= SETTINGS.sampleMs / 1000) {
          samples.push(toSample(now, last));
          lastSample = now;
        }
        if (done) return { at: now, last };
        if (performance.now() - lastLog > 15_000) {
          lastLog = performance.now();
          const d = last.index_status.details;
          log(
            `${this.spec.key}: ${what}: ${last.index_status.state}, ${Math.round(indexedRows(last)).toLocaleString('en-US')} of ` +
              `${last.rows.toLocaleString('en-US')} rows indexed, pending ${d.pending ?? 'n/a'}`,
          );
        }
      } catch (err) {
        // A busy service may not answer one GET in time: the deadline decides.
        if (this.svc && !this.svc.alive) throw err;
      }
      if (performance.now() > deadline) return { at: null, last };
      await sleep(250);
    }
  }

  private async startService(logName: string): Promise<VectorService> {
    const db = this.result.database;
    if (!db) throw new Error('no database');
    this.svc = await VectorService.spawn({
      databaseUrl: db.url,
      adminKey: this.adminKey,
      logName,
      log,
      nodeArgs: SETTINGS.traceGc ? ['--trace-gc'] : [],
    });
    return this.svc;
  }

  /** The service's log offset now: a phase's GC lines lie between two of these. */
  private gcMark(): number {
    return this.svc?.logBytes() ?? 0;
  }

  /** GC pauses of the running service since `from` (needs --trace-gc), logged and stored under `phase`. */
  private gcPhase(phase: 'insert' | 'idle' | 'underInsert', from: number): void {
    const svc = this.svc;
    if (!svc || !SETTINGS.traceGc) return;
    try {
      const { all, window } = gcEventsOfLog(svc.logFile, from, svc.logBytes(), svc.logStart);
      const summaries = gcSummaries(all, window);
      this.result.gc = { ...(this.result.gc ?? {}), [phase]: summaries };
      log(`${this.spec.key}: GC pauses (${phase}):\n${summaries.map((x) => formatGc(x, '    ')).join('\n')}`);
    } catch (err) {
      log(`${this.spec.key}: GC trace of ${phase} unreadable: ${String(err)}`);
    }
  }

  async run(): Promise<void> {
    const { spec } = this;
    const db = await createDatabase(log);
    this.result.database = { name: db.name, url: db.url, server: db.server };
    try {
      await this.step('empty instance', () => this.emptyInstance());
      const insertMark = this.gcMark();
      await this.step('insert', () => this.insertAll());
      await this.step('index', () => this.indexAfterInsert());
      this.gcPhase('insert', insertMark);
      await this.step('snapshot', () => this.snapshot());
      await this.step('memory', () => this.memory());
      await this.step('queries', () => this.idleQueriesAndRecall());
      await this.step('restart', () => this.restart());
      // On the fresh instance, last: the rows it adds change the table.
      await this.step('queries under insert load', () => this.queriesUnderInsert());
    } finally {
      if (this.svc) {
        const stopped = await this.svc.stop();
        log(`${spec.key}: vector-api stopped: ${stopped.how} in ${fmtS(stopped.seconds)}`);
      }
      await dropDatabase(db.name, log);
    }
  }

  /** Runs a step; a failure is recorded and ends the set when the service is gone or nothing can follow. */
  private async step(name: string, fn: () => Promise<void>): Promise<void> {
    if (this.result.errors.some((e) => e.fatal)) return;
    try {
      await fn();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const fatal = !this.svc?.alive || name === 'empty instance' || name === 'insert';
      this.result.errors.push({ step: name, message, fatal });
      log(`${this.spec.key}: ${name} failed${fatal ? ' (set ends here)' : ''}: ${message}`);
    }
  }

  private async emptyInstance(): Promise<void> {
    const svc = await this.startService(`${this.spec.key}.log`);
    const listenS = await svc.waitListening(120);
    log(`${this.spec.key}: empty vector-api listening after ${fmtS(listenS)}`);
    const created = (await expectOk('POST', this.url('/admin/v1/tokens'), {
      body: { name: 'bench-scale' },
      token: this.adminKey,
    })) as { token: string };
    this.token = created.token;
    const doc = (await expectOk('GET', this.url('/openapi.json'))) as { paths?: Record<string, Record<string, unknown>> };
    const paths = doc.paths ?? {};
    const vectorsPath = Object.keys(paths).find((p) => /^\/v1\/tables\/\{[^}]+\}\/vectors$/.test(p) && paths[p]?.post);
    this.insertPath = process.env.BENCH_SCALE_INSERT_PATH ?? (vectorsPath ? 'vectors' : 'insert');
    // The same requests the measured instance will have served, before the RSS reading.
    for (let i = 0; i < 20; i++) await expectOk('GET', this.url('/v1/tables'), { token: this.token });
    await sleep(2000);
    const rss = await svc.steadyRss();
    this.result.memory = { emptyRss: rss, rss: NaN, hwm: NaN, bytesPerVector: NaN, floor: NaN, ratio: NaN, m: null };
    log(
      `${this.spec.key}: empty instance RSS ${(rss / 2 ** 20).toFixed(0)} MiB; inserts go to POST /v1/tables/{t}/${this.insertPath}`,
    );
  }

  private async insertAll(): Promise<void> {
    const { spec } = this;
    await expectOk('POST', this.url('/v1/tables'), {
      body: { name: this.table, dimension: spec.dim, index: spec.index },
      token: this.token,
    });
    const url = this.url(`/v1/tables/${this.table}/${this.insertPath}`);
    const t0 = performance.now();
    this.clockOffset = t0;
    const clock = (): number => (performance.now() - t0) / 1000;
    let next = 0;
    let acked = 0;
    let bodyBytes = 0;
    let requests = 0;
    let lastAck = 0;
    let failed: Error | undefined;
    let lastLog = performance.now();
    const worker = async (): Promise<void> => {
      while (next < spec.rows && failed === undefined) {
        const from = next;
        const to = Math.min(spec.rows, from + SETTINGS.batch);
        next = to;
        const body = insertBody(this.data, from, to);
        bodyBytes += body.length;
        try {
          await expectOk('POST', url, { body, token: this.token, timeoutMs: 300_000 });
        } catch (err) {
          failed ??= err instanceof Error ? err : new Error(String(err));
          return;
        }
        requests++;
        acked += to - from;
        lastAck = clock();
        if (performance.now() - lastLog > 10_000) {
          lastLog = performance.now();
          log(`${spec.key}: ${acked.toLocaleString('en-US')} rows inserted, ${(acked / clock()).toFixed(0)} rows/s`);
        }
      }
    };
    let inserting = true;
    const sampler = (async () => {
      while (inserting) {
        try {
          this.result.progress.push(toSample(clock(), await this.view(10_000)));
        } catch {
          // a sample missed under load is only a gap in the plot
        }
        const wait = SETTINGS.sampleMs - ((performance.now() - t0) % SETTINGS.sampleMs);
        await sleep(wait);
      }
    })();
    await Promise.all(Array.from({ length: SETTINGS.concurrency }, worker));
    inserting = false;
    await sampler;
    this.expectedRows = acked;
    this.result.insert = {
      rows: acked,
      seconds: lastAck,
      rowsPerSecond: acked / lastAck,
      requests,
      concurrency: SETTINGS.concurrency,
      batch: SETTINGS.batch,
      meanBodyBytes: requests ? bodyBytes / requests : NaN,
      path: `POST /v1/tables/{t}/${this.insertPath}`,
    };
    if (failed !== undefined) throw failed;
    log(
      `${spec.key}: ${acked.toLocaleString('en-US')} rows inserted in ${fmtS(lastAck)}: ${(acked / lastAck).toFixed(0)} rows/s`,
    );
  }

  private async indexAfterInsert(): Promise<void> {
    const clock = (): number => (performance.now() - this.clockOffset) / 1000;
    const lastAck = this.result.insert?.seconds ?? clock();
    const { at, last } = await this.waitComplete(SETTINGS.indexTimeoutS, clock, this.result.progress, 'index after insert');
    const details = last?.index_status.details ?? {};
    this.result.index = {
      lastAckAt: lastAck,
      completeAt: at,
      secondsAfterLastAck: at === null ? null : Math.max(0, at - lastAck),
      timeoutS: SETTINGS.indexTimeoutS,
      details: { state: last?.index_status.state ?? 'unknown', ...details },
    };
    if (at === null) throw new Error(`the index did not complete in ${SETTINGS.indexTimeoutS} s after the last insert`);
    log(`${this.spec.key}: index complete ${fmtS(at - lastAck)} after the last acknowledged insert`);
  }

  private async snapshot(): Promise<void> {
    const first = await this.view();
    const d = first.index_status.details;
    // applied_seq says the engine takes snapshots; snapshot_seq appears once one is written.
    if (typeof d.applied_seq !== 'number') {
      this.result.snapshot = { reported: false, bytes: null, writeMs: null, waitedS: 0, seq: null, appliedSeq: null };
      log(`${this.spec.key}: no snapshot fields in index_status.details: snapshot n/a`);
      return;
    }
    const t0 = performance.now();
    const deadline = t0 + SETTINGS.snapshotTimeoutS * 1000;
    let view = first;
    for (;;) {
      const dd = view.index_status.details;
      // The service snapshots after a tenth of the table changed (or after its max age):
      // a snapshot within the last tenth of the log is the one a restart loads, the rest
      // being replayed from the log.
      if (dd.snapshot_seq !== undefined && dd.applied_seq !== undefined && dd.snapshot_seq >= Math.floor(dd.applied_seq * 0.9))
        break;
      if (performance.now() > deadline) {
        this.result.snapshot = {
          reported: true,
          bytes: dd.snapshot_bytes ?? null,
          writeMs: dd.snapshot_write_ms ?? null,
          waitedS: (performance.now() - t0) / 1000,
          seq: dd.snapshot_seq ?? null,
          appliedSeq: dd.applied_seq ?? null,
        };
        throw new Error(
          `snapshot_seq ${dd.snapshot_seq} did not reach 90 % of applied_seq ${dd.applied_seq} in ${SETTINGS.snapshotTimeoutS} s`,
        );
      }
      await sleep(500);
      view = await this.view();
    }
    const dd = view.index_status.details;
    this.result.snapshot = {
      reported: true,
      bytes: dd.snapshot_bytes ?? null,
      writeMs: dd.snapshot_write_ms ?? null,
      waitedS: (performance.now() - t0) / 1000,
      seq: dd.snapshot_seq ?? null,
      appliedSeq: dd.applied_seq ?? null,
    };
    log(
      `${this.spec.key}: snapshot at seq ${dd.snapshot_seq}: ${dd.snapshot_bytes ?? 'n/a'} bytes in ${dd.snapshot_write_ms ?? 'n/a'} ms`,
    );
  }

  private async memory(): Promise<void> {
    const svc = this.svc;
    const mem = this.result.memory;
    if (!svc || !mem) throw new Error('no empty-instance reading');
    await sleep(2000);
    const rss = await svc.steadyRss();
    const view = await this.view();
    const m = view.index_status.details.m ?? null;
    const floor = floorBytes(this.spec.index, this.spec.dim, m ?? 16);
    const bytesPerVector = (rss - mem.emptyRss) / view.rows;
    this.result.memory = { ...mem, rss, hwm: svc.memory().hwm, bytesPerVector, floor, ratio: bytesPerVector / floor, m };
    log(
      `${this.spec.key}: RSS ${(rss / 2 ** 20).toFixed(0)} MiB (empty ${(mem.emptyRss / 2 ** 20).toFixed(0)} MiB): ` +
        `${bytesPerVector.toFixed(0)} bytes/vector, floor ${floor.toFixed(0)}, ${(bytesPerVector / floor).toFixed(2)} ×`,
    );
  }

  /**
   * The held-out queries one at a time after the warm-up ones, cycling through them until
   * ≥ latencySeconds and ≥ latencyQueries: latencies, and the answers of the first pass.
   */
  private async idleQueries(what: string): Promise<{ latency: Latency; found: string[][] }> {
    for (const body of this.warmBodies) await this.query(body);
    const found: string[][] = [];
    const mark = this.gcMark();
    let i = 0;
    const { ms, seconds } = await queryFor(
      async (body) => {
        const r = await this.query(body);
        if (i < this.queryBodies.length) found[i] = r.ids;
        i++;
      },
      this.queryBodies,
      SETTINGS.latencySeconds,
      SETTINGS.latencyQueries,
    );
    if (what.startsWith('fresh')) this.gcPhase('idle', mark);
    log(
      `${this.spec.key}: ${what}: p50 ${percentile(ms, 0.5).toFixed(2)} ms, p99 ${percentile(ms, 0.99).toFixed(2)} ms ` +
        `(${ms.length} queries in ${seconds.toFixed(0)} s)`,
    );
    return { latency: { ...latency(ms), seconds }, found };
  }

  private async idleQueriesAndRecall(): Promise<void> {
    const { latency: idle, found } = await this.idleQueries('idle queries');
    this.result.queries = idle;
    const exactMs: number[] = [];
    let sum = 0;
    let min = 1;
    for (let j = 0; j < this.flatBodies.length; j++) {
      const truth = await this.query(this.flatBodies[j]);
      exactMs.push(truth.ms);
      const want = new Set(truth.ids);
      const hits = (found[j] ?? []).filter((id) => want.has(id)).length;
      const recall = want.size === 0 ? 1 : hits / want.size;
      sum += recall;
      min = Math.min(min, recall);
    }
    this.result.recall = { mean: sum / this.flatBodies.length, min, queries: this.flatBodies.length, exact: latency(exactMs) };
    log(
      `${this.spec.key}: recall@10 ${(sum / this.flatBodies.length).toFixed(4)} (min ${min.toFixed(1)}) against "index": "flat"`,
    );
  }

  /**
   * On the fresh instance: the held-out queries idle again, then while a second client inserts
   * new rows at the paced rate (the target compares the two, on the same process).
   */
  private async queriesUnderInsert(): Promise<void> {
    this.result.freshQueries = (await this.idleQueries('fresh instance, idle queries')).latency;
    const mark = this.gcMark();
    const load = startInsertLoad({
      url: this.url(`/v1/tables/${this.table}/${this.insertPath}`),
      token: this.token,
      data: this.data,
      from: this.spec.rows,
      rate: SETTINGS.loadRate,
      tickMs: SETTINGS.loadTickMs,
    });
    let ms: number[] = [];
    let seconds = 0;
    try {
      await sleep(1000); // the load runs before the first timed query
      ({ ms, seconds } = await queryFor(
        async (body) => this.query(body),
        this.queryBodies,
        SETTINGS.latencySeconds,
        SETTINGS.latencyQueries,
      ));
    } finally {
      const stats = await load.stop();
      this.expectedRows += stats.insertedRows;
      this.result.underInsert = {
        ...latency(ms),
        seconds,
        targetRowsPerSecond: stats.targetRowsPerSecond,
        rowsPerRequest: stats.rowsPerRequest,
        insertedRows: stats.insertedRows,
        insertRowsPerSecond: stats.insertRowsPerSecond,
        insertErrors: stats.insertErrors,
        skippedTicks: stats.skippedTicks,
        firstError: stats.firstError,
      };
    }
    this.gcPhase('underInsert', mark);
    const u = this.result.underInsert;
    log(
      `${this.spec.key}: queries under ${u.insertRowsPerSecond.toFixed(0)} inserted rows/s: p50 ${percentile(ms, 0.5).toFixed(2)} ms, ` +
        `p99 ${percentile(ms, 0.99).toFixed(2)} ms (${ms.length} queries in ${seconds.toFixed(0)} s)` +
        `${u.insertErrors ? `; ${u.insertErrors} insert errors (${u.firstError})` : ''}${u.skippedTicks ? `; ${u.skippedTicks} ticks skipped (20 requests in flight)` : ''}`,
    );
  }

  private async restart(): Promise<void> {
    const old = this.svc;
    if (!old) throw new Error('no service to restart');
    const settle = await this.waitComplete(SETTINGS.indexTimeoutS, () => 0, [], 'index before the restart');
    const rows = settle.last?.rows ?? this.expectedRows;
    const stopped = await old.stop();
    this.svc = undefined;
    log(`${this.spec.key}: vector-api stopped (SIGTERM): ${stopped.how} in ${fmtS(stopped.seconds)}; starting a fresh one`);
    const db = this.result.database;
    let extra: { tables: number; rows: number; seconds: number } | null = null;
    if (SETTINGS.extraTables > 0 && db) extra = await addExtraTables(db.url, this.spec.key);
    const svc = await this.startService(`${this.spec.key}-restart.log`);
    const samples: SampleRow[] = [];
    this.result.restart = {
      stopSeconds: stopped.seconds,
      stopHow: stopped.how,
      rows,
      listenS: null,
      completeS: null,
      timeoutS: SETTINGS.indexTimeoutS,
      rss: NaN,
      bytesPerVector: NaN,
      progress: samples,
      extraTables: extra,
      readyS: null,
    };
    const restart = this.result.restart;
    restart.listenS = await svc.waitListening(SETTINGS.indexTimeoutS);
    log(`${this.spec.key}: fresh vector-api listening after ${fmtS(restart.listenS)}`);
    const readiness = waitReady(svc, SETTINGS.indexTimeoutS).then((at) => {
      restart.readyS = at;
      log(`${this.spec.key}: fresh instance: /health/ready 200 ${at === null ? 'never' : `${fmtS(at)} after spawn`}`);
    });
    const { at } = await this.waitComplete(
      Math.max(1, SETTINGS.indexTimeoutS - restart.listenS),
      () => svc.sinceSpawn(),
      samples,
      'index after restart',
    );
    restart.completeS = at;
    if (at === null)
      throw new Error(`the index of the fresh instance did not complete in ${SETTINGS.indexTimeoutS} s from spawn`);
    log(
      `${this.spec.key}: fresh instance: index complete ${fmtS(at)} after spawn` +
        (extra ? ` (among ${extra.tables.toLocaleString('en-US')} more tables)` : ''),
    );
    await readiness;
    await sleep(2000);
    restart.rss = await svc.steadyRss();
    restart.bytesPerVector = (restart.rss - (this.result.memory?.emptyRss ?? NaN)) / rows;
  }
}

/**
 * `count` small tables written straight into the database (as the API would have: rows,
 * one change-log entry, seq and next_label; floats counted on their project): the crowd a
 * fresh instance must load besides the big table. One project per 100 tables; index kinds
 * of SETTINGS.extraKinds in turn; embeddings from a pool of 256 random unit vectors.
 */
async function addExtraTables(url: string, key: string): Promise<{ tables: number; rows: number; seconds: number }> {
  const t0 = performance.now();
  const { extraTables: count, extraRows: rows, extraDim: dim } = SETTINGS;
  const rand = mulberry(0x5eed);
  const pool = Array.from({ length: 256 }, () => {
    const v = new Float32Array(dim);
    let n = 0;
    for (let k = 0; k < dim; k++) {
      v[k] = rand() * 2 - 1;
      n += v[k] * v[k];
    }
    for (let k = 0; k < dim; k++) v[k] /= Math.sqrt(n) || 1;
    return Buffer.from(v.buffer).toString('hex');
  });
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO vector_projects (id, name, stored_floats)
       SELECT 'bench-extra-' || p, 'bench extra ' || p, 0 FROM generate_series(0, $1::int - 1) p`,
      [Math.ceil(count / 100)],
    );
    await client.query(
      `INSERT INTO vector_tables (id, project_id, name, dimension, index_kind, seq, next_label)
       SELECT gen_random_uuid(), 'bench-extra-' || (g / 100), 'extra_' || g, $2::int,
              ($4::text[])[1 + g % cardinality($4::text[])]::vector_index_kind, 1, $3::int
       FROM generate_series(0, $1::int - 1) g`,
      [count, dim, rows, SETTINGS.extraKinds],
    );
    await client.query(
      `INSERT INTO vector_rows (table_id, id, label, embedding, metadata)
       SELECT t.id, 'x' || r, r, decode(($1::text[])[1 + ((hashtext(t.name)::bigint + r * 7919) & 255)], 'hex'), jsonb_build_object('n', r)
       FROM vector_tables t CROSS JOIN generate_series(0, $2::int - 1) r
       WHERE t.project_id LIKE 'bench-extra-%'`,
      [pool, rows],
    );
    await client.query(
      `INSERT INTO vector_changes (table_id, seq, op, labels)
       SELECT id, 1, 'insert', ARRAY(SELECT generate_series(0, $1::int - 1)) FROM vector_tables WHERE project_id LIKE 'bench-extra-%'`,
      [rows],
    );
    await client.query(
      `UPDATE vector_projects p SET stored_floats = (SELECT count(*) * $1::bigint * $2::bigint FROM vector_tables t WHERE t.project_id = p.id)
       WHERE p.id LIKE 'bench-extra-%'`,
      [rows, dim],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
  const seconds = (performance.now() - t0) / 1000;
  log(`${key}: ${count.toLocaleString('en-US')} extra tables of ${rows} rows × ${dim} written with SQL in ${fmtS(seconds)}`);
  return { tables: count, rows, seconds };
}

/** Seconds since spawn until GET /health/ready answers 200 (null after the timeout). */
async function waitReady(svc: VectorService, timeoutS: number): Promise<number | null> {
  const deadline = performance.now() + timeoutS * 1000;
  while (performance.now() < deadline && svc.alive) {
    try {
      const res = await fetch(`${svc.base}/health/ready`, { signal: AbortSignal.timeout(5_000) });
      await res.text();
      if (res.status === 200) return svc.sinceSpawn();
    } catch {
      // busy or not listening: try again
    }
    await sleep(250);
  }
  return null;
}

// ---------------------------------------------------------------------------------------
// Raw hnswlib-node in-process

function rawBaseline(data: MixtureData, rows: number, queries: number): BaselineResult {
  const { dim } = data;
  const m = 16;
  const efConstruction = 200;
  const ef = 100;
  const base = new Float32Array(rows * dim);
  const normalise = (v: Float32Array): Float32Array => {
    let n = 0;
    for (let k = 0; k < v.length; k++) n += v[k] * v[k];
    n = Math.sqrt(n) || 1;
    for (let k = 0; k < v.length; k++) v[k] /= n;
    return v;
  };
  for (let i = 0; i < rows; i++) normalise(data.row(i, base.subarray(i * dim, (i + 1) * dim)));
  const plain: number[][] = [];
  for (let i = 0; i < rows; i++) plain.push(Array.from(base.subarray(i * dim, (i + 1) * dim)));
  const graph = new HierarchicalNSW('cosine', dim);
  graph.initIndex({ maxElements: rows, m, efConstruction, randomSeed: 100, allowReplaceDeleted: false });
  const t0 = performance.now();
  let lastLog = t0;
  for (let i = 0; i < rows; i++) {
    graph.addPoint(plain[i], i);
    if ((i & 1023) === 0 && performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      log(`raw hnswlib: ${i.toLocaleString('en-US')} of ${rows.toLocaleString('en-US')} points`);
    }
  }
  const buildSeconds = (performance.now() - t0) / 1000;
  plain.length = 0;
  graph.setEf(ef);
  const qs = Array.from({ length: queries }, (_, j) => Array.from(normalise(data.query(j))));
  for (let j = 0; j < SETTINGS.warmupQueries; j++) graph.searchKnn(Array.from(normalise(data.query(queries + j))), SETTINGS.k);
  const ms: number[] = [];
  let recall = 0;
  const scores = new Float32Array(rows);
  for (const q of qs) {
    const t = performance.now();
    const got = graph.searchKnn(q, SETTINGS.k).neighbors;
    ms.push(performance.now() - t);
    for (let i = 0; i < rows; i++) {
      let s = 0;
      const o = i * dim;
      for (let k = 0; k < dim; k++) s += q[k] * base[o + k];
      scores[i] = s;
    }
    const truth = new Set(
      Array.from(scores.keys())
        .sort((a, b) => scores[b] - scores[a])
        .slice(0, SETTINGS.k),
    );
    recall += got.filter((l) => truth.has(l)).length / SETTINGS.k;
  }
  return {
    rows,
    dim,
    m,
    efConstruction,
    ef,
    buildSeconds,
    pointsPerSecond: rows / buildSeconds,
    query: latency(ms),
    recall: recall / qs.length,
  };
}

// ---------------------------------------------------------------------------------------

function gitCommit(): string {
  try {
    const rev = execSync('git rev-parse --short HEAD', { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execSync('git status --porcelain -- apps libs', {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return dirty ? `${rev} (apps/ or libs/ modified)` : rev;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const resultsFile = join(DATA_DIR, 'results.json');
  if (env.BENCH_SCALE_RENDER_ONLY === '1') {
    // Docs again from the last run's results (after a change of the report only).
    await writeScaleReport(JSON.parse(readFileSync(resultsFile, 'utf8')) as ScaleReport);
    log(`docs/benchmarks.md and docs/benchmarks-scale.svg written from ${resultsFile.slice(ROOT.length + 1)}`);
    return;
  }
  const sets = parseSets(env.BENCH_SCALE_SETS ?? DEFAULT_SETS);
  const machine = machineInfo();
  log(
    `machine: ${machine.nproc} cpus, ${machine.cpu}, ${machine.memoryGiB.toFixed(1)} GiB, load ${machine.loadAtStart}; ` +
      `sets ${sets.map((s) => `${s.key} (${s.rows.toLocaleString('en-US')} × ${s.dim})`).join(', ')}`,
  );
  buildIfNeeded(log);
  await cleanOrphans(log);
  const adminKey = randomBytes(32).toString('base64url');

  const report: ScaleReport = {
    date: new Date().toISOString(),
    command: `${quick ? 'BENCH_SCALE_QUICK=1 ' : ''}${env.BENCH_SCALE_SETS ? `BENCH_SCALE_SETS=${env.BENCH_SCALE_SETS} ` : ''}npm run bench:scale`,
    quick,
    note: env.BENCH_SCALE_NOTE ?? null,
    commit: gitCommit(),
    seconds: 0,
    machine,
    settings: SETTINGS,
    baseline: null,
    sets: [],
  };
  const save = (): void => {
    report.seconds = (performance.now() - started) / 1000;
    mkdirSync(DATA_DIR, { recursive: true });
    writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);
  };

  const baseSet = sets.find((s) => s.dim === 128) ?? sets[0];
  if (SETTINGS.baselineRows > 0 && baseSet) {
    const rows = Math.min(SETTINGS.baselineRows, baseSet.rows);
    log(`raw hnswlib-node in-process: ${rows.toLocaleString('en-US')} rows of ${baseSet.key}'s data`);
    try {
      report.baseline = { ...rawBaseline(new MixtureData(baseSet.dim, baseSet.rows), rows, SETTINGS.queries), set: baseSet.key };
      log(
        `raw hnswlib: ${report.baseline.pointsPerSecond.toFixed(0)} points/s, query p50 ${report.baseline.query.p50.toFixed(3)} ms, ` +
          `recall@10 ${report.baseline.recall.toFixed(4)}`,
      );
    } catch (err) {
      log(`raw hnswlib baseline failed: ${String(err)}`);
    }
    collect();
    save();
  }

  for (const spec of sets) {
    log(`=== ${spec.key}: ${spec.rows.toLocaleString('en-US')} × ${spec.dim}, ${spec.index}`);
    const setRun = new SetRun(spec, adminKey);
    report.sets.push(setRun.result);
    try {
      await setRun.run();
    } catch (err) {
      setRun.result.errors.push({ step: 'set', message: err instanceof Error ? err.message : String(err), fatal: true });
      log(`${spec.key} failed: ${String(err)}`);
    }
    save();
  }

  save();
  if (env.BENCH_SCALE_DOCS !== '0') {
    await writeScaleReport(report);
    log('done: docs/benchmarks.md (## Vector engine at scale), docs/benchmarks-scale.svg, .data/bench-scale/results.json');
  } else {
    log('done: .data/bench-scale/results.json (BENCH_SCALE_DOCS=0: docs not written)');
  }
}

runBenchmark('bench:scale', main, log);
