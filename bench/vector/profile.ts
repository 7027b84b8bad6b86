/**
 * Profiles of vector-api's serving path (issue 32, "profile first"), on the built service
 * (dist/apps/vector-api/src/main.js, `npm run build` first; rebuilt when stale):
 *
 * 1. CPU: the service runs with --cpu-prof (the main thread and every worker thread write
 *    their own .cpuprofile at exit) and --trace-gc; a 20,000 × 128 hnsw table
 *    (scale-data.ts's mixture) is loaded through the API, then autocannon (the HTTP bench's
 *    client) asks POST /v1/tables/{t}/query with 8 connections for 20 s. Only the samples
 *    of the load window count. Printed per thread: busy and idle time, CPU per query, self
 *    time by category (search, validation, serialization, socket writes, Nest, GC, rate
 *    limit / ioredis, our code, …) and the top frames by self time.
 * 2. GC: a fresh service with --trace-gc, a 200,000 × 128 hnsw table, queries idle, then
 *    30 s of one querying client while 1,000 rows/s are inserted in 100-row requests (the
 *    insert-while-query load of bench:scale). Printed: collections, total, longest and p99
 *    pause by type, main thread and workers apart, for the idle and the insert window, and
 *    the query latencies of both.
 *
 *   npm run bench:profile
 *   BENCH_PROFILE_PARTS=cpu|gc                 (one part only; default both)
 *   BENCH_PROFILE_ROWS=20000 BENCH_PROFILE_SECONDS=20 BENCH_PROFILE_CONNECTIONS=8   (CPU part)
 *   BENCH_PROFILE_GC_ROWS=200000 BENCH_PROFILE_GC_SECONDS=30 BENCH_PROFILE_GC_RATE=1000   (GC part)
 *   BENCH_PROFILE_TOP=30                        (frames listed per thread)
 *   BENCH_PROFILE_LABEL=before                  (a name for the run's directory)
 *
 * Raw profiles, GC logs and summary.json go to .data/bench-profile/<label or date>/
 * (git-ignored). The services inherit the environment (VECTOR_* settings pass through).
 * Needs PostgreSQL and Redis as bench:scale does.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { buildIfNeeded } from '../http/platform';
import { formatGc, gcEventsOfLog, gcSummaries, type GcSummary } from './gc-trace';
import { queryFor, startInsertLoad, type InsertLoadStats } from './insert-load';
import { machineInfo } from './measure';
import { insertBody, MixtureData, vectorJson } from './scale-data';
import { cleanOrphans, createDatabase, dropDatabase, expectOk, runBenchmark, ROOT, sleep, VectorService } from './scale-server';
import { autocannon } from './http-load';

const env = process.env;
const num = (name: string, fallback: number): number => {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a number > 0, not ${v}`);
  return n;
};
const PARTS = new Set((env.BENCH_PROFILE_PARTS ?? 'cpu,gc').split(',').map((s) => s.trim()));
const CPU = {
  rows: num('BENCH_PROFILE_ROWS', 20_000),
  dim: 128,
  seconds: num('BENCH_PROFILE_SECONDS', 20),
  connections: num('BENCH_PROFILE_CONNECTIONS', 8),
};
const GC = {
  rows: num('BENCH_PROFILE_GC_ROWS', 200_000),
  dim: 128,
  seconds: num('BENCH_PROFILE_GC_SECONDS', 30),
  rate: num('BENCH_PROFILE_GC_RATE', 1000),
};
const TOP = num('BENCH_PROFILE_TOP', 30);
const label = env.BENCH_PROFILE_LABEL ?? new Date().toISOString().replace(/[:.]/g, '-');
const OUT = join(ROOT, '.data', 'bench-profile', label);

const started = performance.now();
const log = (msg: string): void => {
  process.stderr.write(`[bench:profile] ${msg} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
};
const print = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

// ---------------------------------------------------------------------------------------
// .cpuprofile aggregation

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** hnswlib-node's native time shows as the self time of the JS frame that calls it. */
const SEARCH = 'search (hnswlib-node, incl. the frame calling it)';

/**
 * The category of a frame, by its own function (self time). Order matters: our pipes count
 * as validation before "our code"; native frames are told apart by name.
 */
