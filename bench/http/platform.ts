/**
 * The platform under test, started exactly as `npm start` starts it: a build when dist/ is
 * missing or older than the sources, then `node dist/scripts/dev-start.js` with a fresh
 * database (PostgreSQL at 127.0.0.1:5432 when it answers, else dev-start's embedded one),
 * free loopback ports, a private queue prefix and raised rate limits. `stop()` sends SIGINT
 * to dev-start (which drains the three services) and then removes the database and the
 * queue prefix's Redis keys; it is safe to call more than once and after a failure.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';

export const ROOT = join(__dirname, '..', '..');
export const DATA_DIR = join(ROOT, '.data', 'bench-http');

export type Log = (line: string) => void;

export interface PlatformOptions {
  readonly log: Log;
  /** Extra node flags for dev-start; its fork()ed services inherit them (e.g. --cpu-prof). */
  readonly nodeFlags?: readonly string[];
  /**
   * Wraps the database URL the services get (the profile run puts its SQL-counting proxy
   * in front); receives the real URL, returns the one to hand to dev-start.
   */
  readonly wrapDatabaseUrl?: (url: string) => Promise<string>;
}

export interface Platform {
  readonly offers: string;
  readonly vector: string;
  readonly payments: string;
  readonly adminKey: string;
  /** 'local PostgreSQL 15.x (database bench_http_...)' or 'embedded PostgreSQL'. */
  readonly database: string;
  /** Real URL of the benchmark's database (undefined with the embedded PostgreSQL). */
  readonly databaseUrl: string | undefined;
  readonly logFile: string;
  /** PIDs of dev-start's children (the three services), found through /proc. */
  servicePids(): number[];
  /** PIDs of the PostgreSQL backends connected to the benchmark's database (none with the embedded one). */
  postgresPids(): Promise<number[]>;
  /** Database connections of each service's pool (DATABASE_POOL_SIZE, default 10). */
  readonly poolSize: number;
  /**
   * One more instance of a service, API only (ROLE=api: no workers, no pollers), on the same
   * database, Redis and queue prefix, with its database traffic sent to `databaseUrl` (the
   * SQL trace); the bench stops it when done with it.
   */
  startExtra(service: 'offers-api' | 'vector-api' | 'payments-api', databaseUrl: string): Promise<ExtraService>;
  stop(): Promise<void>;
}

export interface ExtraService {
  readonly base: string;
  stop(): Promise<void>;
}

