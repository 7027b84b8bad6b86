/**
 * One vector project against the shared vector-api (issue 31): another project's query
 * latency while the worst allowed insert, query and batch run, and vector-api's memory
 * after the worst allowed metadata load, against one vector-api process on loopback.
 *
 *   node bench/ts-run.mjs bench/security/vector-stall.ts                 (this checkout)
 *   node bench/ts-run.mjs bench/security/vector-stall.ts --root <dir>    (another checkout, e.g. the code before the fix)
 *   BENCH_LOAD_INSERTS=2 BENCH_TAGS=2400 BENCH_ROUNDS=3 ... to change the load
 *
 * "Worst allowed" follows the limits of the platform contract's third round: 40 KB of
 * metadata per row (VECTOR_METADATA_MAX_BYTES), 1000 rows per insert (≈ 40 MB bodies,
 * under the 64 MiB VECTOR_INSERT_BODY_LIMIT_BYTES), answers up to 32 MiB
 * (VECTOR_MAX_RESPONSE_BYTES): a query of n = 780 and a batch of 7 × n = 110 over rows of
 * 40 KB. The code before the fix has none of these limits; the same requests are sent to it.
 *
 * Phases, each while the other project (the victim: 2,000 rows of 64 dimensions, n = 10)
 * queries sequentially and times every answer:
 *   idle; metadata load (BENCH_LOAD_INSERTS inserts of 500 rows, each row BENCH_TAGS
 *   distinct tags, ≈ 40 KB); 3 concurrent worst inserts (1000 rows of 40 KB `content`, unique
 *   on every row); 2 looping worst queries; 2 looping worst batches.
 * Memory: vector-api's RSS (/proc) and V8 heap (/metrics) after the metadata load.
 * Bounded loops: every phase sends a fixed number of requests. The service runs from the
 * sources of `--root` (its bench/ts-run.mjs, no build) with NODE_ENV=development and the
 * default limits. Needs PostgreSQL (DATABASE_URL or postgresql://postgres@127.0.0.1:5432/postgres)
 * and Redis (REDIS_URL or redis://127.0.0.1:6379); it creates and drops its own database.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { benchRoot, createDatabase, logCodeUnderTest, logger, quantile, type Service, sleep } from './support';
import { describeGc, gcLog, startObservedVectorApi, writeProfile, type GcSummary } from './ingest-gc';

const LOAD_INSERTS = Number(process.env.BENCH_LOAD_INSERTS ?? 2);
const TAGS = Number(process.env.BENCH_TAGS ?? 2400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const IDLE_QUERIES = 300;
const DIM = 64;
const METADATA_BYTES = 40_000;
const ROOT = benchRoot();
const ADMIN = 'dev-admin-key';

const log = logger('vector-stall');

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
}
const vector = (rand: () => number): number[] => Array.from({ length: DIM }, () => Math.round(rand() * 1e4) / 1e4);

interface Answer {
  readonly status: number;
  readonly ms: number;
  readonly bytes: number;
}

async function call(base: string, token: string, method: string, path: string, body?: string): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  const bytes = (await res.arrayBuffer()).byteLength;
  return { status: res.status, ms: performance.now() - started, bytes };
}

/** The victim's queries, one after the other, until `until` settles (at least `min` of them). */
async function probe(base: string, token: string, until: Promise<unknown>, min = 0): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true)).catch(() => undefined);
  const rand = rng(99);
  const out: number[] = [];
  while (!done || out.length < min) {
    const a = await call(base, token, 'POST', '/v1/tables/small/query', JSON.stringify({ vector: vector(rand), n: 10 }));
    if (a.status !== 200) throw new Error(`victim query answered ${a.status}`);
    out.push(a.ms);
    if (out.length > 20_000) break; // bounded
  }
  return out;
}

const stats = (xs: readonly number[]): string =>
  `p50 ${quantile(xs, 0.5).toFixed(1)} ms, p99 ${quantile(xs, 0.99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(0)} ms (${xs.length} queries)`;

async function heapMb(base: string): Promise<number> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
  const m = /^\w*nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)$/m.exec(await res.text());
  return m ? Number(m[1]) / 2 ** 20 : NaN;
}

/** 1000 rows (or `count`) of ≈ 40 KB metadata: distinct tags (the inverted index's worst) or one unique `content`. */
function insertBody(prefix: string, count: number, kind: 'tags' | 'content', rand: () => number): string {
  const rows = Array.from({ length: count }, (_, i) => {
    const id = `${prefix}-${i}`;
    const metadata =
      kind === 'tags'
        ? { tags: Array.from({ length: TAGS }, (_, j) => `${id}:${j}`), source: prefix }
        : {
            content: `${id} ${'lorem ipsum dolor sit amet '.repeat(METADATA_BYTES / 27)}`.slice(0, METADATA_BYTES - 40),
            source: prefix,
          };
    return { id, embedding: vector(rand), metadata };
  });
  return JSON.stringify({ rows });
}

