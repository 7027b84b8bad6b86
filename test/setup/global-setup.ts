/**
 * Once per `npm test`: find or start PostgreSQL and Redis, and build a migrated template
 * database that every test file clones (CREATE DATABASE ... TEMPLATE), so each file runs
 * in a fresh database. Where no PostgreSQL server runs, an embedded one is started.
 */
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from '../../libs/platform/src/database/migrator';
import {
  canConnectPostgres,
  ensureDatabase,
  ensureRedis,
  type LocalService,
  startEmbeddedPostgres,
} from '../../scripts/local-infra';
import { RedisCluster } from '../faults/support/redis-topology';
import { ensureChromium } from './chromium';
import { setTestInfra } from './infra-state';

const log = (line: string): void => {
  process.stdout.write(`[test setup] ${line}\n`);
};

function adminUrlFrom(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}

export default async function globalSetup(): Promise<void> {
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const started: LocalService[] = [];

  let adminUrl: string | undefined;
  for (const candidate of [process.env.DATABASE_URL, 'postgresql://postgres@127.0.0.1:5432/postgres']) {
    if (candidate && (await canConnectPostgres(adminUrlFrom(candidate)))) {
      adminUrl = adminUrlFrom(candidate);
      break;
    }
  }
  if (!adminUrl) {
    log('no PostgreSQL server found: starting an embedded one');
    const pg = await startEmbeddedPostgres({
      dataDir: join(tmpdir(), `platform-test-pg-${runId}`),
      port: 54329,
      persistent: false,
      log,
    });
    started.push(pg);
    adminUrl = pg.url;
  }

  const template = `platform_test_${runId}_tpl`;
  const templateUrl = await ensureDatabase(adminUrl, template);
  await migrate(templateUrl, { dir: join(process.cwd(), 'prisma', 'migrations') });

  // TEST_REDIS_TOPOLOGY=cluster: the in-process apps (startTestApp spreads process.env into
  // their config) run against a private three-master Redis Cluster instead (issue 21).
  let redisUrl: string | undefined;
  if (process.env.TEST_REDIS_TOPOLOGY === 'cluster') {
    const cluster = await RedisCluster.start();
    started.push({ url: cluster.nodeAddresses, started: true, stop: () => cluster.destroy() });
    process.env.REDIS_CLUSTER_NODES = cluster.nodeAddresses;
    delete process.env.REDIS_URL;
    log(`Redis Cluster of three masters at ${cluster.nodeAddresses}`);
  } else {
    const redis = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', log);
    if (redis.started) started.push(redis);
    redisUrl = redis.url;
  }

  ensureChromium(log);

  process.env.TEST_PG_ADMIN_URL = adminUrl;
  process.env.TEST_PG_TEMPLATE = template;
  process.env.TEST_RUN_ID = runId;
  if (redisUrl !== undefined) process.env.REDIS_URL = redisUrl;
  setTestInfra({ adminUrl, runId, started });
}
