/**
 * The built services as real child processes (`node dist/apps/<app>/src/main.js`), so a
 * fault test can SIGKILL or SIGTERM them. `npm test` builds dist/ first (pretest).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../../scripts/local-infra';
import { waitFor } from '../../support/wait';

export type AppName = 'offers-api' | 'vector-api' | 'payments-api';

const PORT_VARIABLE: Readonly<Record<AppName, string>> = {
  'offers-api': 'OFFERS_PORT',
  'vector-api': 'VECTOR_PORT',
  'payments-api': 'PAYMENTS_PORT',
};

export const ADMIN_KEY = 'fault-test-admin-key';
export const ADMIN = { authorization: `Bearer ${ADMIN_KEY}` } as const;

export function builtMain(app: AppName): string {
  return join(process.cwd(), 'dist', 'apps', app, 'src', 'main.js');
}

export function assertBuilt(): void {
  for (const app of Object.keys(PORT_VARIABLE) as AppName[]) {
    if (!existsSync(builtMain(app))) throw new Error(`${builtMain(app)} is missing: run \`npm run build\` (npm test does it)`);
  }
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  readonly app: AppName;
  readonly port: number;
  readonly baseUrl: string;
  readonly child: ChildProcess;
  /** Every JSON log line written to stdout, parsed, in order. */
  readonly logs: Array<Record<string, unknown>>;
  readonly stderr: () => string;
  readonly exited: Promise<Exit>;
  readonly running: () => boolean;
  /** SIGKILL (no shutdown hooks: a crashed machine) and wait for the exit. */
  kill(): Promise<Exit>;
  /** SIGTERM (graceful) and wait for the exit. */
  stop(): Promise<Exit>;
}

/** Children still running when the test process exits (a crash, a Jest timeout) are killed with it. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** A fresh BullMQ key prefix, so tests sharing a Redis never see each other's jobs. */
export function queuePrefix(label: string): string {
  return `fault-${label}-${randomBytes(4).toString('hex')}`;
}

/**
 * Starts `app` with exactly `env` plus the basics (the runner's own environment does not
 * leak in) and resolves once GET /health/live answers, which does not need PostgreSQL or
 * Redis to be up, and readiness reports no data still loading.
 */
export async function startService(
  app: AppName,
  env: Record<string, string> & { DATABASE_URL: string; QUEUE_PREFIX: string },
  options: { port?: number } = {},
): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort(0));
  const child = spawn(process.execPath, [builtMain(app)], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ADMIN_API_KEY: ADMIN_KEY,
      DATABASE_POOL_SIZE: '5',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      [PORT_VARIABLE[app]]: String(port),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: line, unparsed: true });
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  live.add(child);
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  const signalAndWait = (signal: NodeJS.Signals) => async (): Promise<Exit> => {
    if (running()) child.kill(signal);
    return exited;
  };
  const service: ServiceProcess = {
    app,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    logs,
    stderr: () => stderr,
    exited,
    running,
    kill: signalAndWait('SIGKILL'),
    stop: signalAndWait('SIGTERM'),
  };

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (!running()) throw new Error(`${app} exited during boot: ${stderr}`);
    try {
      const res = await fetch(`${service.baseUrl}/health/live`, { signal: AbortSignal.timeout(1_000) });
      if (res.ok && !(await stillLoading(service.baseUrl))) return service;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await service.kill();
      throw new Error(`${app} did not become live (and load its data) within 60 s: ${stderr}`);
    }
    await sleep(100);
  }
}

/**
 * Readiness is 503 with `loading` progress and its dependencies up: the service (vector-api)
 * still loads its data in the background after opening its port. Tests start from a loaded
 * service; a dependency down does not hold the start (outage tests start services so).
 */
async function stillLoading(baseUrl: string): Promise<boolean> {
  const res = await fetch(`${baseUrl}/health/ready`, { signal: AbortSignal.timeout(3_000) });
  if (res.status !== 503) return false;
  const { error } = (await res.json()) as { error?: { loading?: unknown; checks?: Record<string, string> } };
  return error?.loading !== undefined && !Object.values(error.checks ?? {}).includes('down');
}

/** SIGKILLs `child` (a crashed machine: nothing flushed) and waits for its exit; nothing if it is not running. */
export async function sigkill(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `probe` until it returns something other than undefined/false (errors count as "not yet"); fails after `timeoutMs` naming `what`. */
export function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
  intervalMs = 100,
): Promise<T> {
  return waitFor(what, probe, { timeoutMs, everyMs: intervalMs, retryErrors: true });
}

/** The test run's Redis (global setup sets REDIS_URL); faults only ever delete their own keys there. */
export function sharedRedisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/** Deletes the BullMQ keys of `prefix` (only those) from the shared Redis once a test is done with them. */
export async function dropQueueKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
