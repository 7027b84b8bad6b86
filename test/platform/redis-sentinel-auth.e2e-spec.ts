/**
 * Sentinel mode with passwords, against a real group whose data nodes and Sentinels each
 * require their own password: the right pair connects every client (readiness, BullMQ),
 * a wrong one of either is a readiness 503 naming redis, never a crash or a hang.
 */
import { FixedWindowCounter } from '@app/platform';
import type { OffersConfig } from '../../apps/offers-api/src/config';
import { offersService } from '../../apps/offers-api/src/service';
import { SentinelGroup } from '../faults/support/redis-topology';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { waitFor } from '../support/wait';

const DATA_PASSWORD = 'data-node-secret';
const SENTINEL_PASSWORD = 'sentinel-secret';

describe('Redis Sentinel mode with passwords (real group: primary, replica, three Sentinels)', () => {
  let group: SentinelGroup;
  let db: TestDatabase;
  const apps: Array<TestApp<OffersConfig>> = [];

  beforeAll(async () => {
    [group, db] = await Promise.all([
      SentinelGroup.start({ password: DATA_PASSWORD, sentinelPassword: SENTINEL_PASSWORD }),
      createTestDatabase(),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.app.close()));
    await group?.destroy();
    await db?.drop();
  });

  async function start(env: Record<string, string>) {
    const t = await startTestApp(
      offersService,
      { REDIS_URL: '', REDIS_SENTINELS: group.sentinelAddresses, REDIS_SENTINEL_NAME: SentinelGroup.NAME, ...env },
      { db },
    );
    apps.push(t);
    return t;
  }

  it('with both passwords: ready, rate-limit scripts and BullMQ work through the group', async () => {
    const t = await start({ REDIS_SENTINEL_PASSWORD: SENTINEL_PASSWORD, REDIS_PASSWORD: DATA_PASSWORD });
    const ready = await waitFor(
      'readiness 200',
      async () => {
        const res = await t.app.inject({ method: 'GET', url: '/health/ready' });
        return res.statusCode === 200 ? res : undefined;
      },
      10_000,
    );
    expect(ready.json()).toEqual({ status: 'ok', checks: { postgres: 'up', redis: 'up' } });
    // a Lua script on the request-path connection
    const counter = t.app.get(FixedWindowCounter);
    const key = `ratelimit:sentinel-auth-test:${t.config.QUEUE_PREFIX}`;
    expect((await counter.hit(key, 60))?.count).toBe(1);
    expect((await counter.hit(key, 60))?.count).toBe(2);
    // BullMQ's own connections: the lifecycle worker's sweep scheduler is a delayed job on the primary
    const schedulers = await waitFor(
      'the lifecycle sweep scheduler',
      async () => {
        const res = await t.app.inject({ method: 'GET', url: '/metrics' });
        return /queue_jobs\{queue="offers-lifecycle",state="delayed",service="offers-api"\} [1-9]/.test(res.body)
          ? res.body
          : undefined;
      },
      10_000,
    );
    expect(schedulers).toContain('queue_jobs{queue="offers-lifecycle"');
  });

  it.each([
    ['a wrong data-node password', { REDIS_SENTINEL_PASSWORD: SENTINEL_PASSWORD, REDIS_PASSWORD: 'wrong' }],
    ['a wrong Sentinel password', { REDIS_SENTINEL_PASSWORD: 'wrong', REDIS_PASSWORD: DATA_PASSWORD }],
    ['no passwords', {}],
  ])('with %s: readiness is 503 naming redis, the API still answers', async (_label, env) => {
    const t = await start(env);
    const res = await t.app.inject({ method: 'GET', url: '/health/ready' });
    expect({ status: res.statusCode, checks: res.json<{ error: { checks: unknown } }>().error.checks }).toEqual({
      status: 503,
      checks: { postgres: 'up', redis: 'down' },
    });
    expect((await t.app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
  });
});
