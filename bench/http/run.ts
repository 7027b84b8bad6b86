/**
 * HTTP load benchmark of the three services against a bare Fastify route.
 *
 *   npm run bench:http                         all scenarios; writes docs/benchmarks.md
 *   npm run bench:http -- --only payments      a subset (+ the bare route); no docs update
 *                                              (or BENCH_HTTP_ONLY=payments,stripe-intent)
 *   BENCH_HTTP_ONLY=stripe-intent npm run bench:http
 *                                              issue 35 alone: /v1 payment intent create with
 *                                              confirm=true (f) and /v2 payment create (d) in
 *                                              turns, BENCH_HTTP_ROUNDS rounds, the q/s ratio
 *   npm run bench:http -- --profile [id]       CPU profile (node --cpu-prof) of the service
 *                                              serving scenario id (default: the slowest
 *                                              by ratio in the last results) under the same
 *                                              load, plus the SQL one request issues
 *
 * Scenario ids: offers-list, indications, vector-query, payments, stripe-intent. The write routes
 * (indications, payments) are also compared with pgbench running the statements one request
 * of theirs issues (sql-baseline.ts), in BENCH_HTTP_ROUNDS (3) alternating rounds. Settings:
 * BENCH_HTTP_CONNECTIONS (32), BENCH_HTTP_SECONDS (15), BENCH_HTTP_WARMUP (5),
 * BENCH_HTTP_LOG_LEVEL (info), BENCH_HTTP_PG_URL (postgresql://postgres@127.0.0.1:5432/postgres),
 * BENCH_HTTP_EMBEDDED=1 (use dev-start's embedded PostgreSQL), REDIS_URL.
 * Raw results go to .data/bench-http/. Every process and the database it created are
 * removed at the end, also on failure or Ctrl-C.
 */
import { type ChildProcess, execSync, fork } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { formatSummary, summarize } from './cpu-profile';
import { pidsMatching, processCpuMs, waitForQuiet } from './cpu-usage';
import { type CpuProbe, type LoadOptions, type LoadResult, runLoad } from './load';
import { buildIfNeeded, DATA_DIR, type Platform, ROOT, startPlatform } from './platform';
import {
  type BenchResults,
  type DirectResult,
  formatDirectTable,
  formatStripeComparison,
  type StripeComparison,
  formatTable,
  type ScenarioResult,
  slowest,
  writeSection,
} from './report';
import { partOf, type ScenarioDef, type ScenarioId, scenarios } from './scenarios';
import { seed, VECTOR_DIM, VECTOR_ROWS } from './seed';
import { type Baseline, buildBaseline, captureStatements, type PgbenchResult, runPgbench } from './sql-baseline';
import { startSqlTrace, type SqlTrace } from './sql-trace';

const started = Date.now();
const log = (line: string): void => {
  process.stderr.write(`[bench:http ${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);
};

const ROUTES: readonly ScenarioId[] = ['offers-list', 'indications', 'vector-query', 'payments', 'stripe-intent'];
const RESULTS = join(DATA_DIR, 'results.json');

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return n;
}

function parseArgs(argv: string[]): { only?: ScenarioId[]; profile?: ScenarioId | 'auto' } {
  const out: { only?: ScenarioId[]; profile?: ScenarioId | 'auto' } = {};
  const check = (id: string): ScenarioId => {
    if (!ROUTES.includes(id as ScenarioId)) throw new Error(`unknown scenario '${id}'; known: ${ROUTES.join(', ')}`);
    return id as ScenarioId;
  };
  const only = process.env.BENCH_HTTP_ONLY;
  if (only) out.only = only.split(',').map(check);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--only') out.only = (argv[++i] ?? '').split(',').map(check);
    else if (arg === '--profile') out.profile = argv[i + 1] && !argv[i + 1]?.startsWith('--') ? check(argv[++i] ?? '') : 'auto';
    else throw new Error(`unknown argument '${arg}'`);
  }
  return out;
}

function loadavg(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'n/a';
  }
}

function machine(): BenchResults['machine'] {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpu;
  } catch {
    // not Linux
  }
  return { cpu, cores: cpus().length, memoryGiB: totalmem() / 2 ** 30, node: process.version, os: `${type()} ${release()}` };
}

function git(): BenchResults['git'] {
  try {
    const commit = execSync('git rev-parse HEAD', { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty =
      execSync('git status --porcelain --untracked-files=no', {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() !== '';
    return { commit, dirty };
  } catch {
    return { commit: 'unknown', dirty: false };
  }
}

/** Everything to undo, in reverse order of creation; runs once, also from signal handlers. */
const cleanups: Array<() => Promise<void>> = [];
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) await fn().catch((err: unknown) => log(`cleanup: ${String(err)}`));
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping and cleaning up`);
    void cleanup().then(() => process.exit(130));
  });
}

