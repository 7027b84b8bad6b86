/**
 * Query latency while rows stream in (issue 32, "query p99 while inserting ≤ 2 × idle p99"):
 * one client queries a table of vector-api while another inserts BENCH_RATE rows/s
 * (default 1,000) of BENCH_DIM (128) dimensions in requests of BENCH_BATCH (100) rows into
 * the same table. Idle and loaded phases each last BENCH_SECONDS (30) in the same process;
 * the ratio p99 loaded ÷ p99 idle is the figure. Also the main thread's longest GC pause
 * of each phase (ingest-gc-observer.cjs, preloaded).
 *
 *   node bench/ts-run.mjs bench/security/vector-ingest-steady.ts [--root <checkout>]
 *   BENCH_INDEX=flat|ivf|hnsw (hnsw) BENCH_PREFILL=20000 BENCH_METADATA_BYTES=200 ...
 *   BENCH_CPU_PROF=<file>: the service's main thread is profiled and the profile written there
 *
 * Bounded: each phase sends at most rate × seconds rows and stops after its time. Needs
 * PostgreSQL and Redis as bench/security/support.ts says; it creates and drops its own database.
 */
import { benchRoot, createDatabase, logCodeUnderTest, logger, machineLine, quantile, type Service, sleep } from './support';
import { describeGc, gcLog, startObservedVectorApi, writeProfile } from './ingest-gc';

const RATE = Number(process.env.BENCH_RATE ?? 1000);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const DIM = Number(process.env.BENCH_DIM ?? 128);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const PREFILL = Number(process.env.BENCH_PREFILL ?? 20_000);
const INDEX = process.env.BENCH_INDEX ?? 'hnsw';
const METADATA_BYTES = Number(process.env.BENCH_METADATA_BYTES ?? 200);
const ROOT = benchRoot();
const ADMIN = 'dev-admin-key';
const log = logger('vector-ingest-steady');

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
}
const vector = (rand: () => number): number[] => Array.from({ length: DIM }, () => Math.round(rand() * 1e6) / 1e6);

async function call(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; ms: number; text: string }> {
  const started = performance.now();
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  const text = await res.text();
  return { status: res.status, ms: performance.now() - started, text };
}

let next = 0;
function rowsBody(rand: () => number, count: number): string {
  const pad = 'x'.repeat(Math.max(0, METADATA_BYTES - 40));
  const rows = Array.from({ length: count }, () => {
    const id = `r${next++}`;
    return { id, embedding: vector(rand), metadata: { n: next % 97, note: pad } };
  });
  return JSON.stringify({ rows });
}

/** Queries one after the other for `seconds`; latencies in ms. */
async function queryFor(base: string, token: string, seconds: number): Promise<number[]> {
  const rand = rng(7);
  const out: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end && out.length < 200_000) {
    const a = await call(base, token, 'POST', '/v1/tables/ingest/query', JSON.stringify({ vector: vector(rand), n: 10 }));
    if (a.status !== 200) throw new Error(`query answered ${a.status}: ${a.text.slice(0, 200)}`);
    out.push(a.ms);
  }
  return out;
}

