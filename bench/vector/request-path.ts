/**
 * The request path of `POST /v1/tables/:table/query` (issue 32, point 3): the built
 * vector-api (dist/apps/vector-api/src/main.js, as `npm start` runs it) against the bare
 * Fastify route of bare-server.ts, in the same run, at 1 and 8 connections; then a CPU
 * profile of vector-api's main thread under the 8-connection load (node --cpu-prof), cut to
 * the load window, with its top frames by self time and the CPU per request.
 *
 *   npm run build && node bench/ts-run.mjs bench/vector/request-path.ts [distRoot] [label]
 *
 * distRoot (default: this repository) is the directory holding dist/ (and node_modules), so
 * two builds can be compared. Data: 20,000 seeded Gaussian 128-d rows (BENCH_RP_ROWS), 64
 * query bodies with n = 10, 5 s per load (BENCH_RP_SECONDS).
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { migrate } from '@app/platform';
import { freePort, stopChild } from '../http/platform';
import { queryAt } from '../../test/support/database';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(__filename)('autocannon') as Autocannon;

const ROOT = join(__dirname, '..', '..');
const distRoot = process.argv[3] ?? ROOT;
const label = process.argv[4] ?? basename(distRoot);
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

function startApi(env: NodeJS.ProcessEnv, profileDir?: string): ChildProcess {
  const args = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  return spawn(process.execPath, [...args, join(distRoot, 'dist/apps/vector-api/src/main.js')], {
    cwd: distRoot,
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
function analyse(profile: CpuProfile, from: number, to: number): { rows: Array<[string, number]>; busyUs: number; windowUs: number; cut: boolean } {
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
    const file = f.url === '' ? '' : f.url.replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, 'dist/').replace(/^file:\/\//, '');
    const key = `${f.functionName || '(anonymous)'} ${file}${file ? `:${f.lineNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
    if (f.functionName !== '(idle)') busy += dt;
  }
  const rows = [...self.entries()]
    .filter(([k]) => !k.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25);
  return { rows, busyUs: busy, windowUs: total, cut };
}

async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL ?? 'postgresql://root@127.0.0.1:5432/postgres';
  const dbName = `bench_rp_${randomBytes(4).toString('hex')}`;
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  const work = join(tmpdir(), `request-path-${label}-${process.pid}`);
  mkdirSync(work, { recursive: true });
  const rows = gaussians(ROWS * DIM, 1);
  const queries = gaussians(64 * DIM, 2);
  writeFileSync(join(work, 'rows.f32'), new Uint8Array(rows.buffer));
  writeFileSync(join(work, 'queries.f32'), new Uint8Array(queries.buffer));
  const bodies = Array.from({ length: 64 }, (_, i) => JSON.stringify({ vector: Array.from(queries.subarray(i * DIM, (i + 1) * DIM)), n: 10 }));

  let api: ChildProcess | undefined;
  let bare: ChildProcess | undefined;
  await queryAt(adminUrl, `CREATE DATABASE ${dbName}`);
  try {
    await migrate(dbUrl.toString());
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: dbUrl.toString(),
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      VECTOR_PORT: String(port),
      LOG_LEVEL: 'error',
      VECTOR_RATE_LIMIT_PER_MINUTE: '100000000',
    };
    api = startApi(env);
    await waitReady(base);
    const { token } = (await call('POST', `${base}/admin/v1/tokens`, { name: 'bench' }, 'dev-admin-key')) as { token: string };
    await call('POST', `${base}/v1/tables`, { name: 'bench', dimension: DIM, index: 'hnsw' }, token);
    for (let start = 0; start < ROWS; start += 1000) {
      const batch = [];
      for (let r = start; r < Math.min(ROWS, start + 1000); r++) batch.push({ id: `v${r}`, embedding: Array.from(rows.subarray(r * DIM, (r + 1) * DIM)) });
      await call('POST', `${base}/v1/tables/bench/insert`, { rows: batch }, token);
    }
    await waitTable(base, token);

    bare = fork(join(ROOT, 'bench/ts-run.mjs'), [join(ROOT, 'bench/vector/bare-server.ts'), join(work, 'rows.f32'), String(DIM), join(work, 'queries.f32')], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const bareInfo = await new Promise<{ port: number; engineQps: number }>((resolve, reject) => {
      bare?.once('message', (m) => resolve(m as { port: number; engineQps: number }));
      bare?.once('exit', (code) => reject(new Error(`bare server exited with code ${code}`)));
    });
    const auth = { authorization: `Bearer ${token}` };
    const lines: string[] = [`# request path, ${label}: ${ROWS} × ${DIM} hnsw, n = 10, ${SECONDS} s per load, load average before ${loadavg().map((l) => l.toFixed(2)).join(' ')}`];
    for (const c of [1, 8]) {
      const a = await load(`${base}/v1/tables/bench/query`, bodies, auth, c);
      const b = await load(`http://127.0.0.1:${bareInfo.port}/query`, bodies, {}, c);
      lines.push(
        `connections ${c}: vector-api ${a.rps.toFixed(0)} req/s p50 ${a.p50} ms (errors ${a.errors}); bare ${b.rps.toFixed(0)} req/s p50 ${b.p50} ms; ratio ${(a.rps / b.rps).toFixed(2)}`,
      );
      process.stdout.write(`${lines[lines.length - 1]}\n`);
    }
    await stopChild(api);
    api = undefined;

    // Profile run: the same service under --cpu-prof, 8 connections.
    const profileDir = join(work, 'profile');
    rmSync(profileDir, { recursive: true, force: true });
    api = startApi(env, profileDir);
    await waitReady(base);
    await waitTable(base, token);
    await load(`${base}/v1/tables/bench/query`, bodies, auth, 8, 2);
    const from = Number(process.hrtime.bigint() / 1000n);
    const p = await load(`${base}/v1/tables/bench/query`, bodies, auth, 8, SECONDS, false);
    const to = Number(process.hrtime.bigint() / 1000n);
    await stopChild(api);
    api = undefined;
    const files = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'));
    // The main thread's profile is the one with the most samples in the window... pick the largest file whose frames include Fastify.
    let best: { file: string; r: ReturnType<typeof analyse> } | undefined;
    for (const f of files) {
      const text = readFileSync(join(profileDir, f), 'utf8');
      if (!text.includes('fastify')) continue;
      const r = analyse(JSON.parse(text) as CpuProfile, from, to);
      if (!best || r.busyUs > best.r.busyUs) best = { file: f, r };
    }
    lines.push(`profile (8 connections, ${p.rps.toFixed(0)} req/s under the profiler, ${p.total} requests in the window, cut=${best?.r.cut})`);
    if (best) {
      const { rows: top, busyUs, windowUs } = best.r;
      lines.push(`main thread busy ${((100 * busyUs) / windowUs).toFixed(1)} % of the window; ${(busyUs / p.total).toFixed(0)} µs CPU per request`);
      lines.push('| self % of busy | self ms | frame |', '| ---: | ---: | --- |');
      for (const [k, us] of top) lines.push(`| ${((100 * us) / busyUs).toFixed(1)} | ${(us / 1000).toFixed(0)} | \`${k}\` |`);
    }
    lines.push(`load average after ${loadavg().map((l) => l.toFixed(2)).join(' ')}; profiles in ${profileDir}`);
    const out = lines.join('\n');
    writeFileSync(join(tmpdir(), `request-path-${label}.md`), `${out}\n`);
    process.stdout.write(`${out}\n`);
  } finally {
    await stopChild(api);
    await stopChild(bare);
    await queryAt(adminUrl, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
