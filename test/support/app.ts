import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import {
  createRootLogger,
  createServiceApp,
  loadConfig,
  type PlatformConfig,
  RedisService,
  type ServiceDefinition,
} from '@app/platform';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, type TestDatabase } from './database';

export interface TestApp<C extends PlatformConfig> {
  readonly app: NestFastifyApplication;
  readonly config: C;
  readonly db: TestDatabase;
  /** Every log line the app wrote, parsed. */
  readonly logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * Boots a service in-process against a fresh database and the test Redis (with its own
 * queue prefix), ready for `app.inject(...)`. Logs are captured instead of printed.
 * `waitForData: false`: returns before a service that loads its data after start has done so.
 */
export async function startTestApp<C extends PlatformConfig>(
  definition: ServiceDefinition<C>,
  env: Record<string, string> = {},
  options: { db?: TestDatabase; waitForData?: boolean } = {},
): Promise<TestApp<C>> {
  const db = options.db ?? (await createTestDatabase());
  const config = loadConfig(definition.configClass, {
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    DATABASE_POOL_SIZE: '4',
    QUEUE_PREFIX: `test-${randomBytes(4).toString('hex')}`,
    LOG_LEVEL: 'info',
    ...env,
  });
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = createRootLogger({ service: definition.name, level: config.LOG_LEVEL, format: 'json' }, sink);
  const app = await createServiceApp(definition, config, logger);
  await redisReady(app);
  if (options.waitForData !== false) await dataLoaded(app);
  return {
    app,
    config,
    db,
    logs,
    close: async () => {
      await app.close();
      if (!options.db) await db.drop();
    },
  };
}

/**
 * Waits (up to 60 s) while readiness reports data still loading with its dependencies up
 * (vector-api loads its tables in the background after start): tests start from a loaded
 * app unless they start it themselves. A dependency down ends the wait (tests of outages).
 */
async function dataLoaded(app: NestFastifyApplication): Promise<void> {
  for (let waited = 0; waited < 60_000; waited += 20) {
    const res = await app.inject({ method: 'GET', url: '/health/ready' });
    if (res.statusCode !== 503) return;
    const error = res.json<{ error?: { loading?: unknown; checks?: Record<string, string> } }>().error ?? {};
    if (error.loading === undefined || Object.values(error.checks ?? {}).includes('down')) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Waits (up to 3 s) for the app's Redis command connection to be ready. It connects in the
 * background and queues nothing meanwhile (enableOfflineQueue: false), so on a loaded machine
 * the first requests could find it still connecting and fail open (no rate limit headers).
 * Tests that point REDIS_URL at nothing go on after the wait.
 */
async function redisReady(app: NestFastifyApplication): Promise<void> {
  let redis: RedisService;
  try {
    redis = app.get(RedisService);
  } catch {
    return;
  }
  for (let waited = 0; redis.commands.status !== 'ready' && waited < 3000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