/** BATCH-row inserts paced to RATE rows/s for `seconds` (no more than that many rows). */
async function insertFor(base: string, token: string, seconds: number): Promise<{ sent: number; ms: number[]; late: number }> {
  const rand = rng(11);
  const perRequestMs = (BATCH / RATE) * 1000;
  const total = Math.floor((RATE * seconds) / BATCH);
  const started = performance.now();
  const ms: number[] = [];
  let late = 0;
  const inFlight = new Set<Promise<void>>();
  for (let i = 0; i < total; i++) {
    const due = started + i * perRequestMs;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    else if (wait < -perRequestMs) late++;
    const body = rowsBody(rand, BATCH);
    const p = call(base, token, 'POST', '/v1/tables/ingest/insert', body).then((a) => {
      if (a.status !== 201) throw new Error(`insert answered ${a.status}: ${a.text.slice(0, 200)}`);
      ms.push(a.ms);
    });
    const tracked = p.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    if (inFlight.size >= 8) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  return { sent: total * BATCH, ms, late };
}

const stats = (xs: readonly number[]): string =>
  `p50 ${quantile(xs, 0.5).toFixed(2)} ms, p99 ${quantile(xs, 0.99).toFixed(2)} ms, max ${Math.max(...xs).toFixed(1)} ms (${xs.length} queries)`;

async function main(): Promise<void> {
  logCodeUnderTest(ROOT, log);
  log(machineLine());
  log(
    `load: ${RATE} rows/s of ${DIM}-d in ${BATCH}-row requests into a ${INDEX} table of ${PREFILL} rows; ${SECONDS} s per phase`,
  );
  const db = await createDatabase('vector_ingest', ROOT);
  const gc = gcLog();
  let service: Service | undefined;
  try {
    service = await startObservedVectorApi(ROOT, db.url, gc);
    const { base } = service;
    const project = await call(base, ADMIN, 'POST', '/admin/v1/projects', JSON.stringify({ name: 'ingest' }));
    if (project.status !== 201) throw new Error(`project: ${project.status}`);
    const id = (JSON.parse(project.text) as { id: string }).id;
    const tok = await call(base, ADMIN, 'POST', `/admin/v1/projects/${id}/tokens`, JSON.stringify({ name: 'ingest-token' }));
    const token = (JSON.parse(tok.text) as { token: string }).token;
    const table = await call(base, token, 'POST', '/v1/tables', JSON.stringify({ name: 'ingest', dimension: DIM, index: INDEX }));
    if (table.status !== 201) throw new Error(`table: ${table.status} ${table.text}`);
    const rand = rng(3);
    const prefillStart = performance.now();
    for (let i = 0; i < PREFILL; i += 500) {
      const a = await call(base, token, 'POST', '/v1/tables/ingest/insert', rowsBody(rand, Math.min(500, PREFILL - i)));
      if (a.status !== 201) throw new Error(`prefill: ${a.status} ${a.text.slice(0, 200)}`);
    }
    // the index catches up with the prefill before the idle phase
    for (let i = 0; i < 600; i++) {
      const t = JSON.parse((await call(base, token, 'GET', '/v1/tables/ingest')).text) as {
        index_status?: { state?: string; complete?: boolean };
      };
      const s = t.index_status;
      if (!s || s.complete === true || s.state === 'ready' || s.state === 'exact') break;
      await sleep(500);
    }
    log(`prefill: ${PREFILL} rows in ${((performance.now() - prefillStart) / 1000).toFixed(1)} s`);
    await queryFor(base, token, 3); // warm-up

    const idleFrom = Date.now();
    const idle = await queryFor(base, token, SECONDS);
    const idleGc = gc.between(idleFrom, Date.now());
    log(`idle: ${stats(idle)}; ${describeGc(idleGc)}`);

    const loadFrom = Date.now();
    const inserting = insertFor(base, token, SECONDS);
    const loaded = await queryFor(base, token, SECONDS);
    const ins = await inserting;
    const loadGc = gc.between(loadFrom, Date.now());
    log(
      `inserting: ${stats(loaded)}; ${describeGc(loadGc)}; ${ins.sent} rows sent, insert p50 ${quantile(ins.ms, 0.5).toFixed(1)} ms, p99 ${quantile(ins.ms, 0.99).toFixed(1)} ms, ${ins.late} requests sent late`,
    );
    const ratio = quantile(loaded, 0.99) / quantile(idle, 0.99);
    process.stdout.write(
      `\n| phase | p50 | p99 | max | p99 ÷ idle p99 | longest main-thread GC |\n|---|---|---|---|---|---|\n` +
        `| idle | ${quantile(idle, 0.5).toFixed(2)} ms | ${quantile(idle, 0.99).toFixed(2)} ms | ${Math.max(...idle).toFixed(1)} ms | 1.0 | ${idleGc.maxMs.toFixed(1)} ms |\n` +
        `| ${RATE} rows/s | ${quantile(loaded, 0.5).toFixed(2)} ms | ${quantile(loaded, 0.99).toFixed(2)} ms | ${Math.max(...loaded).toFixed(1)} ms | ${ratio.toFixed(1)} | ${loadGc.maxMs.toFixed(1)} ms |\n`,
    );
  } finally {
    if (service) await writeProfile(service.pid);
    await service?.stop();
    await db.drop();
    gc.remove();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[vector-ingest-steady] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
