/**
 * Token endpoint under a flood of failed client authentications (issue 14, finding 2): how
 * long a valid token request from another address takes while 300 failed ones from one
 * address are in flight, against one offers-api process on loopback.
 *
 *   node bench/ts-run.mjs bench/security/token-flood.ts                 (this checkout)
 *   node bench/ts-run.mjs bench/security/token-flood.ts --root <dir>    (another checkout, e.g. the code before the fix)
 *   BENCH_FLOOD=300 BENCH_ROUNDS=3 ... to change the load
 *
 * The service runs from the sources of `--root` (its bench/ts-run.mjs, no build), with
 * NODE_ENV=production, ROLE=api, TRUST_PROXY=127.0.0.1 (so each request chooses its client
 * address with X-Forwarded-For) and the default limits. Needs PostgreSQL (DATABASE_URL or
 * postgresql://postgres@127.0.0.1:5432/postgres) and Redis (REDIS_URL or
 * redis://127.0.0.1:6379); it creates and drops its own database and uses its own prefix.
 */
import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { migrate } from '../../libs/platform/src/database/migrator';
import { freePort } from '../../scripts/local-infra';
import { queryAt } from '../../test/support/database';

const FLOOD = Number(process.env.BENCH_FLOOD ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BASELINE = 20;
const adminUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const rootArg = process.argv.indexOf('--root');
const ROOT = resolve(rootArg > 0 ? (process.argv[rootArg + 1] ?? '.') : join(__dirname, '..', '..'));
const ADMIN_KEY = randomBytes(24).toString('hex');

const log = (line: string): void => {
  process.stdout.write(`[token-flood] ${line}\n`);
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** utime + stime of `pid` in milliseconds (Linux). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ = 100
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
};

interface Answer {
  readonly status: number;
  readonly error: string | undefined;
  readonly ms: number;
}

async function tokenRequest(base: string, address: string, clientId: string, secret: string): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString(),
  });
  const body = (await res.json()) as { error?: string };
  return { status: res.status, error: body.error, ms: performance.now() - started };
}

async function main(): Promise<void> {
  const commit = execSync('git rev-parse --short HEAD', { cwd: ROOT, encoding: 'utf8' }).trim();
  log(`code under test: ${ROOT} at ${commit}`);
  const dbName = `token_flood_${randomBytes(4).toString('hex')}`;
  await queryAt(adminUrl, `CREATE DATABASE "${dbName}"`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  await migrate(dbUrl.toString(), { dir: join(ROOT, 'prisma', 'migrations') });

  const port = await freePort(0);
  const base = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  try {
    child = spawn(process.execPath, [join(ROOT, 'bench', 'ts-run.mjs'), join(ROOT, 'apps', 'offers-api', 'src', 'main.ts')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        ROLE: 'api',
        HOST: '127.0.0.1',
        OFFERS_PORT: String(port),
        // production requires it (console sign-in links are built from it)
        OFFERS_PUBLIC_URL: base,
        DATABASE_URL: dbUrl.toString(),
        REDIS_URL: redisUrl,
        QUEUE_PREFIX: `token-flood-${randomBytes(4).toString('hex')}`,
        ADMIN_API_KEY: ADMIN_KEY,
        OAUTH_JWT_KEYS: `bench:${randomBytes(32).toString('base64url')}`,
        TRUST_PROXY: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const pid = child.pid ?? 0;
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`offers-api exited (${child.exitCode})`);
      if (i > 600) throw new Error('offers-api did not come up within 60 s');
      try {
        if ((await fetch(`${base}/health/live`)).ok) break;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }

    const adminCall = async <T>(path: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };
    const partner = await adminCall<{ id: string }>('/admin/v1/partners', { name: 'Bench', tier: 'enterprise' });
    const client = await adminCall<{ client_id: string; client_secret: string }>(`/admin/v1/partners/${partner.id}/clients`);

    // warm-up (JIT, the decoy hash, the database pool)
    for (let i = 0; i < 5; i++) await tokenRequest(base, '203.0.113.1', client.client_id, client.client_secret);
    await tokenRequest(base, '203.0.113.1', 'client_unknown', 'x');

    const quiet: number[] = [];
    for (let i = 0; i < BASELINE; i++) {
      const a = await tokenRequest(base, '203.0.113.2', client.client_id, client.client_secret);
      if (a.status !== 200) throw new Error(`baseline token request answered ${a.status}`);
      quiet.push(a.ms);
    }
    log(
      `quiet: valid token request p50 ${quantile(quiet, 0.5).toFixed(1)} ms, max ${Math.max(...quiet).toFixed(1)} ms (${BASELINE} sequential)`,
    );

    const rows: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const floodAddress = `198.51.100.${round}`;
      const cpuBefore = cpuMs(pid);
      const started = performance.now();
      let inFlight = FLOOD;
      const flood = Array.from({ length: FLOOD }, (_, i) =>
        tokenRequest(base, floodAddress, i % 2 ? client.client_id : `client_unknown_${i}`, `cs_wrong_${i}`).finally(
          () => inFlight--,
        ),
      );
      // Valid requests from another address, one after the other, while the flood is in flight.
      const during: Answer[] = [];
      await sleep(20);
      while (inFlight > 0) {
        const a = await tokenRequest(base, '203.0.113.3', client.client_id, client.client_secret);
        during.push(a);
        if (a.status !== 200) log(`valid request during the flood answered ${a.status} ${a.error ?? ''}`);
      }
      const answers = await Promise.all(flood);
      const floodMs = performance.now() - started;
      const cpu = cpuMs(pid) - cpuBefore;
      const statuses = new Map<string, number>();
      for (const a of answers) {
        const k = `${a.status}${a.error ? ` ${a.error}` : ''}`;
        statuses.set(k, (statuses.get(k) ?? 0) + 1);
      }
      const ms = during.map((a) => a.ms);
      const row =
        `round ${round}: flood of ${FLOOD} answered in ${floodMs.toFixed(0)} ms (${[...statuses].map(([k, n]) => `${n} × ${k}`).join(', ')}), ` +
        `server CPU ${cpu.toFixed(0)} ms; valid requests from another address during it: ${during.length}, ` +
        `${during.filter((a) => a.status === 200).length} × 200, first ${ms[0]?.toFixed(1)} ms, p50 ${quantile(ms, 0.5).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms`;
      log(row);
      rows.push(row);
      await sleep(500);
    }
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const verifications = metrics.split('\n').filter((l) => l.startsWith('oauth_'));
    if (verifications.length > 0) log(`metrics:\n  ${verifications.join('\n  ')}`);
    log(
      `machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, ` +
        `load average ${loadavg()
          .map((x) => x.toFixed(2))
          .join(' ')}; ${new Date().toISOString()}`,
    );
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child?.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await queryAt(adminUrl, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[token-flood] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
