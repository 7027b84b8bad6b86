/**
 * Fair delivery across worker processes (docs/webhooks.md, "Fair delivery"): deliveries
 * parked because their endpoint had no free slot wait in a line in Redis and are woken by
 * whichever process frees a slot, so none of them waits for its fallback delay, and parking
 * never counts an attempt. Two ROLE=worker apps share one queue.
 */
import { randomBytes } from 'node:crypto';
import { PrismaService, RedisService } from '@app/platform';
import { ParkingLines } from '../../libs/webhooks/src/delivery/parking-lines';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { eventually, Receiver } from './support/receiver';
import { emitEvent, type ProbeConfig, webhooksProbe } from './support/webhooks-probe';

describe('libs/webhooks fair delivery across worker processes', () => {
  let db: TestDatabase;
  let receiver: Receiver;
  const apps: Array<TestApp<ProbeConfig>> = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    for (const t of apps.splice(0)) await t.close();
    await receiver.close();
    await db.drop();
  });

  it('two workers deliver a burst to one endpoint, each at most WEBHOOK_ENDPOINT_CONCURRENCY at once, parked ones woken by either', async () => {
    const env = {
      QUEUE_PREFIX: `test-${randomBytes(4).toString('hex')}`,
      // a parked delivery nobody wakes comes back only after 30-60 s: the test waits far less
      WEBHOOK_LOCK_DURATION_MS: '60000',
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_RETRY_SCHEDULE: '1h',
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
    };
    const api = await startTestApp(webhooksProbe, { ...env, ROLE: 'api' }, { db });
    apps.push(api);
    for (let i = 0; i < 2; i++) apps.push(await startTestApp(webhooksProbe, { ...env, ROLE: 'worker' }, { db }));

    let open = 0;
    let peak = 0;
    receiver.handler = () => {
      open++;
      peak = Math.max(peak, open);
      setTimeout(() => open--, 300);
      // slower than the local wait: deliveries behind these attempts are parked, not held
      return { status: 200, delayMs: 300 };
    };
    const created = await api.app.inject({
      method: 'POST',
      url: '/test/webhook-endpoints',
      headers: { 'x-test-owner': 'busy' },
      payload: { url: receiver.url },
    });
    expect(created.statusCode).toBe(201);
    const owner = { ownerType: 'partner', ownerId: 'busy' };
    const events: string[] = [];
    for (let i = 0; i < 24; i++) events.push(await emitEvent(api.app, owner, 'offer.opened', { n: i }));

    const prisma = api.app.get(PrismaService);
    await eventually(
      async () => (await prisma.webhookDelivery.count({ where: { status: 'succeeded' } })) === events.length,
      25_000,
      'every delivery succeeded, none left to its fallback delay',
    );
    // parking counted no attempt: one attempt per delivery
    expect(await prisma.webhookAttempt.count()).toBe(events.length);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set(events));
    // 2 per process, 2 processes
    expect(peak).toBeLessThanOrEqual(4);
    let deferred = 0;
    for (const worker of apps.slice(1)) {
      const metrics = await worker.app.inject({ method: 'GET', url: '/metrics' });
      deferred += Number(/^webhook_deliveries_deferred_total\{limit="endpoint"[^}]*\} (\d+)/m.exec(metrics.body)?.[1] ?? 0);
    }
    expect(deferred).toBeGreaterThan(0);
  }, 60_000);

  it('ParkingLines: the oldest of the endpoint and owner lines first; empty lines give null', async () => {
    const t = apps[0];
    if (t === undefined) throw new Error('no app');
    const lines = new ParkingLines(t.app.get(RedisService).commands, `test-${randomBytes(4).toString('hex')}:{webhook-lines:t}`);
    const route = { endpointId: 'we_1', ownerId: 'o1' };
    expect(await lines.next(route)).toBeNull();
    await lines.park(route, 'endpoint', 'dlv_b', 2);
    await lines.park(route, 'owner', 'dlv_a', 1);
    await lines.park(route, 'endpoint', 'dlv_c', 3);
    await lines.park({ endpointId: 'we_2', ownerId: 'o1' }, 'endpoint', 'dlv_other', 0);
    expect(await lines.lines()).toEqual(
      expect.arrayContaining([
        { kind: 'endpoint', endpointId: 'we_1', ownerId: 'o1' },
        { kind: 'owner', ownerId: 'o1' },
        { kind: 'endpoint', endpointId: 'we_2', ownerId: 'o1' },
      ]),
    );
    expect([await lines.next(route), await lines.next(route), await lines.next(route), await lines.next(route)]).toEqual([
      'dlv_a',
      'dlv_b',
      'dlv_c',
      null,
    ]);
    // emptied lines leave the index; take() pops the oldest of one line
    expect(await lines.lines()).toEqual([{ kind: 'endpoint', endpointId: 'we_2', ownerId: 'o1' }]);
    expect(await lines.take({ kind: 'endpoint', endpointId: 'we_2', ownerId: 'o1' }, 5)).toEqual(['dlv_other']);
    expect(await lines.lines()).toEqual([]);
  });
});
