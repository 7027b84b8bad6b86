/**
 * The request path of `POST /v1/tables/:table/query` (issue 32, point 3): the built
 * vector-api (dist/apps/vector-api/src/main.js, as `npm start` runs it) against the bare
 * Fastify route of bare-server.ts, in the same run, at 1 and 8 connections; then a CPU
 * profile of vector-api's main thread under the 8-connection load (node --cpu-prof), cut to
 * the load window, with its top frames by self time and the CPU per request.
 *
 *   npm run build && node bench/ts-run.mjs bench/vector/request-path.ts [label=root ...]
 *
 * Each root (default: this repository) is a directory holding a build's dist/ (and
 * node_modules), so builds can be compared in one run: all of them serve the same table of
 * one database, and each round loads every build and the bare route in turn (BENCH_RP_ROUNDS
 * rounds, medians reported, with the CPU per request of vector-api's main thread and of all
 * its threads read from /proc around each load). Data: 20,000 seeded Gaussian 128-d rows (BENCH_RP_ROWS), 64
 * query bodies with n = 10, 5 s per load (BENCH_RP_SECONDS).
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { migrate } from '@app/platform';
import { freePort, stopChild } from '../http/platform';
import { queryAt } from '../../test/support/database';
import { autocannon } from './http-load';

const ROOT = join(__dirname, '..', '..');
const ROWS = Number(process.env.BENCH_RP_ROWS ?? 20_000);
const DIM = 128;
const SECONDS = Number(process.env.BENCH_RP_SECONDS ?? 5);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function gaussians(count: number, seed: number): Float32Array {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = Math.sqrt(-2 * Math.log(next() + 1e-12)) * Math.cos(2 * Math.PI * next());
  return out;
}

async function call(method: string, url: string, body: unknown, token?: string): Promise<unknown> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url} → ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

interface Load {
  rps: number;
  p50: number;
  total: number;
  errors: number;
}
async function load(
  url: string,
  bodies: string[],
  headers: Record<string, string>,
  connections: number,
  seconds = SECONDS,
  warm = true,
): Promise<Load> {
  const options = {
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    requests: bodies.map((body) => ({ method: 'POST', body })),
    connections,
    pipelining: 1,
  };
  if (warm) await autocannon({ ...options, duration: 1 });
  const r = await autocannon({ ...options, duration: seconds });
  return { rps: r.requests.average, p50: r.latency.p50, total: r.requests.total, errors: r.errors + r.timeouts + r.non2xx };
}

function startApi(root: string, env: NodeJS.ProcessEnv, profileDir?: string): ChildProcess {
  const args = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  return spawn(process.execPath, [...args, join(root, 'dist/apps/vector-api/src/main.js')], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function waitReady(base: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/health/live`)).ok) return;
    } catch {
      // not yet
    }
    await sleep(100);
  }
  throw new Error('vector-api did not start');
}

async function waitTable(base: string, token: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    try {
      const t = (await call('GET', `${base}/v1/tables/bench`, undefined, token)) as {
        rows: number;
        index_status: { state: string; details: Record<string, number> };
      };
      if (t.rows === ROWS && t.index_status.state === 'ready' && (t.index_status.details.pending ?? 0) === 0) return;
    } catch {
      // loading
    }
    await sleep(200);
  }
  throw new Error('table not ready');
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Self time per frame within [from, to] (µs on the monotonic clock), and the busy total. */
/** Where a frame's self time goes, coarsely: the package, or the part of this repository. */
function category(f: ProfileNode['callFrame']): string {
  const { url, functionName: fn } = f;
  if (fn === '(garbage collector)') return 'GC';
  if (fn === '(program)') return '(program): V8 and native work outside JS frames';
  if (/^(writev|writeUtf8String|writeBuffer|writeLatin1String|writeAsciiString)$/.test(fn)) return 'socket writes';
  if (fn === 'postMessage' || url.includes('internal/worker')) return 'worker messages (postMessage)';
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg !== undefined) {
    if (/^class-(validator|transformer)$|^validator$/.test(pkg)) return 'class-validator / class-transformer';
    if (pkg.startsWith('@nestjs/') || pkg === 'rxjs' || pkg === 'reflect-metadata' || pkg === 'iterare') return 'Nest (and rxjs)';
    if (/fastify|^find-my-way$|^avvio$|^toad-cache$/.test(pkg)) return 'Fastify';
    if (/ioredis|^@ioredis/.test(pkg)) return 'ioredis';
    if (/pino/.test(pkg)) return 'pino';
    return `other package (${pkg})`;
  }
  if (url.includes('/dist/libs/platform/src/http/validation')) return 'platform validation pipe';
  if (url.includes('/dist/libs/')) return `libs/${url.split('/dist/libs/')[1].split('/')[0]}`;
  if (url.includes('/dist/apps/vector-api/src/engine/')) return 'vector-api engine (main thread side)';
  if (url.includes('/dist/apps/')) return 'vector-api tables (controller, pipe, service)';
  if (url.startsWith('node:')) return 'node (http, streams, async hooks…)';
  return fn === '' || url === '' ? 'native / builtins (JSON, crypto…)' : 'other';
}