export function category(f: CallFrame): string {
  const fn = f.functionName;
  const url = f.url.replace(/^file:\/\//, '');
  if (url === '') {
    if (fn === '(garbage collector)') return 'GC';
    if (fn === '(program)') return '(program): V8 and native code outside JS';
    if (/^(searchKnn|addPoint|markDelete|unmarkDelete|resizeIndex|setEf|getPoint|writeIndex|readIndex)/.test(fn)) return SEARCH;
    if (/^(writev|writeUtf8String|writeBuffer|writeLatin1String|writeAsciiString|writeUcs2String|shutdown)$/.test(fn))
      return 'socket writes';
    if (fn === 'stringify') return 'serialization';
    if (fn === 'parse') return 'body parsing (JSON.parse)';
    if (/postMessage|receiveMessageOnPort|drainMessagePort/.test(fn)) return 'thread messages';
    if (/^(Atomics|wait|notify)/.test(fn)) return 'thread messages';
    return 'V8 builtins and native (other)';
  }
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    const pkg = rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? '');
    if (pkg === 'hnswlib-node' || pkg === 'usearch') return SEARCH;
    if (/^(class-validator|class-transformer|validator|libphonenumber-js|ajv|ajv-formats)$/.test(pkg)) return 'validation';
    if (/^(fast-json-stringify|@fastify\/fast-json-stringify-compiler|safe-stable-stringify)$/.test(pkg)) return 'serialization';
    if (/^(secure-json-parse)$/.test(pkg)) return 'body parsing (JSON.parse)';
    if (pkg.startsWith('@nestjs/') || /^(rxjs|reflect-metadata|path-to-regexp|iterare|tslib)$/.test(pkg)) return 'Nest';
    if (pkg === 'fastify' || pkg.startsWith('@fastify/') || /^(find-my-way|avvio|light-my-request|fastq|toad-cache)$/.test(pkg))
      return 'Fastify';
    if (/^(ioredis|redis-parser|redis-errors|denque|cluster-key-slot|standard-as-callback)$/.test(pkg))
      return 'rate limit / ioredis';
    if (/^(pino|pino-std-serializers|sonic-boom|thread-stream|fast-redact|quick-format-unescaped)$/.test(pkg)) return 'logging';
    if (pkg.startsWith('@prisma/') || pkg === 'pg' || pkg.startsWith('pg-')) return 'database clients';
    return `other packages`;
  }
  if (url.startsWith('node:')) {
    if (/stream_base_commons|node:net$|_http_outgoing|node:internal\/streams\/writable/.test(url)) return 'socket writes';
    if (/worker|messageport|message_port|per_context\/messageport/.test(url)) return 'thread messages';
    if (/_http_server|_http_common|_http_incoming|node:internal\/streams\/readable/.test(url)) return 'HTTP in (node)';
    return 'node internals (other)';
  }
  if (/\/(apps|libs)\//.test(url)) {
    if (/rate-limit|rate_limit|ratelimit/i.test(url)) return 'rate limit / ioredis';
    if (/\.pipe\.js$|\.pipe\.ts$|validation|dto\//.test(url)) return 'validation';
    if (/\/apps\/vector-api\/src\/engine\//.test(url))
      return /^(search|searchKnn|knn)$/.test(fn) ? SEARCH : 'engine (ours: apps/vector-api/src/engine)';
    return 'our code (apps, libs)';
  }
  if (url.startsWith('[worker eval]')) {
    // Workers made from strings (hnsw-worker.ts today): the search loop calls hnswlib-node,
    // whose native time shows as the calling frame's self time.
    if (/^(search|searchKnn|query)$/.test(fn)) return SEARCH;
    if (/^(post|onmessage|onMessage|reply)$/.test(fn)) return 'thread messages';
    return 'engine (ours: apps/vector-api/src/engine)';
  }
  return 'other';
}

export interface ThreadProfile {
  readonly file: string;
  readonly thread: string;
  readonly windowMs: number;
  readonly busyMs: number;
  readonly idleMs: number;
  readonly categories: Array<{ name: string; ms: number; share: number }>;
  readonly frames: Array<{ name: string; category: string; ms: number; share: number }>;
}

function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + '/node_modules/'.length);
  return path.startsWith(ROOT) ? path.slice(ROOT.length + 1) : path;
}

