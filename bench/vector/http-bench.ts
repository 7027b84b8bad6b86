/**
 * HTTP part of the vector benchmark: the real vector-api (child process, scratch database
 * migrated with libs/platform's migrate(), API token from POST /admin/v1/tokens) against two
 * bare Fastify routes on the same rows (bare-server.ts): raw hnswlib-node searches (the
 * issue-32 targets' baseline) and the engine's own search. For 1, 8 and 32 connections the
 * three servers take turns in the same run (http-load.ts, µs latencies): q/s, p50, p99 and
 * the ratios the targets use (raw p50 ÷ vector-api p50 at 1 connection, vector-api q/s ÷ raw
 * q/s at 8).
 *
 * Settings: BENCH_HTTP_SECONDS (each measured run; default: bench:vector's 8, quick 3),
 * BENCH_HTTP_ROUNDS (3), BENCH_HTTP_CONNECTIONS (1,8,32), BENCH_VECTOR_HTTP_ROWS (20,000).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE_DIR, type Dataset } from './datasets';
import { httpLoad, type LoadResult as HttpLoadResult } from './http-load';
import { stopChild } from '../http/platform';
import { startScratchVectorApi } from './scratch-vector-api';

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly latencyP50: number;
  readonly latencyP99: number;
  /** Connection errors, timeouts and non-2xx responses. */
  readonly errors: number;
}

/** The servers every concurrency level compares, in the same run, interleaved. */
export const SERIES = {
  api: 'vector-api POST /v1/tables/{t}/query',
  raw: 'bare Fastify route, raw hnswlib-node searchKnn',
  engine: 'bare Fastify route, VectorCollection.query (the engine)',
} as const;
export type Series = keyof typeof SERIES;

export interface ConcurrencyLevel {
  readonly connections: number;
  /** Per series: the median over the rounds of q/s, p50 and p99 (each taken apart). */
  readonly median: Record<Series, LoadResult>;
  /** Per series, every round (in the order run). */
  readonly rounds: Record<Series, LoadResult[]>;
  /** Median over the rounds of raw p50 ÷ api p50 (the 1-connection target: ≥ 0.8). */
  readonly p50RatioVsRaw: number;
  /** Median over the rounds of api q/s ÷ raw q/s (the 8-connection target: ≥ 0.6, stretch 0.8). */
  readonly qpsRatioVsRaw: number;
  /** The same against the engine route. */
  readonly qpsRatioVsEngine: number;
}

export interface ConcurrencyResult {
  readonly description: string;
  readonly seconds: number;
  readonly rounds: number;
  readonly ef: number;
  readonly levels: ConcurrencyLevel[];
}

export interface HttpResult {
  readonly description: string;
  readonly rows: number;
  /** vector-api at 8 connections (median of the rounds). */
  readonly api: LoadResult;
  /** The bare route doing the engine's search (VectorCollection.query), 8 connections. */
  readonly bare: LoadResult;
  /** The bare route doing raw hnswlib-node searches, 8 connections. */
  readonly raw?: LoadResult;
  /** vector-api GET /health/live: the framework alone (no auth, no engine). */
  readonly apiHealth: LoadResult;
  /** vector-api GET /v1/tables/:table: auth and rate limit, no engine. */
  readonly apiTableGet: LoadResult;
  /** Queries/s of VectorCollection.query alone in the bare server's process. */
  readonly engineQps: number;
  /** Queries/s of raw hnswlib-node searchKnn alone in the bare server's process (same ef). */
  readonly rawQps?: number;
  /** api ÷ bare requests per second. */
  readonly ratio: number;
  /** q/s and latency at 1, 8 and 32 connections, against both bare routes. */
  readonly concurrency?: ConcurrencyResult;
}

const ROOT = join(__dirname, '..', '..');
const TS_RUN = join(__dirname, '..', 'ts-run.mjs');

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function http(method: string, url: string, body: unknown, token?: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: keep the text for the error message
  }
  return { status: res.status, json };
}

export async function expectOk(method: string, url: string, body: unknown, token?: string): Promise<unknown> {
  const res = await http(method, url, body, token);
  if (res.status >= 300) throw new Error(`${method} ${url} → ${res.status}: ${JSON.stringify(res.json).slice(0, 300)}`);
  return res.json;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].filter(Number.isFinite).sort((x, y) => x - y);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function toLoad(r: HttpLoadResult): LoadResult {
  return { requestsPerSecond: r.requestsPerSecond, latencyP50: r.latencyP50, latencyP99: r.latencyP99, errors: r.errors };
}

/**
 * Creates the hnsw table `bench` with the dataset's first `rows` rows (batches of 1000,
 * through /v1) and waits until its index holds them all.
 */
