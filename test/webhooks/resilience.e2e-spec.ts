import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { PrismaService } from '@app/platform';
import type { WebhookEndpointView } from '@app/webhooks';
import { freePort, canPingRedis } from '../../scripts/local-infra';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { eventually, Receiver } from './support/receiver';
import { forkTsChild, killHard } from './support/ts-child';
import { emitEvent, type ProbeConfig, webhooksProbe } from './support/webhooks-probe';

const anyDate: unknown = expect.any(Date);
const blockedError: unknown = expect.stringMatching(/^blocked: 127\.0\.0\.1/);
const OWNER = { ownerType: 'partner', ownerId: 'partner_r' } as const;

async function createEndpoint(t: TestApp<ProbeConfig>, url: string): Promise<WebhookEndpointView> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/test/webhook-endpoints',
    headers: { 'x-test-owner': OWNER.ownerId },
    payload: { url },
  });
  expect(res.statusCode).toBe(201);
  return res.json();
}

describe('libs/webhooks resilience', () => {
  let db: TestDatabase;
  let receiver: Receiver;
  const apps: Array<TestApp<ProbeConfig>> = [];
  const start = async (env: Record<string, string>): Promise<TestApp<ProbeConfig>> => {
    const t = await startTestApp(webhooksProbe, env, { db });
    apps.push(t);
    return t;
  };

  beforeEach(async () => {
    db = await createTestDatabase();
    receiver = await Receiver.start();
  });
  afterEach(async () => {
    for (const t of apps.splice(0)) await t.close();
    await receiver.close();
    await db.drop();
  });

  it('an event committed while no dispatcher runs is delivered when a worker starts (outbox sweep)', async () => {
    const prefix = `test-${randomBytes(4).toString('hex')}`;
    const api = await start({ ROLE: 'api', QUEUE_PREFIX: prefix });
    await createEndpoint(api, receiver.url);
    const eventId = await emitEvent(api.app, OWNER, 'offer.opened', { n: 1 });
    // The event waits in the outbox, and the api process reports its age: once it has
    // waited half a second, an api process that dispatched would have delivered it.
    await eventually(
      async () => {
        const metrics = await api.app.inject({ method: 'GET', url: '/metrics' });
        return Number(/^webhook_outbox_lag_seconds\{[^}]*\} ([\d.]+)$/m.exec(metrics.body)?.[1]) > 0.5;
      },
      10_000,
      'an outbox lag above 0.5 s',
    );
    expect(receiver.requests).toHaveLength(0);
    const prisma = api.app.get(PrismaService);
    expect(await prisma.webhookEvent.findUnique({ where: { id: eventId } })).toMatchObject({ dispatchedAt: null });
    expect(await prisma.webhookDelivery.count({ where: { eventId } })).toBe(0); // not even fanned out

    await start({ ROLE: 'worker', QUEUE_PREFIX: prefix });
    const req = await eventually(() => receiver.requests[0], 10_000, 'the delivery');
    expect(req.headers['webhook-id']).toBe(eventId);
    expect(await prisma.webhookEvent.findUnique({ where: { id: eventId } })).toMatchObject({ dispatchedAt: anyDate });
  });

  it('refuses private URLs at registration and again at delivery when WEBHOOK_ALLOW_PRIVATE_URLS=false', async () => {
    const prefix = `test-${randomBytes(4).toString('hex')}`;
    // registered while private URLs were allowed (or DNS pointed elsewhere) ...
    const lenient = await start({ ROLE: 'api', QUEUE_PREFIX: prefix });
    const endpoint = await createEndpoint(lenient, receiver.url);
    // ... delivered by a process that refuses them
    const strict = await start({ ROLE: 'all', QUEUE_PREFIX: prefix, WEBHOOK_ALLOW_PRIVATE_URLS: 'false' });
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://localhost/x',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/x',
      'http://10.1.2.3/',
    ]) {
      const res = await strict.app.inject({
        method: 'POST',
        url: '/test/webhook-endpoints',
        headers: { 'x-test-owner': OWNER.ownerId },
        payload: { url },
      });
      expect([url, res.statusCode, res.json<{ error: { code: string; param: string } }>().error]).toEqual([
        url,
        400,
        expect.objectContaining({ code: 'webhook_url_invalid', param: 'url' }),
      ]);
    }
    await emitEvent(strict.app, OWNER, 'offer.opened', {});
    const prisma = strict.app.get(PrismaService);
    const delivery = await eventually(async () => {
      const d = await prisma.webhookDelivery.findFirst({ where: { endpointId: endpoint.id }, include: { attempts: true } });
      return d?.status === 'failed' ? d : undefined;
    });
    expect(delivery.attempts.length).toBe(4);
    for (const a of delivery.attempts) expect(a).toMatchObject({ statusCode: null, error: blockedError });
    expect(receiver.requests).toHaveLength(0);
  });

  it('a worker killed mid-delivery (SIGKILL) does not lose the event: another worker delivers it', async () => {
    const prefix = `test-${randomBytes(4).toString('hex')}`;
    const api = await start({ ROLE: 'api', QUEUE_PREFIX: prefix });
    await createEndpoint(api, receiver.url);
    receiver.handler = (r) => (r.n === 1 ? { status: 200, hang: true } : { status: 200 });

    const child: ChildProcess = await forkTsChild(join(process.cwd(), 'test', 'webhooks', 'support', 'worker-child.ts'), {
      DATABASE_URL: db.url,
      QUEUE_PREFIX: prefix,
      NODE_ENV: 'test',
    });
    try {
      const eventId = await emitEvent(api.app, OWNER, 'offer.opened', { crash: true });
      await eventually(() => receiver.requests.length === 1, 15_000, 'the child to start the delivery');
      await killHard(child);

      const prisma = api.app.get(PrismaService);
      const before = await prisma.webhookDelivery.findFirst({ where: { eventId } });
      expect(before).toMatchObject({ status: 'pending', attemptCount: 0 });

      await start({ ROLE: 'worker', QUEUE_PREFIX: prefix });
      const delivered = await eventually(
        async () => {
          const d = await prisma.webhookDelivery.findFirst({ where: { eventId }, include: { attempts: true } });
          return d?.status === 'succeeded' ? d : undefined;
        },
        20_000,
        'the redelivery',
      );
      expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId]);
      expect(delivered.attempts.map((a) => a.statusCode)).toEqual([200]);
    } finally {
      await killHard(child);
    }
  });

  /** A private redis-server on a free port (never the shared one at 6379). */
  async function privateRedis(): Promise<{ url: string; start(): Promise<void>; stop(): Promise<void> }> {
    const port = await freePort(0);
    const url = `redis://127.0.0.1:${port}`;
    let child: ChildProcess | undefined;
    const stop = (): Promise<void> =>
      new Promise((resolve) => {
        const c = child;
        child = undefined;
        if (!c || c.exitCode !== null || c.signalCode !== null) return resolve();
        c.once('exit', () => resolve());
        c.kill('SIGKILL');
      });
    return {
      url,
      stop,
      start: async () => {
        child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
          stdio: 'ignore',
        });
        await eventually(() => canPingRedis(url), 10_000, 'private redis-server');
      },
    };
  }

  it('boots and commits events while Redis is down; delivers them when Redis starts', async () => {
    const redis = await privateRedis();
    try {
      const t = await start({ REDIS_URL: redis.url });
      await createEndpoint(t, receiver.url);
      const eventId = await emitEvent(t.app, OWNER, 'offer.opened', { redis: 'not started yet' });
      const prisma = t.app.get(PrismaService);
      expect(await prisma.webhookEvent.findUnique({ where: { id: eventId } })).toMatchObject({ dispatchedAt: null });
      await redis.start();
      const req = await eventually(() => receiver.requests[0], 20_000, 'delivery after Redis started');
      expect(req.headers['webhook-id']).toBe(eventId);
      // close while Redis is up: BullMQ workers cannot close gracefully without it
      for (const app of apps.splice(0)) await app.close();
    } finally {
      await redis.stop();
    }
  });

  it('an event committed while Redis is down is delivered once Redis is back', async () => {
    const redis = await privateRedis();
    await redis.start();
    try {
      const t = await start({ REDIS_URL: redis.url });
      await createEndpoint(t, receiver.url);
      const prisma = t.app.get(PrismaService);

      await redis.stop();
      const eventId = await emitEvent(t.app, OWNER, 'offer.opened', { during: 'redis outage' });
      // The dispatcher has taken the event up (its delivery row exists) but cannot queue it:
      // it stays undispatched and unsent while Redis is down.
      await eventually(async () => (await prisma.webhookDelivery.count({ where: { eventId } })) === 1, 10_000, 'the fan-out');
      expect(receiver.requests).toHaveLength(0);
      expect(await prisma.webhookEvent.findUnique({ where: { id: eventId } })).toMatchObject({ dispatchedAt: null });

      await redis.start(); // empty: nothing survived in Redis
      const req = await eventually(() => receiver.requests[0], 20_000, 'delivery after Redis came back');
      expect(req.headers['webhook-id']).toBe(eventId);
      await eventually(async () => (await prisma.webhookDelivery.findFirst({ where: { eventId } }))?.status === 'succeeded');
      for (const app of apps.splice(0)) await app.close();
    } finally {
      await redis.stop();
    }
  });
});
