/**
 * A freshly started platform for a document's examples: the three BUILT services (as
 * `npm start` runs them) as child processes on free ports, on a new database and their own
 * queue prefix, in development mode with the development admin key, as a new user's
 * `npm start` is. The docs say `localhost:3000` (3001, 3002); `localize()` points those at
 * the ports these services listen on.
 *
 * By default the services use the shared test Redis (REDIS_URL) and their keys there are
 * dropped at stop; `redisEnv` gives them other Redis variables instead (a Sentinel group in
 * test/faults/contract-failover.fault-spec.ts), and then that Redis and its keys are the
 * caller's.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import {
  type AppName,
  assertBuilt,
  dropQueueKeys,
  queuePrefix,
  type ServiceProcess,
  sharedRedisUrl,
  startService,
} from '../../faults/support/processes';

const DOC_PORTS: Readonly<Record<AppName, number>> = { 'offers-api': 3000, 'vector-api': 3001, 'payments-api': 3002 };

export interface DocPlatformOptions {
  /** The services' Redis variables (REDIS_SENTINELS, …) in place of the shared REDIS_URL. */
  readonly redisEnv?: Readonly<Record<string, string>>;
}

export interface DocPlatform {
  readonly services: readonly ServiceProcess[];
  /** The QUEUE_PREFIX of every service of this platform (their BullMQ keys start with it). */
  readonly queuePrefix: string;
  /** Rewrites the docs' `localhost:300x` to the ports of this platform. */
  localize(text: string): string;
  /** Every log line of every service (for a failure message). */
  logs(): string;
  stop(): Promise<void>;
}

export async function startDocPlatform(dataDir: string, options: DocPlatformOptions = {}): Promise<DocPlatform> {
  assertBuilt();
  const db: TestDatabase = await createTestDatabase();
  const prefix = queuePrefix('docs');
  mkdirSync(dataDir, { recursive: true });
  const redisUrl = options.redisEnv ? undefined : sharedRedisUrl();
  const env = {
    DATABASE_URL: db.url,
    ...(redisUrl === undefined ? options.redisEnv : { REDIS_URL: redisUrl }),
    QUEUE_PREFIX: prefix,
    NODE_ENV: 'development',
    ADMIN_API_KEY: 'dev-admin-key',
    DATA_DIR: dataDir,
  };
  const started = await Promise.allSettled(
    (Object.keys(DOC_PORTS) as AppName[]).map((app) => startService(app, { ...env, DATA_DIR: join(dataDir, app) })),
  );
  const services = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const stop = async (): Promise<void> => {
    await Promise.all(services.map((s) => s.stop()));
    if (redisUrl !== undefined) await dropQueueKeys(redisUrl, prefix);
    await db.drop();
  };
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const portOf = new Map(services.map((s) => [DOC_PORTS[s.app], s.port]));
  return {
    services,
    queuePrefix: prefix,
    localize: (text) =>
      text.replace(/\b(?:localhost|127\.0\.0\.1):(300[012])\b/g, (all, port: string) => {
        const actual = portOf.get(Number(port));
        return actual === undefined ? all : `127.0.0.1:${actual}`;
      }),
    logs: () => services.map((s) => `--- ${s.app}\n${s.logs.map((l) => JSON.stringify(l)).join('\n')}\n${s.stderr()}`).join('\n'),
    stop,
  };
}
