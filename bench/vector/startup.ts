/**
 * `node bench/ts-run.mjs bench/vector/startup.ts`: how soon a fresh vector-api listens and is
 * ready with thousands of tables in its database (issue 32, point 7; target: listening
 * ≤ 2 s whatever the data). Needs the built service (`npm run build`).
 *
 * A scratch database, migrated, gets BENCH_TABLES (4,000) small tables straight through SQL
 * (BENCH_ROWS rows of BENCH_DIM floats each, a tenth of them with a last query time), then
 * the built service is spawned once per VECTOR_LOAD_CONCURRENCY in BENCH_CONCURRENCY
 * ("1,4"): time from spawn to /health/live 200 (listening) and to /health/ready 200 (every
 * table loaded), with the readiness progress sampled meanwhile. Baseline in the same run: the
 * same service on an empty database (its time to listen and be ready is the floor). The
 * machine is shared: ratios against the baseline mean more than the absolute figures.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { migrate } from '@app/platform';
import { Client } from 'pg';
import { freePort } from '../http/platform';

const ROOT = join(__dirname, '..', '..');
const MAIN_JS = join(ROOT, 'dist', 'apps', 'vector-api', 'src', 'main.js');
const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TABLES = Number(process.env.BENCH_TABLES ?? 4000);
const ROWS = Number(process.env.BENCH_ROWS ?? 20);
const DIM = Number(process.env.BENCH_DIM ?? 32);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '1,4').split(',').map(Number);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 600) * 1000;

const log = (line: string): void => void process.stdout.write(`${line}\n`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function sql(url: string, text: string): Promise<void> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

async function scratchDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `bench_startup_${label}_${randomBytes(3).toString('hex')}`;
  await sql(PG_ADMIN_URL, `CREATE DATABASE "${name}"`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  await migrate(url.toString(), { dir: join(ROOT, 'prisma', 'migrations'), log: () => undefined });
  return { url: url.toString(), drop: () => sql(PG_ADMIN_URL, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/** TABLES tables of ROWS rows each, straight through SQL (the API would take minutes to create them). */
async function fill(url: string): Promise<void> {
  // 1.0f little-endian, DIM times: the values do not matter to a load.
  const embedding = `decode(repeat('0000803f', ${DIM}), 'hex')`;
  await sql(
    url,
    `INSERT INTO vector_tables (id, project_id, name, dimension, index_kind, metric, seq, next_label, last_queried_at)
     SELECT gen_random_uuid(), 'proj_default', 'bench_' || lpad(i::text, 5, '0'), ${DIM}, 'flat', 'cosine', 0, ${ROWS},
            CASE WHEN i % 10 = 0 THEN now() - i * interval '1 second' END
     FROM generate_series(1, ${TABLES}) i`,
  );
  await sql(
    url,
    `INSERT INTO vector_rows (table_id, id, label, embedding, metadata)
     SELECT t.id, 'r' || l, l, ${embedding}, jsonb_build_object('l', l)
     FROM vector_tables t, generate_series(0, ${ROWS - 1}) l`,
  );
  await sql(url, 'ANALYZE');
}

interface Start {
  readonly listenMs: number;
  readonly readyMs: number;
  readonly samples: Array<{ ms: number; loaded: number; total: number }>;
}

async function startOnce(url: string, concurrency: number): Promise<Start> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [MAIN_JS], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      VECTOR_PUBLIC_URL: 'https://bench.example.com',
      ADMIN_API_KEY: randomBytes(16).toString('hex'),
      DATABASE_URL: url,
      REDIS_URL,
      QUEUE_PREFIX: `bench-startup-${randomBytes(3).toString('hex')}`,
      VECTOR_PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      VECTOR_LOAD_CONCURRENCY: String(concurrency),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const spawned = performance.now();
  const base = `http://127.0.0.1:${port}`;
  const samples: Start['samples'] = [];
  let listenMs = -1;
  try {
    while (listenMs < 0) {
      if (child.exitCode !== null) throw new Error(`vector-api exited (${child.exitCode}) before listening`);
      if (performance.now() - spawned > TIMEOUT_MS) throw new Error('vector-api did not listen in time');
      try {
        if ((await fetch(`${base}/health/live`)).ok) listenMs = performance.now() - spawned;
      } catch {
        await sleep(10);
      }
    }
    for (;;) {
      if (child.exitCode !== null) throw new Error(`vector-api exited (${child.exitCode}) while loading`);
      if (performance.now() - spawned > TIMEOUT_MS) throw new Error('vector-api was not ready in time');
      const res = await fetch(`${base}/health/ready`);
      const ms = performance.now() - spawned;
      if (res.ok) return { listenMs, readyMs: ms, samples };
      const body = (await res.json()) as { error?: { loading?: { tables_loaded: number; tables_total: number } } };
      const loading = body.error?.loading;
      if (loading) samples.push({ ms, loaded: loading.tables_loaded, total: loading.tables_total });
      await sleep(100);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(undefined)));
  }
}

function describe(label: string, s: Start): string {
  const mid = s.samples.find((p) => p.total > 0 && p.loaded >= p.total / 2);
  return `${label}: listening ${(s.listenMs / 1000).toFixed(2)} s, ready ${(s.readyMs / 1000).toFixed(2)} s${
    mid ? ` (half the tables at ${(mid.ms / 1000).toFixed(2)} s)` : ''
  }, ${s.samples.length} readiness 503s with progress`;
}

async function main(): Promise<void> {
  if (!existsSync(MAIN_JS)) throw new Error(`${MAIN_JS} is missing: run npm run build first`);
  log(
    `machine: load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (shared machine: absolute figures are noisy)`,
  );
  const empty = await scratchDatabase('empty');
  const full = await scratchDatabase('full');
  try {
    const filled = performance.now();
    await fill(full.url);
    log(
      `database: ${TABLES} tables × ${ROWS} rows × ${DIM} floats written through SQL in ${((performance.now() - filled) / 1000).toFixed(1)} s`,
    );
    const baseline = await startOnce(empty.url, 4);
    log(describe('baseline, empty database', baseline));
    for (const concurrency of CONCURRENCY) {
      const s = await startOnce(full.url, concurrency);
      log(
        `${describe(`${TABLES} tables, VECTOR_LOAD_CONCURRENCY=${concurrency}`, s)}; ` +
          `listening ${(s.listenMs / baseline.listenMs).toFixed(2)} × the empty database's, ` +
          `${((TABLES * 1000) / (s.readyMs - s.listenMs)).toFixed(0)} tables/s loaded`,
      );
    }
    log(
      `load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await empty.drop();
    await full.drop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