/** Self time inside the window (µs of the monotonic clock V8 stamps samples with). */
export function aggregate(file: string, thread: string, window: { fromUs: number; toUs: number }, top: number): ThreadProfile {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const frames = new Map<string, { category: string; us: number }>();
  const cats = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (at < window.fromUs || at > window.toUs) continue;
    const node = byId.get(profile.samples[i] ?? -1);
    if (!node) continue;
    const f = node.callFrame;
    if (f.functionName === '(idle)') {
      idle += us;
      continue;
    }
    busy += us;
    const cat = category(f);
    cats.set(cat, (cats.get(cat) ?? 0) + us);
    const name =
      f.url === ''
        ? f.functionName || '(anonymous)'
        : `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}:${f.lineNumber + 1}`;
    const entry = frames.get(name) ?? { category: cat, us: 0 };
    entry.us += us;
    frames.set(name, entry);
  }
  const share = (us: number): number => (busy > 0 ? us / busy : 0);
  return {
    file,
    thread,
    windowMs: (window.toUs - window.fromUs) / 1000,
    busyMs: busy / 1000,
    idleMs: idle / 1000,
    categories: [...cats.entries()].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, ms: us / 1000, share: share(us) })),
    frames: [...frames.entries()]
      .sort((a, b) => b[1].us - a[1].us)
      .slice(0, top)
      .map(([name, e]) => ({ name, category: e.category, ms: e.us / 1000, share: share(e.us) })),
  };
}

function printThread(p: ThreadProfile, queries: number): void {
  const pct = (x: number): string => `${(x * 100).toFixed(1).padStart(5)} %`;
  const perQuery = queries > 0 ? (p.busyMs * 1000) / queries : NaN;
  print(
    `${p.thread} (${p.file.slice(ROOT.length + 1)}): busy ${(p.busyMs / 1000).toFixed(1)} s of the ${(p.windowMs / 1000).toFixed(1)} s window ` +
      `(${((p.busyMs / Math.max(1, p.windowMs)) * 100).toFixed(0)} %; idle samples ${(p.idleMs / 1000).toFixed(1)} s), ` +
      `${perQuery.toFixed(0)} µs of CPU per query`,
  );
  print('  self time by category (share of busy time, µs per query):');
  for (const c of p.categories)
    print(`    ${pct(c.share)}  ${((c.ms * 1000) / Math.max(1, queries)).toFixed(1).padStart(7)} µs  ${c.name}`);
  print(`  top ${p.frames.length} frames by self time:`);
  for (const f of p.frames) print(`    ${pct(f.share)}  ${f.ms.toFixed(0).padStart(6)} ms  ${f.name}  [${f.category}]`);
}

// ---------------------------------------------------------------------------------------
// Shared steps

interface TableView {
  rows: number;
  index_status: { state: string; details: Record<string, number | undefined> };
}

async function prepare(
  svc: VectorService,
  adminKey: string,
  table: string,
  data: MixtureData,
  rows: number,
): Promise<{ token: string; insertUrl: string }> {
  await svc.waitListening(300);
  const { token } = (await expectOk('POST', `${svc.base}/admin/v1/tokens`, {
    body: { name: 'bench-profile' },
    token: adminKey,
  })) as { token: string };
  await expectOk('POST', `${svc.base}/v1/tables`, { body: { name: table, dimension: data.dim, index: 'hnsw' }, token });
  const insertUrl = `${svc.base}/v1/tables/${table}/insert`;
  let next = 0;
  let lastLog = performance.now();
  const worker = async (): Promise<void> => {
    while (next < rows) {
      const from = next;
      const to = Math.min(rows, from + 1000);
      next = to;
      await expectOk('POST', insertUrl, { body: insertBody(data, from, to), token, timeoutMs: 300_000 });
      if (performance.now() - lastLog > 15_000) {
        lastLog = performance.now();
        log(`${table}: ${to.toLocaleString('en-US')} of ${rows.toLocaleString('en-US')} rows sent`);
      }
    }
  };
  await Promise.all([worker(), worker()]);
  log(`${table}: ${rows.toLocaleString('en-US')} rows inserted; waiting for the index`);
  for (let lastLog2 = performance.now(); ;) {
    if (!svc.alive) throw new Error(`vector-api exited; see ${svc.logFile}`);
    const view = (await expectOk('GET', `${svc.base}/v1/tables/${table}`, { token, timeoutMs: 60_000 })) as TableView;
    const d = view.index_status.details;
    if (view.rows >= rows && view.index_status.state === 'ready' && (d.pending ?? 0) === 0) break;
    if (performance.now() - lastLog2 > 15_000) {
      lastLog2 = performance.now();
      log(`${table}: index ${view.index_status.state}, pending ${d.pending ?? 'n/a'}`);
    }
    await sleep(500);
  }
  return { token, insertUrl: `${svc.base}/v1/tables/${table}/insert` };
}

function queryBodies(data: MixtureData, count: number): string[] {
  const q = new Float32Array(data.dim);
  return Array.from({ length: count }, (_, j) => `{"vector":${vectorJson(data.query(j, q))},"n":10}`);
}