async function startBare(): Promise<{ base: string; pid: number }> {
  const child: ChildProcess = fork(join(ROOT, 'bench', 'ts-run.mjs'), [join(__dirname, 'bare-server.ts')], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.disconnect();
      }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`bare server exited (code ${code})`)));
  });
  return { base: `http://127.0.0.1:${port}`, pid: child.pid ?? -1 };
}

function probeFor(platform: Platform, s: ScenarioDef, barePid: number): CpuProbe {
  const cpuByPid = (pids: number[]): Map<number, number> => new Map(pids.map((pid) => [pid, processCpuMs([pid])]));
  return {
    service: () => cpuByPid(s.service ? pidsMatching(platform.servicePids(), `dist/apps/${s.service}/`) : [barePid]),
    postgres: async () => (s.service ? cpuByPid(await platform.postgresPids()) : new Map()),
  };
}

async function start(options: { nodeFlags?: string[]; trace?: boolean }): Promise<{ platform: Platform; trace?: SqlTrace }> {
  buildIfNeeded(log);
  let trace: SqlTrace | undefined;
  const platform = await startPlatform({
    log,
    ...(options.nodeFlags ? { nodeFlags: options.nodeFlags } : {}),
    ...(options.trace
      ? {
          wrapDatabaseUrl: async (url: string) => {
            trace = await startSqlTrace(url);
            cleanups.push(() => trace?.close() ?? Promise.resolve());
            return trace.url;
          },
        }
      : {}),
  });
  cleanups.push(() => platform.stop());
  return { platform, ...(trace ? { trace } : {}) };
}

