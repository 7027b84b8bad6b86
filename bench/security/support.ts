/**
 * What the security benchmarks share: the checkout under test (`--root`), a fresh migrated
 * database, one service started from that checkout's sources on a free loopback port, and
 * small helpers (admin calls, CPU time, quantiles).
 *
 * A service started with NODE_ENV=production gets what production requires: its public URL
 * (`<SERVICE>_PUBLIC_URL`, its own base) and, for payments-api, an idempotency encryption
 * key. An older checkout that does not know these variables ignores them.
 */
import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { migrate } from '../../libs/platform/src/database/migrator';
import { freePort } from '../../scripts/local-infra';
import { queryAt } from '../../test/support/database';

/** The PostgreSQL server's admin URL (DATABASE_URL or the local default). */
export const adminUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
/** The Redis URL handed to the service (REDIS_URL or the local default). */
export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A line-writer prefixed with `[name]`. */
export const logger =
  (name: string) =>
  (line: string): void => {
    process.stdout.write(`[${name}] ${line}\n`);
  };

/** The checkout under test: `--root <dir>` on the command line, or this one. */
export function benchRoot(argv: readonly string[] = process.argv): string {
  const rootArg = argv.indexOf('--root');
  return resolve(rootArg > 0 ? (argv[rootArg + 1] ?? '.') : join(__dirname, '..', '..'));
}

/** Logs `code under test: <root> at <short commit>`. */
export function logCodeUnderTest(root: string, log: (line: string) => void): void {
  const commit = execSync('git rev-parse --short HEAD', { cwd: root, encoding: 'utf8' }).trim();
  log(`code under test: ${root} at ${commit}`);
}

export interface BenchDatabase {
  readonly name: string;
  /** The database's URL (the admin URL with its name as path). */
  readonly url: string;
  drop(): Promise<void>;
}

/** `CREATE DATABASE <prefix>_<random>` and migrates it with `root`'s migrations. */
export async function createDatabase(prefix: string, root: string): Promise<BenchDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await queryAt(adminUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await migrate(url.toString(), { dir: join(root, 'prisma', 'migrations') });
  return {
    name,
    url: url.toString(),
    drop: async () => {
      await queryAt(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

export type ServiceName = 'offers-api' | 'vector-api' | 'payments-api';

/** Each service's own variables' prefix (`OFFERS_PORT`, `VECTOR_PUBLIC_URL`, …). */
const ENV_PREFIX: Record<ServiceName, string> = {
  'offers-api': 'OFFERS',
  'vector-api': 'VECTOR',
  'payments-api': 'PAYMENTS',
};

export interface ServiceOptions {
  readonly root: string;
  readonly service: ServiceName;
  readonly nodeEnv: 'production' | 'development';
  readonly databaseUrl: string;
  /** Further variables (ROLE, ADMIN_API_KEY, LOG_LEVEL, …); they override the ones set here. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface Service {
  readonly base: string;
  readonly port: number;
  readonly pid: number;
  readonly child: ChildProcess;
  /** SIGTERM and waits for the exit (nothing if it has exited already). */
  stop(): Promise<void>;
}

/**
 * Starts `apps/<service>/src/main.ts` of `root` (its bench/ts-run.mjs, no build) on a free
 * port of 127.0.0.1 with PATH, NODE_ENV, HOST, `<SERVICE>_PORT`, DATABASE_URL, REDIS_URL and
 * `env` (in production also the public URL, and payments-api's encryption key), and waits
 * up to 60 s for `/health/live`. Stops the process again if it does not come up.
 */
export async function startService(options: ServiceOptions): Promise<Service> {
  const { root, service, nodeEnv } = options;
  const prefix = ENV_PREFIX[service];
  const port = await freePort(0);
  const base = `http://127.0.0.1:${port}`;
  const production: Record<string, string> =
    nodeEnv === 'production'
      ? {
          // production requires it (console sign-in links are built from it)
          [`${prefix}_PUBLIC_URL`]: base,
          ...(service === 'payments-api' ? { PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY: randomBytes(32).toString('base64url') } : {}),
        }
      : {};
  const child = spawn(process.execPath, [join(root, 'bench', 'ts-run.mjs'), join(root, 'apps', service, 'src', 'main.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: nodeEnv,
      HOST: '127.0.0.1',
      [`${prefix}_PORT`]: String(port),
      ...production,
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: redisUrl,
      ...options.env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitLive(child, service, base);
  } catch (err) {
    await stop();
    throw err;
  }
  return { base, port, pid: child.pid ?? 0, child, stop };
}

/** Polls `<base>/health/live` every 100 ms; fails if the process exits or 60 s pass. */
async function waitLive(child: ChildProcess, service: string, base: string): Promise<void> {
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${service} exited (${child.exitCode})`);
    if (i > 600) throw new Error(`${service} did not come up within 60 s`);
    try {
      if ((await fetch(`${base}/health/live`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
}

/** A POST with the admin key (a JSON body if one is given) that must answer 201; returns the parsed answer. */
export type AdminCall = <T>(path: string, body?: unknown) => Promise<T>;

export function adminCaller(base: string, adminKey: string): AdminCall {
  return async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
}

/** utime + stime of `pid` in milliseconds (Linux). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ = 100
}

/** The `q` quantile of `xs` (nearest rank); NaN for none. */
export const quantile = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
};

/**
 * offers-api as the OAuth benchmarks run it: production mode, API role, a fresh signing key,
 * `TRUST_PROXY=127.0.0.1` (so each simulated client address arrives as `X-Forwarded-For`).
 */
export function startOffersApi(root: string, databaseUrl: string, queuePrefix: string, adminKey: string): Promise<Service> {
  return startService({
    root,
    service: 'offers-api',
    nodeEnv: 'production',
    databaseUrl,
    env: {
      ROLE: 'api',
      QUEUE_PREFIX: `${queuePrefix}-${randomBytes(4).toString('hex')}`,
      ADMIN_API_KEY: adminKey,
      OAUTH_JWT_KEYS: `bench:${randomBytes(32).toString('base64url')}`,
      TRUST_PROXY: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
  });
}

/** A token request's status, OAuth `error` and duration. */
export interface TokenAnswer {
  readonly status: number;
  readonly error: string | undefined;
  readonly ms: number;
}

/** One client-credentials request from `address` (X-Forwarded-For). */
export async function tokenRequest(base: string, address: string, clientId: string, secret: string): Promise<TokenAnswer> {
  const started = performance.now();
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString(),
  });
  const body = (await res.json()) as { error?: string };
  return { status: res.status, error: body.error, ms: performance.now() - started };
}

/** The service's `oauth_*` metric lines, logged when there are any. */
export async function logOauthMetrics(base: string, log: (line: string) => void): Promise<void> {
  const lines = (await (await fetch(`${base}/metrics`)).text()).split('\n').filter((l) => l.startsWith('oauth_'));
  if (lines.length > 0) log(`metrics:\n  ${lines.join('\n  ')}`);
}

/** The machine the figures come from: CPUs, memory, Node, load average and the time. */
export function machineLine(): string {
  return (
    `machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, ` +
    `load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; ${new Date().toISOString()}`
  );
}
