/**
 * The vector-api processes of the scale benchmark: the built service
 * (dist/apps/vector-api/src/main.js) started directly with node, so its pid is the process
 * whose RSS is measured; each in its own process group, logs to .data/bench-scale/<name>.log.
 * A scratch database per set (created, migrated with libs/platform's migrate(), dropped at
 * the end). Every child and database is recorded in run-<bench pid>.json: a later run stops
 * and drops what a killed run (SIGKILL, OOM) left behind. HTTP helpers with a timeout on
 * every request.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrate } from '@app/platform';
import { Client } from 'pg';
import { freePort } from '../http/platform';

export const ROOT = join(__dirname, '..', '..');
export const DATA_DIR = join(ROOT, '.data', 'bench-scale');
export const MAIN_JS = join(ROOT, 'dist', 'apps', 'vector-api', 'src', 'main.js');

export type Log = (line: string) => void;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const DB_PREFIX = 'bench_scale_';
const PG_ADMIN_URL =
  process.env.BENCH_SCALE_PG_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

// ---------------------------------------------------------------------------------------
// HTTP

export class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export interface HttpResponse {
  readonly status: number;
  readonly json: unknown;
}

/** One request with a deadline; the body is sent as is when it is a string. */
export async function request(
  method: string,
  url: string,
  options: { body?: unknown; token?: string; timeoutMs?: number } = {},
): Promise<HttpResponse> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method,
      headers: {
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      },
      body:
        options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await res.text();
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError')
      throw new HttpError(`${method} ${url}: no answer within ${timeoutMs} ms`, 0);
    throw new HttpError(`${method} ${url}: ${(err as Error).message}`, 0);
  }
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: keep the text for the error message
  }
  return { status: res.status, json };
}

export async function expectOk(
  method: string,
  url: string,
  options: { body?: unknown; token?: string; timeoutMs?: number } = {},
): Promise<unknown> {
  const res = await request(method, url, options);
  if (res.status >= 300) {
    throw new HttpError(`${method} ${url} → ${res.status}: ${JSON.stringify(res.json).slice(0, 300)}`, res.status);
  }
  return res.json;
}

// ---------------------------------------------------------------------------------------
// Bookkeeping of children and databases (for cleanup after a crash or Ctrl-C)

interface RunFile {
  bench: number;
  children: number[];
  databases: string[];
}

const runFile = join(DATA_DIR, `run-${process.pid}.json`);
const run: RunFile = { bench: process.pid, children: [], databases: [] };
const live = new Set<ChildProcess>();

function saveRun(): void {
  mkdirSync(DATA_DIR, { recursive: true });
  writeFileSync(runFile, JSON.stringify(run));
}

function pidAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function pgQuery(url: string, text: string): Promise<Array<Record<string, unknown>>> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query(text)).rows as Array<Record<string, unknown>>;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Stops the services and drops the databases that runs killed without cleanup left behind. */
export async function cleanOrphans(log: Log): Promise<void> {
  mkdirSync(DATA_DIR, { recursive: true });
  for (const name of readdirSync(DATA_DIR).filter((f) => /^run-\d+\.json$/.test(f))) {
    const file = join(DATA_DIR, name);
    try {
      const old = JSON.parse(readFileSync(file, 'utf8')) as RunFile;
      if (old.bench === process.pid || pidAlive(old.bench)) continue;
      for (const pid of old.children) {
        if (pidAlive(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(MAIN_JS)) {
          try {
            process.kill(-pid, 'SIGKILL');
          } catch {
            process.kill(pid, 'SIGKILL');
          }
          log(`killed vector-api ${pid}, left behind by an interrupted run`);
        }
      }
    } catch {
      // unreadable or already gone
    }
    rmSync(file, { force: true });
  }
  const rows = await pgQuery(PG_ADMIN_URL, `SELECT datname FROM pg_database WHERE datname LIKE '${DB_PREFIX}%'`);
  for (const { datname } of rows) {
    const pid = Number(/^bench_scale_(\d+)_/.exec(String(datname))?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || pidAlive(pid)) continue;
    await pgQuery(PG_ADMIN_URL, `DROP DATABASE IF EXISTS "${String(datname)}" WITH (FORCE)`).catch(() => undefined);
    log(`dropped ${String(datname)}, left behind by an interrupted run`);
  }
}

/** SIGKILL to every child's process group (synchronous: usable in an 'exit' handler). */
export function killAllNow(): void {
  for (const child of live) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

/** Drops the databases this run created and forgets the run file (after a normal end or Ctrl-C). */
export async function dropOwnDatabases(log: Log): Promise<void> {
  for (const db of [...run.databases]) await dropDatabase(db, log);
  rmSync(runFile, { force: true });
}

/**
 * Runs a benchmark's main: Ctrl-C or SIGTERM stops the services it started and drops its
 * databases; so does a failure; the exit code says which (0, 1, 130).
 */
export function runBenchmark(name: string, main: () => Promise<void>, log: Log): void {
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping the services and dropping the databases`);
    killAllNow();
    void Promise.race([dropOwnDatabases(log), sleep(15_000)]).finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', killAllNow);
  main().then(
    async () => {
      await dropOwnDatabases(log);
      process.exit(0);
    },
    async (err: unknown) => {
      process.stderr.write(`${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      killAllNow();
      await Promise.race([dropOwnDatabases(log), sleep(15_000)]);
      process.exit(1);
    },
  );
}

// ---------------------------------------------------------------------------------------
// Databases

export async function createDatabase(log: Log): Promise<{ name: string; url: string; server: string }> {
  const version = (await pgQuery(PG_ADMIN_URL, 'SHOW server_version'))[0]?.server_version as string | undefined;
  const name = `${DB_PREFIX}${process.pid}_${randomBytes(3).toString('hex')}`;
  await pgQuery(PG_ADMIN_URL, `CREATE DATABASE "${name}"`);
  run.databases.push(name);
  saveRun();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  log(`database ${name} created and migrated`);
  return { name, url: url.toString(), server: `PostgreSQL ${version ?? '?'} at ${url.host}` };
}

export async function dropDatabase(name: string, log: Log): Promise<void> {
  await pgQuery(PG_ADMIN_URL, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).then(
    () => log(`database ${name} dropped`),
    (err: unknown) => log(`could not drop ${name}: ${String(err)}`),
  );
  run.databases = run.databases.filter((d) => d !== name);
  saveRun();
}

// ---------------------------------------------------------------------------------------
// vector-api processes

export interface ServiceOptions {
  readonly databaseUrl: string;
  readonly adminKey: string;
  /** Log file name under .data/bench-scale/ (appended to). */
  readonly logName: string;
  readonly log: Log;
  /** Node options before main.js (e.g. --trace-gc, --cpu-prof); V8 flags cannot go through NODE_OPTIONS. */
  readonly nodeArgs?: readonly string[];
  /** Extra environment of the service (after the defaults). */
  readonly env?: Readonly<Record<string, string>>;
}

export class VectorService {
  private exited = false;
  private constructor(
    readonly child: ChildProcess,
    readonly base: string,
    readonly spawnedAt: number,
    readonly logFile: string,
    /** Size of the (appended) log file when this process was spawned: its own lines follow. */
    readonly logStart: number,
  ) {
    child.once('exit', () => {
      this.exited = true;
      live.delete(child);
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get alive(): boolean {
    return !this.exited && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Spawns the built vector-api; resolves once it has a pid (not when it listens: see `waitListening`). */
  static async spawn(options: ServiceOptions): Promise<VectorService> {
    if (!existsSync(MAIN_JS)) throw new Error(`${MAIN_JS} is missing: run npm run build first`);
    const port = await freePort();
    const logFile = join(DATA_DIR, options.logName);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: options.databaseUrl,
      REDIS_URL,
      ADMIN_API_KEY: options.adminKey,
      OAUTH_JWT_KEYS: `bench:${randomBytes(32).toString('base64url')}`,
      HOST: '127.0.0.1',
      VECTOR_PORT: String(port),
      // production requires it (console sign-in links are built from it)
      VECTOR_PUBLIC_URL: `http://127.0.0.1:${port}`,
      QUEUE_PREFIX: `bench-scale-${process.pid}`,
      LOG_LEVEL: process.env.BENCH_SCALE_LOG_LEVEL ?? 'warn',
      LOG_FORMAT: 'json',
      // The limiter still runs on every request; its 429s would only measure the limit.
      VECTOR_RATE_LIMIT_PER_MINUTE: '1000000000',
      ...options.env,
    };
    delete env.ROLE;
    mkdirSync(DATA_DIR, { recursive: true });
    const logStart = existsSync(logFile) ? statSync(logFile).size : 0;
    const out = openSync(logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, [...(options.nodeArgs ?? []), MAIN_JS], {
        cwd: ROOT,
        env,
        stdio: ['ignore', out, out],
        // Own process group: Ctrl-C reaches the benchmark only, which then stops it; and a
        // kill of the group also ends any process it started.
        detached: true,
      });
    } finally {
      closeSync(out);
    }
    const spawnedAt = performance.now();
    live.add(child);
    if (child.pid !== undefined) {
      run.children.push(child.pid);
      saveRun();
    }
    options.log(`vector-api pid ${child.pid} on port ${port}; log ${logFile.slice(ROOT.length + 1)}`);
    return new VectorService(child, `http://127.0.0.1:${port}`, spawnedAt, logFile, logStart);
  }

  /** Bytes in the service's log so far (a phase's GC trace lies between two readings). */
  logBytes(): number {
    try {
      return statSync(this.logFile).size;
    } catch {
      return 0;
    }
  }

  /** Seconds since spawn. */
  sinceSpawn(): number {
    return (performance.now() - this.spawnedAt) / 1000;
  }

  /** Waits for GET /health/live to answer 200; returns the seconds since spawn. */
  async waitListening(timeoutS: number): Promise<number> {
    const deadline = performance.now() + timeoutS * 1000;
    for (;;) {
      if (!this.alive) throw new Error(`vector-api ${this.pid} exited before listening; see ${this.logFile}`);
      try {
        if ((await request('GET', `${this.base}/health/live`, { timeoutMs: 2_000 })).status === 200) return this.sinceSpawn();
      } catch {
        // not listening yet
      }
      if (performance.now() > deadline) throw new Error(`vector-api did not listen within ${timeoutS} s; see ${this.logFile}`);
      await sleep(100);
    }
  }

  /** VmRSS and VmHWM of the process, in bytes. */
  memory(): { rss: number; hwm: number } {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  }

  /** Median VmRSS over `samples` readings `everyMs` apart (the heap breathes between them). */
  async steadyRss(samples = 5, everyMs = 300): Promise<number> {
    const values: number[] = [];
    for (let i = 0; i < samples; i++) {
      values.push(this.memory().rss);
      if (i + 1 < samples) await sleep(everyMs);
    }
    values.sort((a, b) => a - b);
    return values[Math.floor(values.length / 2)];
  }

  /**
   * SIGTERM (graceful shutdown), SIGKILL to the process group after `graceS`. Returns the
   * seconds until exit and how it ended.
   */
  async stop(graceS = 30): Promise<{ seconds: number; how: string }> {
    const started = performance.now();
    if (!this.alive) return { seconds: 0, how: `already exited (${this.child.exitCode ?? this.child.signalCode})` };
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const clean = await Promise.race([exited.then(() => true), sleep(graceS * 1000).then(() => false)]);
    if (!clean) {
      try {
        process.kill(-this.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await Promise.race([exited, sleep(5_000)]);
      return { seconds: (performance.now() - started) / 1000, how: `SIGKILL after ${graceS} s without exit` };
    }
    return {
      seconds: (performance.now() - started) / 1000,
      how: `exited (${this.child.exitCode !== null ? `code ${this.child.exitCode}` : this.child.signalCode})`,
    };
  }
}
