/**
 * HTTP part of the vector benchmark: the real vector-api (child process, scratch database
 * migrated with libs/platform's migrate(), API token from POST /admin/v1/tokens) against a
 * bare Fastify route doing the same engine search (bare-server.ts), both loaded with the
 * same rows into an hnsw table and driven by autocannon with the same query bodies.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { migrate } from '@app/platform';
import { CACHE_DIR, type Dataset } from './datasets';
import { freePort, stopChild } from '../http/platform';
import { queryAt } from '../../test/support/database';

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly latencyP50: number;
  readonly latencyP99: number;
  /** Connection errors, timeouts and non-2xx responses. */
  readonly errors: number;
}

export interface HttpResult {
  readonly description: string;
  readonly rows: number;
  readonly api: LoadResult;
  readonly bare: LoadResult;
  /** vector-api GET /health/live: the framework alone (no auth, no engine). */
  readonly apiHealth: LoadResult;
  /** vector-api GET /v1/tables/:table: auth and rate limit, no engine. */
  readonly apiTableGet: LoadResult;
  /** Queries/s of VectorCollection.query alone in the bare server's process. */
  readonly engineQps: number;
  /** api ÷ bare requests per second. */
  readonly ratio: number;
}

interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(__filename)('autocannon') as Autocannon;

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

async function expectOk(method: string, url: string, body: unknown, token?: string): Promise<unknown> {
  const res = await http(method, url, body, token);
  if (res.status >= 300) throw new Error(`${method} ${url} → ${res.status}: ${JSON.stringify(res.json).slice(0, 300)}`);
  return res.json;
}

async function load(url: string, bodies: string[] | null, headers: Record<string, string>, seconds: number): Promise<LoadResult> {
  const options = {
    url,
    method: bodies ? 'POST' : 'GET',
    headers: bodies ? { 'content-type': 'application/json', ...headers } : headers,
    ...(bodies ? { requests: bodies.map((body) => ({ method: 'POST', body })) } : {}),
    connections: 8,
    pipelining: 1,
  };
  await autocannon({ ...options, duration: 1 }); // warm-up
  const r = await autocannon({ ...options, duration: seconds });
  return {
    requestsPerSecond: r.requests.average,
    latencyP50: r.latency.p50,
    latencyP99: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
  };
}