const DB_PREFIX = 'bench_http_';
const QUEUE_PREFIX = 'bench-http-';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGTERM a child process, SIGKILL it after 5 s; resolves when it is gone (or was never started). */
export function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function newestMtime(dir: string, pattern: RegExp): number {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'generated') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path, pattern));
    else if (pattern.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** `npm run build` unless every entry point in dist/ is newer than every source file. */
export function buildIfNeeded(log: Log): void {
  const outputs = [
    'dist/scripts/dev-start.js',
    'dist/apps/offers-api/src/main.js',
    'dist/apps/vector-api/src/main.js',
    'dist/apps/payments-api/src/main.js',
  ].map((p) => join(ROOT, p));
  const oldestOutput = Math.min(...outputs.map((p) => (existsSync(p) ? statSync(p).mtimeMs : 0)));
  const newestSource = Math.max(
    ...['apps', 'libs', 'scripts'].map((d) => newestMtime(join(ROOT, d), /\.ts$/)),
    ...['tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package.json'].map((f) => statSync(join(ROOT, f)).mtimeMs),
  );
  if (oldestOutput > newestSource) {
    log('dist/ is up to date: no build');
    return;
  }
  log('building (npm run build)...');
  const res = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (res.status !== 0) throw new Error(`npm run build failed (exit ${res.status ?? res.signal})`);
}

/** True for a running process; a zombie (killed, not yet reaped) counts as gone. */
function pidAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    if (existsSync('/proc/self/stat')) return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function pgQuery(url: string, text: string): Promise<Array<Record<string, unknown>>> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return (await client.query(text)).rows as Array<Record<string, unknown>>;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Databases and queue prefixes are named `..._<pid>_<hex>`: drop those a killed run left behind. */
async function dropOrphanDatabases(adminUrl: string, log: Log): Promise<void> {
  const rows = await pgQuery(adminUrl, `SELECT datname FROM pg_database WHERE datname LIKE '${DB_PREFIX}%'`);
  for (const { datname } of rows) {
    const pid = Number(/^bench_http_(\d+)_/.exec(String(datname))?.[1]);
    if (!Number.isInteger(pid) || pidAlive(pid)) continue;
    await pgQuery(adminUrl, `DROP DATABASE IF EXISTS "${String(datname)}" WITH (FORCE)`).catch(() => undefined);
    log(`dropped ${String(datname)}, left behind by an interrupted run`);
  }
}

async function deleteRedisKeys(redisUrl: string, ownPrefix: string): Promise<number> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on('error', () => undefined);
  let deleted = 0;
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${QUEUE_PREFIX}*`, 'COUNT', 1000);
      cursor = next;
      const mine = keys.filter((k) => {
        if (k.startsWith(`${ownPrefix}:`)) return true;
        const pid = Number(/^bench-http-(\d+)-/.exec(k)?.[1]);
        return Number.isInteger(pid) && !pidAlive(pid);
      });
      if (mine.length > 0) deleted += await redis.del(...mine);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

function childPids(pid: number): number[] {
  try {
    return readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number)
      .filter((p) => {
        try {
          const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
          // pid (comm) state ppid ...; comm may contain spaces, so split after the last ')'.
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
        } catch {
          return false;
        }
      });
  } catch {
    return [];
  }
}

/**
 * Each run records its dev-start in run-<benchmark pid>.json; a run whose benchmark process
 * is gone (killed with SIGKILL, say) left that platform running: stop its process group.
 */
function stopOrphanPlatforms(log: Log): void {
  for (const name of readdirSync(DATA_DIR).filter((f) => /^run-\d+\.json$/.test(f))) {
    const file = join(DATA_DIR, name);
    try {
      const { bench, devStart } = JSON.parse(readFileSync(file, 'utf8')) as { bench: number; devStart: number };
      if (pidAlive(bench)) continue;
      if (pidAlive(devStart) && readFileSync(`/proc/${devStart}/cmdline`, 'utf8').includes('dev-start.js')) {
        process.kill(-devStart, 'SIGKILL');
        log(`killed dev-start ${devStart} and its services, left behind by an interrupted run`);
      }
    } catch {
      // unreadable or already gone
    }
    rmSync(file, { force: true });
  }
}

export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  const { log } = options;
  mkdirSync(DATA_DIR, { recursive: true });
  stopOrphanPlatforms(log);
  const runFile = join(DATA_DIR, `run-${process.pid}.json`);
  const tag = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const queuePrefix = `${QUEUE_PREFIX}${tag.replace('_', '-')}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const pgAdminUrl = process.env.BENCH_HTTP_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const adminKey = randomBytes(24).toString('base64url');
  const jwtSecret = randomBytes(32).toString('base64url');
  const [offersPort, vectorPort, paymentsPort] = [await freePort(), await freePort(), await freePort()];

  let databaseUrl: string | undefined;
  let databaseName: string | undefined;
  let database = 'embedded PostgreSQL (dev-start, .data/postgres, database platform)';
  let child: ChildProcess | undefined;
  let stopped = false;
  const logFile = join(DATA_DIR, 'platform.log');

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (child && child.exitCode === null && child.signalCode === null) {
      const proc = child;
      log('stopping the platform (SIGINT to dev-start)...');
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      proc.kill('SIGINT');
      const clean = await Promise.race([exited.then(() => true), sleep(30_000).then(() => false)]);
      if (!clean) {
        log('dev-start did not exit within 30 s: killing its process group');
        try {
          process.kill(-(proc.pid ?? 0), 'SIGKILL');
        } catch {
          // already gone
        }
        await Promise.race([exited, sleep(5_000)]);
      } else {
        log(`dev-start exited (code ${proc.exitCode ?? proc.signalCode})`);
      }
    }
    rmSync(runFile, { force: true });
    if (databaseName) {
      await pgQuery(pgAdminUrl, `DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`).then(
        () => log(`dropped database ${databaseName}`),
        (err: unknown) => log(`could not drop ${databaseName}: ${String(err)}`),
      );
    }
    await deleteRedisKeys(redisUrl, queuePrefix).then(
      (n) => log(`deleted ${n} Redis keys of queue prefix ${queuePrefix}`),
      (err: unknown) => log(`could not clean Redis keys: ${String(err)}`),
    );
  };

  try {
    if (process.env.BENCH_HTTP_EMBEDDED !== '1') {
      try {
        const version = (await pgQuery(pgAdminUrl, 'SHOW server_version')) as Array<{ server_version?: string }>;
        await dropOrphanDatabases(pgAdminUrl, log);
        databaseName = `${DB_PREFIX}${tag}`;
        await pgQuery(pgAdminUrl, `CREATE DATABASE "${databaseName}"`);
        const url = new URL(pgAdminUrl);
        url.pathname = `/${databaseName}`;
        databaseUrl = url.toString();
        database = `PostgreSQL ${version[0]?.server_version ?? '?'} at ${url.host} (fresh database ${databaseName})`;
        log(`created database ${databaseName}`);
      } catch (err) {
        if (databaseName) throw err;
        log(`no PostgreSQL at ${new URL(pgAdminUrl).host} (${String(err)}): dev-start will use its embedded PostgreSQL`);
      }
    }

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // Production settings (config validation requires a real admin key and JWT keys).
      NODE_ENV: 'production',
      ADMIN_API_KEY: adminKey,
      OAUTH_JWT_KEYS: `bench:${jwtSecret}`,
      PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
      HOST: '127.0.0.1',
      OFFERS_PORT: String(offersPort),
      VECTOR_PORT: String(vectorPort),
      PAYMENTS_PORT: String(paymentsPort),
      // production requires each service's public URL (console sign-in links are built from it)
      OFFERS_PUBLIC_URL: `http://127.0.0.1:${offersPort}`,
      VECTOR_PUBLIC_URL: `http://127.0.0.1:${vectorPort}`,
      PAYMENTS_PUBLIC_URL: `http://127.0.0.1:${paymentsPort}`,
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: queuePrefix,
      LOG_LEVEL: process.env.BENCH_HTTP_LOG_LEVEL ?? 'info',
      LOG_FORMAT: 'json',
      // Rate limits out of the way: the benchmark measures throughput, not the limiter's 429s
      // (every request still runs the limiter's Redis script).
      RATE_LIMIT_STARTER: '1000000000',
      RATE_LIMIT_GROWTH: '1000000000',
      RATE_LIMIT_ENTERPRISE: '1000000000',
      VECTOR_RATE_LIMIT_PER_MINUTE: '1000000000',
      PAYMENTS_RATE_LIMIT_PER_MINUTE: '1000000000',
    };
    delete env.DATABASE_URL;
    delete env.ROLE;
    if (databaseUrl) env.DATABASE_URL = options.wrapDatabaseUrl ? await options.wrapDatabaseUrl(databaseUrl) : databaseUrl;

    const out = openSync(logFile, 'w');
    try {
      child = spawn(process.execPath, [...(options.nodeFlags ?? []), join(ROOT, 'dist', 'scripts', 'dev-start.js')], {
        cwd: ROOT,
        env,
        // The services inherit these descriptors: their log lines go straight to the file.
        stdio: ['ignore', out, out],
        // Own process group: a Ctrl-C in the terminal reaches only the benchmark, which then
        // stops the platform in order.
        detached: true,
      });
    } finally {
      closeSync(out);
    }
    writeFileSync(runFile, JSON.stringify({ bench: process.pid, devStart: child.pid }));
    log(`dev-start pid ${child.pid}; logs in ${logFile.slice(ROOT.length + 1)}`);
    const proc = child;
    const exited = new Promise<never>((_, reject) =>
      proc.once('exit', (code, signal) => reject(new Error(`dev-start exited (${signal ?? `code ${code}`}); see ${logFile}`))),
    );
    exited.catch(() => undefined);
    const bases = [offersPort, vectorPort, paymentsPort].map((p) => `http://127.0.0.1:${p}`);
    const ready = (async () => {
      const deadline = Date.now() + 120_000;
      for (const base of bases) {
        for (;;) {
          try {
            if ((await fetch(`${base}/health/ready`)).status === 200) break;
          } catch {
            // not listening yet
          }
          if (proc.exitCode !== null || proc.signalCode !== null) return;
          if (Date.now() > deadline) throw new Error(`${base}/health/ready did not answer 200 within 120 s; see ${logFile}`);
          await sleep(250);
        }
      }
    })();
    await Promise.race([ready, exited]);
    log(`platform ready: offers ${offersPort}, vector ${vectorPort}, payments ${paymentsPort}`);

    return {
      offers: bases[0] ?? '',
      vector: bases[1] ?? '',
      payments: bases[2] ?? '',
      adminKey,
      database,
      databaseUrl,
      logFile,
      servicePids: () => childPids(proc.pid ?? -1),
      poolSize: Number(env.DATABASE_POOL_SIZE ?? 10),
      startExtra: async (service, url) => {
        const port = await freePort();
        const portVar = { 'offers-api': 'OFFERS_PORT', 'vector-api': 'VECTOR_PORT', 'payments-api': 'PAYMENTS_PORT' }[service];
        const extra = spawn(process.execPath, [join(ROOT, 'dist', 'apps', service, 'src', 'main.js')], {
          cwd: ROOT,
          env: { ...env, DATABASE_URL: url, ROLE: 'api', [portVar]: String(port), LOG_LEVEL: 'warn' },
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        const base = `http://127.0.0.1:${port}`;
        const deadline = Date.now() + 60_000;
        for (;;) {
          try {
            if ((await fetch(`${base}/health/ready`)).status === 200) break;
          } catch {
            // not listening yet
          }
          if (extra.exitCode !== null || Date.now() > deadline) {
            await stopChild(extra);
            throw new Error(`extra ${service} did not become ready at ${base}`);
          }
          await sleep(250);
        }
        return { base, stop: () => stopChild(extra) };
      },
      postgresPids: async () => {
        if (!databaseName) return [];
        const rows = await pgQuery(pgAdminUrl, `SELECT pid FROM pg_stat_activity WHERE datname = '${databaseName}'`);
        return rows.map((r) => Number(r.pid));
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