function analyse(
  profile: CpuProfile,
  from: number,
  to: number,
): {
  rows: Array<[string, number]>;
  categories: Array<[string, number]>;
  busyUs: number;
  windowUs: number;
  cut: boolean;
} {
  const categories = new Map<string, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let t = profile.startTime;
  let inWindow = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    if (t >= from && t <= to) inWindow++;
  }
  const cut = inWindow > 100;
  t = profile.startTime;
  let busy = 0;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    t += profile.timeDeltas[i];
    if (cut && (t < from || t > to)) continue;
    const node = byId.get(profile.samples[i]);
    if (!node) continue;
    const f = node.callFrame;
    const file =
      f.url === ''
        ? ''
        : f.url
            .replace(/^.*node_modules\//, '')
            .replace(/^.*\/dist\//, 'dist/')
            .replace(/^file:\/\//, '');
    const key = `${f.functionName || '(anonymous)'} ${file}${file ? `:${f.lineNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
    if (f.functionName !== '(idle)') {
      busy += dt;
      const c = category(f);
      categories.set(c, (categories.get(c) ?? 0) + dt);
    }
  }
  const rows = [...self.entries()]
    .filter(([k]) => !k.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25);
  return { rows, categories: [...categories.entries()].sort((a, b) => b[1] - a[1]), busyUs: busy, windowUs: total, cut };
}

interface Build {
  readonly label: string;
  readonly root: string;
  readonly port: number;
  api?: ChildProcess;
}

/** CPU seconds (user + system) of a process's main thread and of all its threads, from /proc. */
function cpuSeconds(pid: number): { main: number; all: number } {
  const ticks = (path: string): number => {
    const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  return { main: ticks(`/proc/${pid}/task/${pid}/stat`) / 100, all: ticks(`/proc/${pid}/stat`) / 100 };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL ?? 'postgresql://root@127.0.0.1:5432/postgres';
  const dbName = `bench_rp_${randomBytes(4).toString('hex')}`;
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  const work = join(tmpdir(), `request-path-${process.pid}`);
  mkdirSync(work, { recursive: true });
  const rows = gaussians(ROWS * DIM, 1);
  const queries = gaussians(64 * DIM, 2);
  writeFileSync(join(work, 'rows.f32'), new Uint8Array(rows.buffer));
  writeFileSync(join(work, 'queries.f32'), new Uint8Array(queries.buffer));
  const bodies = Array.from({ length: 64 }, (_, i) =>
    JSON.stringify({ vector: Array.from(queries.subarray(i * DIM, (i + 1) * DIM)), n: 10 }),
  );
  const builds: Build[] = [];
  for (const arg of process.argv.slice(3).length > 0 ? process.argv.slice(3) : [`this=${ROOT}`]) {
    const [label, root] = arg.includes('=') ? (arg.split('=') as [string, string]) : [basename(arg), arg];
    builds.push({ label, root, port: await freePort() });
  }
  const rounds = Number(process.env.BENCH_RP_ROUNDS ?? 3);

  let bare: ChildProcess | undefined;
  await queryAt(adminUrl, `CREATE DATABASE ${dbName}`);
  try {
    await migrate(dbUrl.toString());
    const envOf = (b: Build): NodeJS.ProcessEnv => ({
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: dbUrl.toString(),
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      VECTOR_PORT: String(b.port),
      LOG_LEVEL: 'error',
      VECTOR_RATE_LIMIT_PER_MINUTE: '100000000',
      // No snapshot written during a load (its export and write would be measured as the route's work).
      VECTOR_SNAPSHOTS: 'false',
    });
    const baseOf = (b: Build): string => `http://127.0.0.1:${b.port}`;
    const first = builds[0];
    first.api = startApi(first.root, envOf(first));
    await waitReady(baseOf(first));
    const { token } = (await call('POST', `${baseOf(first)}/admin/v1/tokens`, { name: 'bench' }, 'dev-admin-key')) as {
      token: string;
    };
    await call('POST', `${baseOf(first)}/v1/tables`, { name: 'bench', dimension: DIM, index: 'hnsw' }, token);
    for (let start = 0; start < ROWS; start += 1000) {
      const batch = [];
      for (let r = start; r < Math.min(ROWS, start + 1000); r++)
        batch.push({ id: `v${r}`, embedding: Array.from(rows.subarray(r * DIM, (r + 1) * DIM)) });
      await call('POST', `${baseOf(first)}/v1/tables/bench/insert`, { rows: batch }, token);
    }
    for (const b of builds) {
      b.api ??= startApi(b.root, envOf(b));
      await waitReady(baseOf(b));
      await waitTable(baseOf(b), token);
    }

    bare = fork(
      join(ROOT, 'bench/ts-run.mjs'),
      [join(ROOT, 'bench/vector/bare-server.ts'), join(work, 'rows.f32'), String(DIM), join(work, 'queries.f32')],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
    );
    const bareInfo = await new Promise<{ port: number; engineQps: number }>((resolve, reject) => {
      bare?.once('message', (m) => resolve(m as { port: number; engineQps: number }));
      bare?.once('exit', (code) => reject(new Error(`bare server exited with code ${code}`)));
    });
    const auth = { authorization: `Bearer ${token}` };
    const lines: string[] = [
      `# request path: ${ROWS} × ${DIM} hnsw (seeded Gaussian), n = 10, 64 bodies, ${SECONDS} s per load after 1 s warm-up, ${rounds} interleaved rounds (median), load average before ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    ];
    const log = (line: string): void => {
      lines.push(line);
      process.stdout.write(`${line}\n`);
    };
    // Interleaved: each round loads every build and the bare route once per connection count.
    const results = new Map<string, { rps: number[]; p50: number[]; mainUs: number[]; allUs: number[] }>();
    const slot = (k: string) => {
      let r = results.get(k);
      if (!r) results.set(k, (r = { rps: [], p50: [], mainUs: [], allUs: [] }));
      return r;
    };
    for (let round = 0; round < rounds; round++) {
      for (const c of [1, 8]) {
        const order = [...builds.map((b) => b.label), 'bare'];
        for (let i = 0; i < round % order.length; i++) order.push(order.shift() as string);
        for (const who of order) {
          const b = builds.find((x) => x.label === who);
          const url = b ? `${baseOf(b)}/v1/tables/bench/query` : `http://127.0.0.1:${bareInfo.port}/query`;
          const pid = b?.api?.pid;
          const warmOptions = { url, method: 'POST', headers: { 'content-type': 'application/json', ...(b ? auth : {}) } };
          await autocannon({
            ...warmOptions,
            requests: bodies.map((body) => ({ method: 'POST', body })),
            connections: c,
            duration: 1,
          });
          const before = pid ? cpuSeconds(pid) : undefined;
          const r = await load(url, bodies, b ? auth : {}, c, SECONDS, false);
          const after = pid ? cpuSeconds(pid) : undefined;
          const s = slot(`${who}@${c}`);
          s.rps.push(r.rps);
          s.p50.push(r.p50);
          if (before && after && r.total > 0) {
            s.mainUs.push(((after.main - before.main) * 1e6) / r.total);
            s.allUs.push(((after.all - before.all) * 1e6) / r.total);
          }
          if (r.errors > 0) log(`  ${who} at ${c}: ${r.errors} errors`);
        }
      }
      log(`  round ${round + 1} done, load average ${loadavg()[0].toFixed(2)}`);
    }
    log('| connections | server | req/s (median) | ÷ bare | p50 ms | main-thread CPU µs/req | all threads CPU µs/req |');
    log('| ---: | --- | ---: | ---: | ---: | ---: | ---: |');
    for (const c of [1, 8]) {
      const bareRps = median(slot(`bare@${c}`).rps);
      for (const who of [...builds.map((b) => b.label), 'bare']) {
        const s = slot(`${who}@${c}`);
        log(
          `| ${c} | ${who} | ${median(s.rps).toFixed(0)} | ${(median(s.rps) / bareRps).toFixed(2)} | ${median(s.p50)} | ${s.mainUs.length ? median(s.mainUs).toFixed(0) : '–'} | ${s.allUs.length ? median(s.allUs).toFixed(0) : '–'} |`,
        );
      }
      log(
        `  (each: ${slot(`bare@${c}`).rps.length} runs; req/s per run ${builds
          .map(
            (b) =>
              `${b.label} ${slot(`${b.label}@${c}`)
                .rps.map((x) => x.toFixed(0))
                .join('/')}`,
          )
          .join(', ')}, bare ${slot(`bare@${c}`)
          .rps.map((x) => x.toFixed(0))
          .join('/')})`,
      );
    }

    // Profiles: each build again under --cpu-prof, 8 connections, cut to the load window.
    if (process.env.BENCH_RP_PROFILE !== '0') {
      for (const b of builds) {
        await stopChild(b.api);
        const profileDir = join(work, `profile-${b.label}`);
        rmSync(profileDir, { recursive: true, force: true });
        b.api = startApi(b.root, envOf(b), profileDir);
        await waitReady(baseOf(b));
        await waitTable(baseOf(b), token);
        await load(`${baseOf(b)}/v1/tables/bench/query`, bodies, auth, 8, 2);
        const from = Number(process.hrtime.bigint() / 1000n);
        const p = await load(`${baseOf(b)}/v1/tables/bench/query`, bodies, auth, 8, SECONDS, false);
        const to = Number(process.hrtime.bigint() / 1000n);
        await stopChild(b.api);
        b.api = undefined;
        let best: ReturnType<typeof analyse> | undefined;
        for (const f of readdirSync(profileDir).filter((x) => x.endsWith('.cpuprofile'))) {
          const text = readFileSync(join(profileDir, f), 'utf8');
          if (!text.includes('fastify')) continue;
          const r = analyse(JSON.parse(text) as CpuProfile, from, to);
          if (!best || r.busyUs > best.busyUs) best = r;
        }
        log(
          `## profile ${b.label}: 8 connections, ${p.rps.toFixed(0)} req/s under the profiler, ${p.total} requests in the window (cut: ${best?.cut})`,
        );
        if (best) {
          log(
            `main thread busy ${((100 * best.busyUs) / best.windowUs).toFixed(1)} % of the window; ${(best.busyUs / p.total).toFixed(0)} µs per request`,
          );
          log('| share of busy main-thread time | µs per request | where |');
          log('| ---: | ---: | --- |');
          for (const [k, us] of best.categories) {
            if (us / best.busyUs >= 0.005)
              log(`| ${((100 * us) / best.busyUs).toFixed(1)} % | ${(us / p.total).toFixed(0)} | ${k} |`);
          }
          log('| self % of busy | self ms | frame |');
          log('| ---: | ---: | --- |');
          for (const [k, us] of best.rows)
            log(`| ${((100 * us) / best.busyUs).toFixed(1)} | ${(us / 1000).toFixed(0)} | \`${k}\` |`);
        }
      }
    }
    log(
      `load average after ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; work files in ${work}`,
    );
    writeFileSync(join(tmpdir(), `request-path-${process.pid}.md`), `${lines.join('\n')}\n`);
  } finally {
    for (const b of builds) await stopChild(b.api);
    await stopChild(bare);
    await queryAt(adminUrl, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