async function main(): Promise<void> {
  logCodeUnderTest(ROOT, log);
  log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(0)} GB, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${new Date().toISOString()}`,
  );
  const db = await createDatabase('vector_stall', ROOT);
  // the main thread's GC pauses per phase (ingest-gc-observer.cjs, preloaded)
  const gc = gcLog();
  let service: Service | undefined;
  try {
    service = await startObservedVectorApi(ROOT, db.url, gc);
    const { base, pid } = service;
    const token = async (name: string): Promise<string> => {
      const project = await call(base, ADMIN, 'POST', '/admin/v1/projects', JSON.stringify({ name }));
      if (project.status !== 201) throw new Error(`project: ${project.status}`);
      const projects = await fetch(`${base}/admin/v1/projects`, { headers: { authorization: `Bearer ${ADMIN}` } });
      const list = (await projects.json()) as
        { data?: Array<{ id: string; name: string }> } | Array<{ id: string; name: string }>;
      const found = (Array.isArray(list) ? list : (list.data ?? [])).find((p) => p.name === name);
      if (!found) throw new Error(`project ${name} not listed`);
      const res = await fetch(`${base}/admin/v1/projects/${found.id}/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `${name}-token` }),
      });
      if (res.status !== 201) throw new Error(`token: ${res.status}`);
      return ((await res.json()) as { token: string }).token;
    };
    // Two projects' tokens (each admin token gets a project of its own).
    const victim = await token('victim');
    const hostile = await token('hostile');
    const rand = rng(31);
    const must = async (a: Promise<Answer>, what: string): Promise<Answer> => {
      const r = await a;
      if (r.status >= 300) throw new Error(`${what}: ${r.status}`);
      return r;
    };
    await must(call(base, victim, 'POST', '/v1/tables', JSON.stringify({ name: 'small', dimension: DIM })), 'victim table');
    await must(call(base, hostile, 'POST', '/v1/tables', JSON.stringify({ name: 'big', dimension: DIM })), 'hostile table');
    for (let b = 0; b < 2; b++) {
      const rows = Array.from({ length: 1000 }, (_, i) => ({
        id: `v${b}-${i}`,
        embedding: vector(rand),
        metadata: { k: i % 10 },
      }));
      await must(call(base, victim, 'POST', '/v1/tables/small/insert', JSON.stringify({ rows })), 'victim rows');
    }
    const warm = probe(base, victim, Promise.resolve(), 100);
    await warm;
    const rssStart = rssMb(pid);
    const heapStart = await heapMb(base);
    log(`vector-api after start and the victim's rows: RSS ${rssStart.toFixed(0)} MB, heap ${heapStart.toFixed(0)} MB`);

    let from = Date.now();
    const idle = await probe(base, victim, Promise.resolve(), IDLE_QUERIES);
    const idleGc = gc.between(from, Date.now());
    log(`idle: victim ${stats(idle)}; ${describeGc(idleGc)}`);
    const idleP99 = quantile(idle, 0.99);
    const rowsOut: Array<[string, number[], string, GcSummary]> = [['idle', idle, '', idleGc]];

    // Metadata load: the inverted index's worst (every tag distinct), the worst allowed row size.
    const load: Answer[] = [];
    const loadDone = (async () => {
      for (let i = 0; i < LOAD_INSERTS; i++) {
        const body = insertBody(`load${i}`, 500, 'tags', rand);
        load.push(await call(base, hostile, 'POST', '/v1/tables/big/insert', body));
      }
    })();
    from = Date.now();
    const duringLoad = await probe(base, victim, loadDone, 20);
    const loadGc = gc.between(from, Date.now());
    const bodyMb = insertBody('probe', 1, 'tags', rand).length / 1e3;
    log(
      `metadata load: ${LOAD_INSERTS} inserts of 500 rows × ${TAGS} distinct tags (${bodyMb.toFixed(1)} KB per row): ${load
        .map((a) => `${a.status} in ${a.ms.toFixed(0)} ms`)
        .join(', ')}; victim ${stats(duringLoad)}; ${describeGc(loadGc)}`,
    );
    await sleep(500);
    const rssLoad = rssMb(pid);
    const heapLoad = await heapMb(base);
    log(
      `memory after the metadata load: RSS ${rssLoad.toFixed(0)} MB (+${(rssLoad - rssStart).toFixed(0)}), heap ${heapLoad.toFixed(0)} MB (+${(heapLoad - heapStart).toFixed(0)})`,
    );
    rowsOut.push(['metadata load (sequential inserts)', duringLoad, load.map((a) => a.status).join(' '), loadGc]);

    for (let round = 1; round <= ROUNDS; round++) {
      // 3 concurrent worst inserts: 1000 rows of ≈ 40 KB unique `content` each.
      const bodies = [0, 1, 2].map((k) => insertBody(`r${round}i${k}`, 1000, 'content', rand));
      from = Date.now();
      const inserts = Promise.all(bodies.map((b) => call(base, hostile, 'POST', '/v1/tables/big/insert', b)));
      const duringInserts = await probe(base, victim, inserts, 20);
      const insertsGc = gc.between(from, Date.now());
      const insertAnswers = await inserts;
      log(
        `round ${round}: 3 concurrent inserts of ${(bodies[0].length / 1e6).toFixed(1)} MB: ${insertAnswers
          .map((a) => `${a.status} in ${a.ms.toFixed(0)} ms`)
          .join(', ')}; victim ${stats(duringInserts)}; ${describeGc(insertsGc)}`,
      );
      rowsOut.push([
        `3 concurrent worst inserts (round ${round})`,
        duringInserts,
        insertAnswers.map((a) => a.status).join(' '),
        insertsGc,
      ]);

      // 2 looping worst queries: n = 780 over rows of 40 KB (≈ 31 MB answers).
      const q = JSON.stringify({ vector: vector(rand), n: 780 });
      const queries: Answer[] = [];
      const loops = Promise.all(
        [0, 1].map(async () => {
          for (let i = 0; i < 4; i++) queries.push(await call(base, hostile, 'POST', '/v1/tables/big/query', q));
        }),
      );
      from = Date.now();
      const duringQueries = await probe(base, victim, loops, 20);
      const queriesGc = gc.between(from, Date.now());
      log(
        `round ${round}: 2 loops × 4 queries n = 780: ${queries.map((a) => `${a.status}/${(a.bytes / 1e6).toFixed(0)} MB/${a.ms.toFixed(0)} ms`).join(', ')}; victim ${stats(duringQueries)}`,
      );
      rowsOut.push([
        `2 looping worst queries (round ${round})`,
        duringQueries,
        queries.map((a) => a.status).join(' '),
        queriesGc,
      ]);

      // 2 looping worst batches: 7 × n = 110.
      const batch = JSON.stringify({ queries: Array.from({ length: 7 }, () => ({ vector: vector(rand), n: 110 })) });
      const batches: Answer[] = [];
      const batchLoops = Promise.all(
        [0, 1].map(async () => {
          for (let i = 0; i < 3; i++) batches.push(await call(base, hostile, 'POST', '/v1/tables/big/query', batch));
        }),
      );
      from = Date.now();
      const duringBatches = await probe(base, victim, batchLoops, 20);
      const batchesGc = gc.between(from, Date.now());
      log(
        `round ${round}: 2 loops × 3 batches 7 × n = 110: ${batches.map((a) => `${a.status}/${(a.bytes / 1e6).toFixed(0)} MB/${a.ms.toFixed(0)} ms`).join(', ')}; victim ${stats(duringBatches)}`,
      );
      rowsOut.push([
        `2 looping worst batches (round ${round})`,
        duringBatches,
        batches.map((a) => a.status).join(' '),
        batchesGc,
      ]);
    }
    log(`RSS at the end: ${rssMb(pid).toFixed(0)} MB, heap ${(await heapMb(base)).toFixed(0)} MB`);

    process.stdout.write(
      '\n| phase | victim p50 | victim p99 | max | p99 ÷ idle p99 | longest main-thread GC | hostile answers |\n|---|---|---|---|---|---|---|\n',
    );
    for (const [name, xs, statuses, g] of rowsOut) {
      process.stdout.write(
        `| ${name} | ${quantile(xs, 0.5).toFixed(1)} ms | ${quantile(xs, 0.99).toFixed(1)} ms | ${Math.max(...xs).toFixed(0)} ms | ${(quantile(xs, 0.99) / idleP99).toFixed(1)} | ${g.maxMs.toFixed(0)} ms (${g.maxKind}) | ${statuses} |\n`,
      );
    }
  } finally {
    if (service) await writeProfile(service.pid);
    await service?.stop();
    await db.drop();
    gc.remove();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[vector-stall] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