function check(result: LoadResult, title: string, failures: string[]): void {
  if (result.failures > 0) {
    failures.push(
      `${title}: ${result.failures} failed requests (measured status codes ${JSON.stringify(result.statusCodes)}, ` +
        `errors ${result.errors}, timeouts ${result.timeouts}, warm-up failures ${result.warmup.failures})`,
    );
  }
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

/** The route's statements, captured through an extra API-only instance behind the SQL trace. */
async function captureBaseline(platform: Platform, s: ScenarioDef): Promise<Baseline> {
  const databaseUrl = platform.databaseUrl;
  if (!databaseUrl || !s.service) throw new Error('the direct-SQL baseline needs the local PostgreSQL (not BENCH_HTTP_EMBEDDED)');
  const trace = await startSqlTrace(databaseUrl);
  try {
    const extra = await platform.startExtra(s.service, trace.url);
    try {
      const windows = await captureStatements(trace, extra.base, s.request);
      return await buildBaseline(windows, databaseUrl);
    } finally {
      await extra.stop();
    }
  } finally {
    await trace.close();
  }
}

async function bench(only: ScenarioId[] | undefined): Promise<void> {
  const loadBefore = loadavg();
  const settings: LoadOptions = {
    connections: intEnv('BENCH_HTTP_CONNECTIONS', 32),
    seconds: intEnv('BENCH_HTTP_SECONDS', 15),
    warmupSeconds: intEnv('BENCH_HTTP_WARMUP', 5),
  };
  const { platform } = await start({});
  const run = `${Date.now().toString(36)}${process.pid}`;
  const parts = only ? [...new Set(only.map(partOf).filter((x) => x !== undefined))] : undefined;
  const data = await seed(platform, run, log, parts);
  const bare = await startBare();
  const all = scenarios(platform, data, bare.base, run);
  const bareScenario = all.find((s) => s.id === 'bare') as ScenarioDef;
  // f (stripe-intent) runs in turns with d after the others (below), not in this loop
  const wanted = all.filter((s) => s.id !== 'bare' && s.id !== 'stripe-intent' && (!only || only.includes(s.id)));
  const stripeWanted = !only || only.includes('stripe-intent');
  const failures: string[] = [];

  const measure = async (s: ScenarioDef): Promise<LoadResult> => {
    // the previous scenario's after-work (outbox dispatch, autovacuum) must not load this one
    const quiet = await waitForQuiet(0.2, 30_000);
    if (quiet.waitedMs > 1_000)
      log(`waited ${(quiet.waitedMs / 1000).toFixed(1)} s for the machine to settle (busy ${(quiet.busy * 100).toFixed(0)} %)`);
    log(`${s.title}: ${settings.warmupSeconds} s warm-up + ${settings.seconds} s at ${settings.connections} connections`);
    const r = await runLoad(s, settings, probeFor(platform, s, bare.pid));
    log(
      `  ${r.requestsPerSecond.toFixed(0)} req/s, p50 ${r.latencyMs.p50.toFixed(2)} ms, p99 ${r.latencyMs.p99.toFixed(2)} ms, ` +
        `failures ${r.failures}; CPU/request: service ${r.cpu.serviceMs.toFixed(3)} ms, PostgreSQL ${r.cpu.postgresMs.toFixed(3)} ms; ` +
        `machine busy ${(r.cpu.machineBusy * 100).toFixed(0)} %`,
    );
    check(r, s.title, failures);
    return r;
  };
  const rounds = intEnv('BENCH_HTTP_ROUNDS', 3);
  const baselines = new Map<ScenarioId, Baseline>();
  for (const s of wanted.filter((x) => x.directBaseline)) {
    const b = await captureBaseline(platform, s);
    baselines.set(s.id, b);
    log(
      `${s.title}: ${b.statements.length} statements per request (the same sequence in ${b.matched} of ${b.samples} traced requests):`,
    );
    for (const st of b.statements) log(`    ${st.text.replace(/\s+/g, ' ').slice(0, 150)}`);
  }
  const pgbench = async (s: ScenarioDef, b: Baseline): Promise<PgbenchResult> => {
    const quiet = await waitForQuiet(0.2, 30_000);
    if (quiet.waitedMs > 1_000) log(`waited ${(quiet.waitedMs / 1000).toFixed(1)} s for the machine to settle`);
    const file = join(DATA_DIR, `pgbench-${s.id}.sql`);
    const url = platform.databaseUrl as string;
    log(
      `${s.title} as direct SQL: pgbench ${settings.warmupSeconds} s warm-up + ${settings.seconds} s at ${platform.poolSize} clients`,
    );
    await runPgbench(b, file, url, platform.poolSize, settings.warmupSeconds);
    const r = await runPgbench(b, file, url, platform.poolSize, settings.seconds);
    log(`  ${r.tps.toFixed(0)} tps, latency ${r.latencyMs.toFixed(2)} ms, failed ${r.failed}`);
    return r;
  };

  const bareFirst = await measure(bareScenario);
  const measured: Array<{ s: ScenarioDef; r: LoadResult }> = [];
  const direct: DirectResult[] = [];
  for (const s of wanted) {
    const b = baselines.get(s.id);
    if (!b) {
      measured.push({ s, r: await measure(s) });
      continue;
    }
    const byRound: Array<{ http: LoadResult; sql: PgbenchResult; load: string }> = [];
    for (let i = 0; i < rounds; i++) {
      const load = loadavg();
      let http: LoadResult;
      let sql: PgbenchResult;
      if (i % 2 === 0) {
        http = await measure(s);
        sql = await pgbench(s, b);
      } else {
        sql = await pgbench(s, b);
        http = await measure(s);
      }
      byRound.push({ http, sql, load });
      log(`  round ${i + 1}/${rounds}: ratio ${(http.requestsPerSecond / sql.tps).toFixed(2)}`);
    }
    const mid = [...byRound].sort((x, y) => x.http.requestsPerSecond - y.http.requestsPerSecond)[Math.floor(byRound.length / 2)];
    measured.push({ s, r: (mid ?? byRound[0])?.http });
    direct.push({
      id: s.id,
      title: s.title,
      statements: b.statements.length,
      matched: `the same statement sequence in ${b.matched} of ${b.samples} traced requests`,
      clients: platform.poolSize,
      rounds: byRound.map((x) => ({
        http: x.http.requestsPerSecond,
        pgbench: x.sql.tps,
        ratio: x.http.requestsPerSecond / x.sql.tps,
        load: x.load,
      })),
      ratio: median(byRound.map((x) => x.http.requestsPerSecond / x.sql.tps)),
    });
  }
  let stripe: StripeComparison | undefined;
  if (stripeWanted) {
    const v1 = all.find((s) => s.id === 'stripe-intent');
    const v2 = all.find((s) => s.id === 'payments');
    if (!v1 || !v2) throw new Error('the /v1 comparison needs the payments seed');
    const byRound: Array<{ v1: LoadResult; v2: LoadResult; first: 'v1' | 'v2'; load: string }> = [];
    for (let i = 0; i < rounds; i++) {
      const load = loadavg();
      // turn about: /v2 first in odd rounds, /v1 first in even ones
      const first: 'v1' | 'v2' = i % 2 === 0 ? 'v2' : 'v1';
      const a = await measure(first === 'v2' ? v2 : v1);
      const b = await measure(first === 'v2' ? v1 : v2);
      const round = first === 'v2' ? { v1: b, v2: a, first, load } : { v1: a, v2: b, first, load };
      byRound.push(round);
      log(`  /v1 ÷ /v2 round ${i + 1}/${rounds}: ${(round.v1.requestsPerSecond / round.v2.requestsPerSecond).toFixed(2)}`);
    }
    const ratios = byRound.map((x) => x.v1.requestsPerSecond / x.v2.requestsPerSecond);
    const mid = [...byRound].sort((x, y) => x.v1.requestsPerSecond - y.v1.requestsPerSecond)[Math.floor(byRound.length / 2)];
    measured.push({ s: v1, r: (mid ?? byRound[0])?.v1 });
    stripe = {
      v1: v1.title,
      v2: v2.title,
      rounds: byRound.map((x, i) => ({
        v1: x.v1.requestsPerSecond,
        v2: x.v2.requestsPerSecond,
        ratio: ratios[i] ?? Number.NaN,
        first: x.first,
        load: x.load,
      })),
      ratio: median(ratios),
    };
  }
  const bareLast = await measure(bareScenario);
  const bareMean = (bareFirst.requestsPerSecond + bareLast.requestsPerSecond) / 2;
  await cleanup();
  const loadAfter = loadavg();

  const results: ScenarioResult[] = [
    ...measured.map(({ s, r }) => ({ id: s.id, title: s.title, result: r, ratio: r.requestsPerSecond / bareMean })),
    {
      id: 'bare',
      title: bareScenario.title,
      result: { ...bareLast, requestsPerSecond: bareMean },
      ratio: 1,
    },
  ];
  const args = process.argv.slice(3);
  const report: BenchResults = {
    date: new Date().toISOString(),
    command: `npm run bench:http${args.length ? ` -- ${args.join(' ')}` : ''}`,
    totalSeconds: (Date.now() - started) / 1000,
    machine: machine(),
    loadBefore,
    loadAfter,
    git: git(),
    database: platform.database,
    redis: new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379').host,
    settings: { ...settings, logLevel: process.env.BENCH_HTTP_LOG_LEVEL ?? 'info' },
    seeded:
      `an enterprise-tier partner with an OAuth client and token, published terms, 50 offers (40 in its agreement: ` +
      `30 live, 10 upcoming); a vector token and an hnsw table of ${VECTOR_ROWS.toLocaleString('en-US')} random unit vectors ` +
      `× ${VECTOR_DIM} with metadata, queried with n = 10 and 256 different random vectors; a payments account (test key) and a customer`,
    scenarios: results,
    bare: { first: bareFirst, last: bareLast, meanRequestsPerSecond: bareMean },
    ...(direct.length > 0 ? { direct } : {}),
    ...(stripe ? { stripe } : {}),
    failures,
  };
  mkdirSync(DATA_DIR, { recursive: true });
  const rawFile = join(DATA_DIR, `results-${report.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(rawFile, JSON.stringify(report, null, 2));
  process.stdout.write(`\n${formatTable(report)}\n\n`);
  if (direct.length > 0) process.stdout.write(`${formatDirectTable(report)}\n\n`);
  if (stripe) process.stdout.write(`${formatStripeComparison(report)}\n\n`);
  process.stdout.write(`load average before ${loadBefore}, after ${loadAfter}; raw results: ${rawFile.slice(ROOT.length + 1)}\n`);
  if (failures.length > 0) {
    throw new Error(
      `FAILED: non-2xx responses or errors under load (docs/benchmarks.md not updated):\n  ${failures.join('\n  ')}\n` +
        `See .data/bench-http/platform.log.`,
    );
  }
  if (only) {
    log('--only: docs/benchmarks.md not updated');
    return;
  }
  writeFileSync(RESULTS, JSON.stringify(report, null, 2));
  const doc = await writeSection(report);
  log(`wrote ${doc.slice(ROOT.length + 1)} (section "HTTP load (npm run bench:http)") and ${RESULTS.slice(ROOT.length + 1)}`);
  const worst = slowest(report);
  if (worst) log(`slowest of a–d by ratio: ${worst.title} (${worst.ratio.toPrecision(2)} × the bare route)`);
}

async function profile(target: ScenarioId | 'auto'): Promise<void> {
  let id = target;
  if (id === 'auto') {
    if (!existsSync(RESULTS)) throw new Error(`--profile without a scenario needs ${RESULTS}: run npm run bench:http first`);
    const last = JSON.parse(readFileSync(RESULTS, 'utf8')) as BenchResults;
    const worst = slowest(last);
    if (!worst) throw new Error(`no scenario results in ${RESULTS}`);
    id = worst.id as ScenarioId;
    log(`profiling the slowest route of the last run: ${worst.title} (ratio ${worst.ratio.toPrecision(2)})`);
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const cpuDir = join(DATA_DIR, `cpuprofile-${stamp}`);
  mkdirSync(cpuDir, { recursive: true });
  const settings: LoadOptions = {
    connections: intEnv('BENCH_HTTP_CONNECTIONS', 32),
    seconds: intEnv('BENCH_HTTP_SECONDS', 15),
    warmupSeconds: intEnv('BENCH_HTTP_WARMUP', 5),
  };
  const { platform, trace } = await start({
    nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${cpuDir}`, '--cpu-prof-interval=250'],
    trace: process.env.BENCH_HTTP_EMBEDDED !== '1',
  });
  const run = `${Date.now().toString(36)}${process.pid}`;
  const data = await seed(
    platform,
    run,
    log,
    [partOf(id)].filter((x) => x !== undefined),
  );
  const scenario = scenarios(platform, data, 'http://127.0.0.1:1', run).find((s) => s.id === id) as ScenarioDef;

  // The SQL of one request: 20 requests one after another through the counting proxy.
  let sql: Array<{ perRequest: number; text: string }> = [];
  if (trace) {
    const spec = scenario.request;
    await new Promise((r) => setTimeout(r, 1_000)); // let background pollers settle
    trace.reset();
    const n = 20;
    for (let i = 0; i < n; i++) {
      const next = spec.next?.();
      const res = await fetch(`${scenario.base}${spec.path}`, {
        method: spec.method,
        headers: { ...(next || spec.body ? { 'content-type': 'application/json' } : {}), ...spec.headers, ...next?.headers },
        body: next?.body ?? spec.body,
      });
      await res.arrayBuffer();
      if (res.status >= 300) throw new Error(`${scenario.title} → ${res.status}`);
    }
    sql = [...trace.counts().entries()]
      .map(([text, count]) => ({ perRequest: count / n, text }))
      .sort((a, b) => b.perRequest - a.perRequest);
    const total = sql.reduce((sum, s) => sum + s.perRequest, 0);
    process.stdout.write(
      `\nSQL statements per request (${n} sequential requests, includes background pollers): ${total.toFixed(2)}\n`,
    );
    for (const s of sql) process.stdout.write(`  ${s.perRequest.toFixed(2).padStart(6)}  ${s.text.slice(0, 220)}\n`);
  }

  log(`${scenario.title}: ${settings.warmupSeconds} s warm-up + ${settings.seconds} s under --cpu-prof`);
  const t0 = Number(process.hrtime.bigint() / 1000n);
  const result = await runLoad(scenario, settings, probeFor(platform, scenario, -1));
  const t1 = Number(process.hrtime.bigint() / 1000n);
  log(`  ${result.requestsPerSecond.toFixed(0)} req/s (profiling on), failures ${result.failures}`);
  await cleanup(); // SIGINT → the services exit → V8 writes the profiles

  const service = scenario.service ?? '';
  const file = readdirSync(cpuDir)
    .map((f) => join(cpuDir, f))
    .find((f) => readFileSync(f, 'utf8').includes(`dist/apps/${service}/`));
  if (!file) throw new Error(`no CPU profile of ${service} in ${cpuDir}`);
  const summary = summarize(file, ROOT, 30, { fromUs: t0 + settings.warmupSeconds * 1e6, toUs: t1 });
  const text = formatSummary(summary);
  process.stdout.write(`\n${scenario.title} — ${service} CPU profile over the measured load:\n${text}\n`);
  const out = join(DATA_DIR, `profile-${id}-${stamp}`);
  writeFileSync(`${out}.json`, JSON.stringify({ scenario: scenario.title, result, sql, summary }, null, 2));
  writeFileSync(
    `${out}.txt`,
    `${text}\n\nSQL per request:\n${sql.map((s) => `${s.perRequest.toFixed(2)}  ${s.text}`).join('\n')}\n`,
  );
  log(`profile: ${file.slice(ROOT.length + 1)}; summary: ${out.slice(ROOT.length + 1)}.txt`);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(3));
  log(`machine: ${machine().cpu}, ${machine().cores} cores; load average ${loadavg()}`);
  if (args.profile) await profile(args.profile);
  else await bench(args.only);
}

main().then(
  async () => {
    await cleanup();
    log('done');
    process.exit(0);
  },
  async (err: unknown) => {
    const failed = err instanceof Error && err.message.startsWith('FAILED');
    log(err instanceof Error ? ((failed ? err.message : err.stack) ?? err.message) : String(err));
    await cleanup();
    process.exit(1);
  },
);