function pct(ms: number[], p: number): number {
  if (ms.length === 0) return NaN;
  const s = [...ms].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

// ---------------------------------------------------------------------------------------
// Part 1: CPU profile of the query route

interface CpuPart {
  rows: number;
  connections: number;
  seconds: number;
  requestsPerSecond: number;
  requests: number;
  latencyP50: number;
  latencyP99: number;
  errors: number;
  threads: ThreadProfile[];
  gc: GcSummary[];
}

async function cpuPart(adminKey: string): Promise<CpuPart> {
  const db = await createDatabase(log);
  const dir = join(OUT, 'cpu');
  mkdirSync(dir, { recursive: true });
  let svc: VectorService | undefined;
  try {
    svc = await VectorService.spawn({
      databaseUrl: db.url,
      adminKey,
      logName: `profile-${label}-cpu.log`,
      log,
      nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir, '--trace-gc'],
    });
    const data = new MixtureData(CPU.dim, CPU.rows);
    const { token } = await prepare(svc, adminKey, 'prof', data, CPU.rows);
    const bodies = queryBodies(data, 64);
    const options = {
      url: `${svc.base}/v1/tables/prof/query`,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      requests: bodies.map((body) => ({ method: 'POST', body })),
      connections: CPU.connections,
      pipelining: 1,
    };
    await autocannon({ ...options, duration: 2 }); // warm-up (JIT), outside the window
    const logFrom = svc.logBytes();
    const fromUs = nowUs();
    const r = await autocannon({ ...options, duration: CPU.seconds });
    const toUs = nowUs();
    const logTo = svc.logBytes();
    log(`CPU: ${r.requests.average.toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms; stopping the service`);
    const stopped = await svc.stop(60);
    log(`CPU: vector-api ${stopped.how} in ${stopped.seconds.toFixed(1)} s`);
    const gcEvents = gcEventsOfLog(svc.logFile, logFrom, logTo, svc.logStart);
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .sort();
    // CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile: thread 0 is the main thread.
    const threads = files.map((f) => {
      const tid = Number(/\.(\d+)\.(\d+)\.\d+\.cpuprofile$/.exec(f)?.[2] ?? NaN);
      return aggregate(join(dir, f), tid === 0 ? 'main thread' : `worker thread ${tid}`, { fromUs, toUs }, TOP);
    });
    return {
      rows: CPU.rows,
      connections: CPU.connections,
      seconds: CPU.seconds,
      requestsPerSecond: r.requests.average,
      requests: r.requests.total,
      latencyP50: r.latency.p50,
      latencyP99: r.latency.p99,
      errors: r.errors + r.timeouts + r.non2xx,
      threads: threads.filter((t) => t.busyMs + t.idleMs > 0),
      gc: gcSummaries(gcEvents.all, gcEvents.window),
    };
  } finally {
    if (svc?.alive) await svc.stop();
    await dropDatabase(db.name, log);
  }
}

// ---------------------------------------------------------------------------------------
// Part 2: GC trace under the insert-while-query load

interface GcPart {
  rows: number;
  seconds: number;
  idle: { queries: number; p50: number; p99: number; max: number; gc: GcSummary[] };
  underInsert: { queries: number; p50: number; p99: number; max: number; gc: GcSummary[]; load: InsertLoadStats };
}

async function gcPart(adminKey: string): Promise<GcPart> {
  const db = await createDatabase(log);
  let svc: VectorService | undefined;
  try {
    svc = await VectorService.spawn({
      databaseUrl: db.url,
      adminKey,
      logName: `profile-${label}-gc.log`,
      log,
      nodeArgs: ['--trace-gc'],
    });
    const data = new MixtureData(GC.dim, GC.rows);
    const { token, insertUrl } = await prepare(svc, adminKey, 'gc', data, GC.rows);
    const bodies = queryBodies(data, 1000);
    const service = svc;
    const ask = (body: string): Promise<unknown> =>
      expectOk('POST', `${service.base}/v1/tables/gc/query`, { body, token, timeoutMs: 60_000 });
    for (let i = 0; i < 50; i++) await ask(bodies[i]);
    const idleSeconds = Math.min(GC.seconds, 15);
    let from = svc.logBytes();
    const idle = await queryFor(ask, bodies, idleSeconds, 1);
    let to = svc.logBytes();
    const idleGc = gcEventsOfLog(svc.logFile, from, to, svc.logStart);
    log(`GC: idle queries p50 ${pct(idle.ms, 0.5).toFixed(2)} ms, p99 ${pct(idle.ms, 0.99).toFixed(2)} ms (${idle.ms.length})`);
    from = svc.logBytes();
    const load = startInsertLoad({ url: insertUrl, token, data, from: GC.rows, rate: GC.rate });
    await sleep(1000);
    // The window is the time (not a count): a slow service answers fewer queries, not a longer load.
    const busy = await queryFor(ask, bodies, GC.seconds, 1);
    const stats = await load.stop();
    to = svc.logBytes();
    const busyGc = gcEventsOfLog(svc.logFile, from, to, svc.logStart);
    log(
      `GC: under ${stats.insertRowsPerSecond.toFixed(0)} inserted rows/s: p50 ${pct(busy.ms, 0.5).toFixed(2)} ms, ` +
        `p99 ${pct(busy.ms, 0.99).toFixed(2)} ms (${busy.ms.length})`,
    );
    return {
      rows: GC.rows,
      seconds: GC.seconds,
      idle: {
        queries: idle.ms.length,
        p50: pct(idle.ms, 0.5),
        p99: pct(idle.ms, 0.99),
        max: Math.max(...idle.ms),
        gc: gcSummaries(idleGc.all, idleGc.window),
      },
      underInsert: {
        queries: busy.ms.length,
        p50: pct(busy.ms, 0.5),
        p99: pct(busy.ms, 0.99),
        max: Math.max(...busy.ms),
        gc: gcSummaries(busyGc.all, busyGc.window),
        load: stats,
      },
    };
  } finally {
    if (svc?.alive) await svc.stop();
    await dropDatabase(db.name, log);
  }
}