export async function fillHnswTable(base: string, token: string, ds: Dataset, rows: number): Promise<void> {
  const dim = ds.dim;
  await expectOk('POST', `${base}/v1/tables`, { name: 'bench', dimension: dim, index: 'hnsw' }, token);
  for (let start = 0; start < rows; start += 1000) {
    const batch = [];
    for (let r = start; r < Math.min(rows, start + 1000); r++)
      batch.push({ id: `v${r}`, embedding: Array.from(ds.base.subarray(r * dim, (r + 1) * dim)) });
    await expectOk('POST', `${base}/v1/tables/bench/insert`, { rows: batch }, token);
  }
  for (let i = 0; ; i++) {
    const table = (await expectOk('GET', `${base}/v1/tables/bench`, undefined, token)) as {
      rows: number;
      index_status: { state: string; details: Record<string, number> };
    };
    if (table.rows === rows && table.index_status.state === 'ready' && (table.index_status.details.pending ?? 0) === 0) return;
    if (i > 1200) throw new Error(`index not ready after 240 s: ${JSON.stringify(table.index_status)}`);
    await sleep(200);
  }
}

/** The median of each figure over the rounds (errors summed). */
export function medianLoad(runs: readonly LoadResult[]): LoadResult {
  return {
    requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
    latencyP50: median(runs.map((r) => r.latencyP50)),
    latencyP99: median(runs.map((r) => r.latencyP99)),
    errors: runs.reduce((a, r) => a + r.errors, 0),
  };
}