export async function benchHttp(ds: Dataset, opts: { seconds: number; log: (msg: string) => void }): Promise<HttpResult> {
  const rows = Math.min(ds.rows, Number(process.env.BENCH_VECTOR_HTTP_ROWS ?? 20_000));
  const dim = ds.dim;
  const adminUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const dbName = `bench_vector_${randomBytes(4).toString('hex')}`;
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;

  mkdirSync(CACHE_DIR, { recursive: true });
  const rowsPath = join(CACHE_DIR, 'http-rows.f32');
  const queriesPath = join(CACHE_DIR, 'http-queries.f32');
  const queryCount = Math.min(64, ds.queryCount);
  writeFileSync(rowsPath, new Uint8Array(ds.base.buffer, ds.base.byteOffset, rows * dim * 4));
  writeFileSync(queriesPath, new Uint8Array(ds.queries.buffer, ds.queries.byteOffset, queryCount * dim * 4));
  const bodies = Array.from({ length: queryCount }, (_, i) =>
    JSON.stringify({ vector: Array.from(ds.queries.subarray(i * dim, (i + 1) * dim)), n: 10 }),
  );

  let api: ChildProcess | undefined;
  let bare: ChildProcess | undefined;
  await queryAt(adminUrl, `CREATE DATABASE ${dbName}`);
  try {
    await migrate(dbUrl.toString());
    opts.log(`HTTP: scratch database ${dbName} migrated`);

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    api = fork(TS_RUN, [join(ROOT, 'apps/vector-api/src/main.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'development',
        DATABASE_URL: dbUrl.toString(),
        REDIS_URL: redisUrl,
        VECTOR_PORT: String(port),
        LOG_LEVEL: 'error',
        VECTOR_RATE_LIMIT_PER_MINUTE: '100000000',
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const exited = new Promise<never>((_, reject) =>
      api?.once('exit', (code) => reject(new Error(`vector-api exited with code ${code}`))),
    );
    exited.catch(() => undefined);
    const ready = (async () => {
      for (let i = 0; i < 600; i++) {
        try {
          if ((await fetch(`${base}/health/live`)).ok) return;
        } catch {
          // not listening yet
        }
        await sleep(100);
      }
      throw new Error('vector-api did not start within 60 s');
    })();
    await Promise.race([ready, exited]);
    opts.log(`HTTP: vector-api listening on ${port}`);

    const admin = 'dev-admin-key';
    const tokenRes = (await expectOk('POST', `${base}/admin/v1/tokens`, { name: 'bench-vector' }, admin)) as { token: string };
    const token = tokenRes.token;
    await expectOk('POST', `${base}/v1/tables`, { name: 'bench', dimension: dim, index: 'hnsw' }, token);
    for (let start = 0; start < rows; start += 1000) {
      const batch = [];
      for (let r = start; r < Math.min(rows, start + 1000); r++)
        batch.push({ id: `v${r}`, embedding: Array.from(ds.base.subarray(r * dim, (r + 1) * dim)) });
      await expectOk('POST', `${base}/v1/tables/bench/insert`, { rows: batch }, token);
    }
    opts.log(`HTTP: ${rows} rows inserted; waiting for the hnsw index`);
    for (let i = 0; ; i++) {
      const table = (await expectOk('GET', `${base}/v1/tables/bench`, undefined, token)) as {
        rows: number;
        index_status: { state: string; details: Record<string, number> };
      };
      if (table.rows === rows && table.index_status.state === 'ready' && (table.index_status.details.pending ?? 0) === 0) break;
      if (i > 1200) throw new Error(`index not ready after 240 s: ${JSON.stringify(table.index_status)}`);
      await sleep(200);
    }
    const probe = await http('POST', `${base}/v1/tables/bench/query`, JSON.parse(bodies[0]), token);
    if (probe.status !== 200) throw new Error(`query → ${probe.status}: ${JSON.stringify(probe.json).slice(0, 300)}`);

    bare = fork(TS_RUN, [join(__dirname, 'bare-server.ts'), rowsPath, String(dim), queriesPath], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const bareInfo = await new Promise<{ port: number; engineQps: number }>((resolve, reject) => {
      bare?.once('message', (m) => resolve(m as { port: number; engineQps: number }));
      bare?.once('exit', (code) => reject(new Error(`bare server exited with code ${code}`)));
    });
    opts.log(`HTTP: bare Fastify route on ${bareInfo.port}; engine alone ${bareInfo.engineQps.toFixed(0)} q/s`);

    const apiLoad = await load(`${base}/v1/tables/bench/query`, bodies, { authorization: `Bearer ${token}` }, opts.seconds);
    opts.log(`HTTP: vector-api ${apiLoad.requestsPerSecond.toFixed(0)} req/s`);
    const bareLoad = await load(`http://127.0.0.1:${bareInfo.port}/query`, bodies, {}, opts.seconds);
    opts.log(`HTTP: bare route ${bareLoad.requestsPerSecond.toFixed(0)} req/s`);
    const apiHealth = await load(`${base}/health/live`, null, {}, Math.max(2, opts.seconds / 2));
    const apiTableGet = await load(
      `${base}/v1/tables/bench`,
      null,
      { authorization: `Bearer ${token}` },
      Math.max(2, opts.seconds / 2),
    );
    opts.log(
      `HTTP: vector-api GET /health/live ${apiHealth.requestsPerSecond.toFixed(0)} req/s, GET /v1/tables/bench ${apiTableGet.requestsPerSecond.toFixed(0)} req/s`,
    );
    return {
      description:
        `${rows.toLocaleString('en-US')} rows of ${ds.name} in an hnsw table (same rows, ids and default index options in both servers), ` +
        `${queryCount} different query bodies (n = 10), autocannon with 8 connections for ${opts.seconds} s after a 1 s warm-up, ` +
        `the server in a child process (one core each for server and load generator). vector-api runs with its auth (token, Redis rate limit), ` +
        `validation and logging at level error.`,
      rows,
      api: apiLoad,
      bare: bareLoad,
      apiHealth,
      apiTableGet,
      engineQps: bareInfo.engineQps,
      ratio: apiLoad.requestsPerSecond / bareLoad.requestsPerSecond,
    };
  } finally {
    await stopChild(api);
    await stopChild(bare);
    await queryAt(adminUrl, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  }
}