// ---------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const machine = machineInfo();
  log(`machine: ${machine.nproc} cpus, ${machine.cpu}, load ${machine.loadAtStart}; output ${OUT.slice(ROOT.length + 1)}`);
  buildIfNeeded(log);
  await cleanOrphans(log);
  mkdirSync(OUT, { recursive: true });
  const adminKey = randomBytes(32).toString('base64url');
  const summary: { date: string; machine: typeof machine; loadAtEnd?: string; cpu?: CpuPart; gc?: GcPart } = {
    date: new Date().toISOString(),
    machine,
  };
  if (PARTS.has('cpu')) summary.cpu = await cpuPart(adminKey);
  if (PARTS.has('gc')) summary.gc = await gcPart(adminKey);
  summary.loadAtEnd = machineInfo().loadAtStart;
  writeFileSync(join(OUT, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);

  print(
    `# bench:profile ${summary.date} (load average at start ${machine.loadAtStart}, at end ${summary.loadAtEnd}; shared machine)`,
  );
  const cpu = summary.cpu;
  if (cpu) {
    print();
    print(
      `## CPU profile: POST /v1/tables/{t}/query, ${cpu.rows.toLocaleString('en-US')} × 128 hnsw, autocannon ${cpu.connections} connections ` +
        `for ${cpu.seconds} s: ${cpu.requestsPerSecond.toFixed(0)} req/s (${cpu.requests} requests, ${cpu.errors} errors), ` +
        `p50 ${cpu.latencyP50} ms, p99 ${cpu.latencyP99} ms`,
    );
    for (const t of cpu.threads) {
      print();
      printThread(t, cpu.requests);
    }
    print();
    print('GC pauses during the load window (--trace-gc):');
    for (const s of cpu.gc) print(formatGc(s));
  }
  const gc = summary.gc;
  if (gc) {
    print();
    print(`## GC trace: ${gc.rows.toLocaleString('en-US')} × 128 hnsw, one querying client`);
    print(
      `idle (${gc.idle.queries} queries): p50 ${gc.idle.p50.toFixed(2)} ms, p99 ${gc.idle.p99.toFixed(2)} ms, max ${gc.idle.max.toFixed(1)} ms`,
    );
    for (const s of gc.idle.gc) print(formatGc(s));
    const l = gc.underInsert.load;
    print(
      `while inserting ${l.insertRowsPerSecond.toFixed(0)} rows/s (target ${l.targetRowsPerSecond}, ${l.rowsPerRequest}-row requests, ` +
        `${l.insertErrors} errors, ${l.skippedTicks} skipped ticks) for ${l.seconds.toFixed(0)} s (${gc.underInsert.queries} queries): ` +
        `p50 ${gc.underInsert.p50.toFixed(2)} ms, p99 ${gc.underInsert.p99.toFixed(2)} ms, max ${gc.underInsert.max.toFixed(1)} ms`,
    );
    for (const s of gc.underInsert.gc) print(formatGc(s));
  }
  print();
  print(`raw profiles, GC logs and summary.json: ${OUT.slice(ROOT.length + 1)}/ and .data/bench-scale/profile-${label}-*.log`);
}

runBenchmark('bench:profile', main, log);