export const envNumber = (name: string, fallback: number): number => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a number > 0, not ${v}`);
  return n;
};

export interface HttpBenchOptions {
  /** Seconds of each measured run (BENCH_HTTP_SECONDS overrides). */
  readonly seconds: number;
  readonly log: (msg: string) => void;
}

/** ef of raw hnswlib-node in the bare route: vector-api's default (max(n, efSearch)). */
const DEFAULT_EF = 100;

export async function benchHttp(ds: Dataset, options: HttpBenchOptions): Promise<HttpResult> {
  const opts = {
    ...options,
    seconds: envNumber('BENCH_HTTP_SECONDS', options.seconds),
    rounds: Math.round(envNumber('BENCH_HTTP_ROUNDS', 3)),
    connections: (process.env.BENCH_HTTP_CONNECTIONS ?? '1,8,32').split(',').map((c) => {
      const n = Number(c.trim());
      if (!Number.isInteger(n) || n < 1) throw new Error(`BENCH_HTTP_CONNECTIONS: "${c}" is not a connection count`);
      return n;
    }),
  };
  const rows = Math.min(ds.rows, Number(process.env.BENCH_VECTOR_HTTP_ROWS ?? 20_000));
  const dim = ds.dim;

  mkdirSync(CACHE_DIR, { recursive: true });
  const rowsPath = join(CACHE_DIR, 'http-rows.f32');
  const queriesPath = join(CACHE_DIR, 'http-queries.f32');
  const queryCount = Math.min(64, ds.queryCount);
  writeFileSync(rowsPath, new Uint8Array(ds.base.buffer, ds.base.byteOffset, rows * dim * 4));
  writeFileSync(queriesPath, new Uint8Array(ds.queries.buffer, ds.queries.byteOffset, queryCount * dim * 4));
  const bodies = Array.from({ length: queryCount }, (_, i) =>
    JSON.stringify({ vector: Array.from(ds.queries.subarray(i * dim, (i + 1) * dim)), n: 10 }),
  );

  let bare: ChildProcess | undefined;
  const api = await startScratchVectorApi({ prefix: 'bench_vector' });
  try {
    opts.log(`HTTP: scratch database ${api.dbName} migrated`);
    const { base, port } = api;
    opts.log(`HTTP: vector-api listening on ${port}`);

    const admin = 'dev-admin-key';
    const tokenRes = (await expectOk('POST', `${base}/admin/v1/tokens`, { name: 'bench-vector' }, admin)) as { token: string };
    const token = tokenRes.token;
    await fillHnswTable(base, token, ds, rows);
    opts.log(`HTTP: ${rows} rows inserted, the hnsw index ready`);
    const probe = await http('POST', `${base}/v1/tables/bench/query`, JSON.parse(bodies[0]), token);
    if (probe.status !== 200) throw new Error(`query → ${probe.status}: ${JSON.stringify(probe.json).slice(0, 300)}`);

    bare = fork(TS_RUN, [join(__dirname, 'bare-server.ts'), rowsPath, String(dim), queriesPath], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const bareInfo = await new Promise<{ port: number; engineQps: number; rawQps: number }>((resolve, reject) => {
      bare?.once('message', (m) => resolve(m as { port: number; engineQps: number; rawQps: number }));
      bare?.once('exit', (code) => reject(new Error(`bare server exited with code ${code}`)));
    });
    opts.log(
      `HTTP: bare Fastify routes on ${bareInfo.port}; in-process: engine ${bareInfo.engineQps.toFixed(0)} q/s, ` +
        `raw hnswlib-node ${bareInfo.rawQps.toFixed(0)} q/s`,
    );

    const bareBase = `http://127.0.0.1:${bareInfo.port}`;
    const auth = { authorization: `Bearer ${token}` };
    const targets: Record<Series, { url: string; headers: Record<string, string> }> = {
      api: { url: `${base}/v1/tables/bench/query`, headers: auth },
      raw: { url: `${bareBase}/raw`, headers: {} },
      engine: { url: `${bareBase}/query`, headers: {} },
    };
    const seriesKeys = Object.keys(SERIES) as Series[];
    const levels: ConcurrencyLevel[] = [];
    for (const connections of opts.connections) {
      // Warm-up of each server at this concurrency (JIT, sockets), then rounds in which the
      // servers take turns, the first one rotating, so a burst of load from other processes
      // does not land on one side only.
      for (const key of seriesKeys) await httpLoad({ ...targets[key], bodies, connections, seconds: Math.min(1, opts.seconds) });
      const rounds = Object.fromEntries(seriesKeys.map((k) => [k, [] as LoadResult[]])) as Record<Series, LoadResult[]>;
      const p50Ratios: number[] = [];
      const qpsRatios: number[] = [];
      const engineRatios: number[] = [];
      for (let round = 0; round < opts.rounds; round++) {
        const order = seriesKeys.map((_, i) => seriesKeys[(i + round) % seriesKeys.length]);
        const got = {} as Record<Series, LoadResult>;
        for (const key of order) {
          got[key] = toLoad(await httpLoad({ ...targets[key], bodies, connections, seconds: opts.seconds }));
          rounds[key].push(got[key]);
        }
        p50Ratios.push(got.raw.latencyP50 / got.api.latencyP50);
        qpsRatios.push(got.api.requestsPerSecond / got.raw.requestsPerSecond);
        engineRatios.push(got.api.requestsPerSecond / got.engine.requestsPerSecond);
      }
      const level: ConcurrencyLevel = {
        connections,
        median: Object.fromEntries(seriesKeys.map((k) => [k, medianLoad(rounds[k])])) as Record<Series, LoadResult>,
        rounds,
        p50RatioVsRaw: median(p50Ratios),
        qpsRatioVsRaw: median(qpsRatios),
        qpsRatioVsEngine: median(engineRatios),
      };
      levels.push(level);
      const m = level.median;
      opts.log(
        `HTTP ${connections} conn: vector-api ${m.api.requestsPerSecond.toFixed(0)} q/s p50 ${m.api.latencyP50.toFixed(2)} ms p99 ${m.api.latencyP99.toFixed(2)} ms; ` +
          `raw route ${m.raw.requestsPerSecond.toFixed(0)} q/s p50 ${m.raw.latencyP50.toFixed(2)} ms; ` +
          `engine route ${m.engine.requestsPerSecond.toFixed(0)} q/s p50 ${m.engine.latencyP50.toFixed(2)} ms; ` +
          `raw p50 ÷ api p50 ${level.p50RatioVsRaw.toFixed(2)}, api ÷ raw q/s ${level.qpsRatioVsRaw.toFixed(2)}`,
      );
    }
    const short = Math.max(1, Math.min(opts.seconds, 3));
    const apiHealth = toLoad(await httpLoad({ url: `${base}/health/live`, connections: 8, seconds: short }));
    const apiTableGet = toLoad(await httpLoad({ url: `${base}/v1/tables/bench`, headers: auth, connections: 8, seconds: short }));
    opts.log(
      `HTTP: vector-api GET /health/live ${apiHealth.requestsPerSecond.toFixed(0)} req/s, GET /v1/tables/bench ${apiTableGet.requestsPerSecond.toFixed(0)} req/s`,
    );
    const at8 = levels.find((l) => l.connections === 8) ?? levels[levels.length - 1];
    const description =
      `${rows.toLocaleString('en-US')} rows of ${ds.name} in an hnsw table (same rows, ids and default index options in every server), ` +
      `${queryCount} different query bodies (n = 10), a closed-loop client (bench/vector/http-load.ts, keep-alive sockets, µs timings) ` +
      `in the benchmark's process; the servers in child processes. Per connection count, ${opts.rounds} rounds of ${opts.seconds} s in which ` +
      `the servers take turns (after a warm-up); medians of the rounds. vector-api runs with its auth (token, Redis rate limit), ` +
      `validation and logging at level error; the bare routes have none of these. Raw hnswlib-node: ef = max(n, ${DEFAULT_EF}).`;
    return {
      description,
      rows,
      api: at8.median.api,
      bare: at8.median.engine,
      raw: at8.median.raw,
      apiHealth,
      apiTableGet,
      engineQps: bareInfo.engineQps,
      rawQps: bareInfo.rawQps,
      ratio: at8.qpsRatioVsEngine,
      concurrency: { description, seconds: opts.seconds, rounds: opts.rounds, ef: DEFAULT_EF, levels },
    };
  } finally {
    await api.stop();
    await stopChild(bare);
  }
}
