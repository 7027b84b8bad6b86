import { defineQueue, MetricsService, PrismaService, QueueRegistry } from '@app/platform';
import { DelayedError } from 'bullmq';
import { startTestApp, type TestApp } from '../support/app';
import { eventually, Receiver } from './support/receiver';
import { emitEvent, type ProbeConfig, webhooksProbe } from './support/webhooks-probe';

/** The value of one sample of the registry's text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const ok = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (ok) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('delivery and job metrics (real PostgreSQL, Redis and HTTP receiver)', () => {
  let t: TestApp<ProbeConfig>;
  let receiver: Receiver;
  const scrape = (): Promise<string> => t.app.get(MetricsService).render();

  beforeAll(async () => {
    t = await startTestApp(webhooksProbe, { WEBHOOK_TIMEOUT_MS: '500' });
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('observes webhook_delivery_lag_seconds once per delivery, at its first attempt only, and times the jobs', async () => {
    const before = await scrape();
    expect(sample(before, 'webhook_delivery_lag_seconds_count')).toBe(0);
    const created = await t.app.inject({
      method: 'POST',
      url: '/test/webhook-endpoints',
      headers: { 'x-test-owner': 'partner_lag' },
      payload: { url: receiver.url },
    });
    expect(created.statusCode).toBe(201);
    // the first attempt fails (a retry is scheduled on the probe's 100 ms schedule), the second succeeds
    receiver.handler = (r) => (r.n === 1 ? { status: 500 } : { status: 200, body: 'ok' });
    const committed = Date.now();
    await emitEvent(t.app, { ownerType: 'partner', ownerId: 'partner_lag' }, 'offer.opened', { offer_id: 'offer_lag' });
    const prisma = t.app.get(PrismaService);
    await eventually(async () => {
      const d = await prisma.webhookDelivery.findFirst({ where: { endpoint: { ownerId: 'partner_lag' } } });
      return d?.status === 'succeeded' ? d : undefined;
    }, 10_000);
    expect(receiver.requests.length).toBe(2);
    const firstAttemptLagS = (receiver.requests[0].at - committed) / 1000;

    const text = await scrape();
    // two attempts, one delivery: one observation, and it is the first attempt's
    expect(sample(text, 'webhook_delivery_lag_seconds_count')).toBe(1);
    const lag = sample(text, 'webhook_delivery_lag_seconds_sum') ?? -1;
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThanOrEqual(firstAttemptLagS + 1);
    expect(sample(text, 'webhook_deliveries_total', { outcome: 'retry_scheduled' })).toBe(1);
    expect(sample(text, 'webhook_deliveries_total', { outcome: 'succeeded' })).toBe(1);
    // the delivery job: put back once to wait for its retry (deferred, not failed), then completed
    const job = { queue: 'webhook-deliveries-partner', job_name: 'deliver' };
    expect(sample(text, 'queue_job_duration_seconds_count', { ...job, outcome: 'deferred' })).toBe(1);
    expect(sample(text, 'queue_job_duration_seconds_count', { ...job, outcome: 'completed' })).toBe(1);
    // exported at 0 from the worker's start, so increase() sees a first failure
    expect(sample(text, 'queue_job_duration_seconds_count', { ...job, outcome: 'failed' })).toBe(0);
    console.log(
      `webhook delivery lag observed: ${lag.toFixed(3)} s (first attempt reached the receiver after ${firstAttemptLagS.toFixed(3)} s)`,
    );
  });

  it('counts the lag of a delivery recovered after its endpoint was disabled from the recovery, not from the event', async () => {
    const owner = 'partner_lag_recovered';
    const headers = { 'x-test-owner': owner };
    const created = await t.app.inject({
      method: 'POST',
      url: '/test/webhook-endpoints',
      headers,
      payload: { url: receiver.url },
    });
    expect(created.statusCode).toBe(201);
    const endpointId = created.json<{ id: string }>().id;
    const prisma = t.app.get(PrismaService);
    await prisma.webhookEndpoint.update({ where: { id: endpointId }, data: { disabledAt: new Date(), disabledReason: 'probe' } });
    await emitEvent(t.app, { ownerType: 'partner', ownerId: owner }, 'offer.opened', { offer_id: 'offer_recovered' });
    // made for the disabled endpoint as failed, never attempted; its event committed two hours ago
    const missed = await eventually(
      async () => (await prisma.webhookDelivery.findFirst({ where: { endpointId, status: 'failed' } })) ?? undefined,
      10_000,
    );
    expect(missed.attemptCount).toBe(0);
    await prisma.webhookEvent.update({ where: { id: missed.eventId }, data: { createdAt: new Date(Date.now() - 7_200_000) } });
    const before = await scrape();
    const countBefore = sample(before, 'webhook_delivery_lag_seconds_count') ?? 0;
    const sumBefore = sample(before, 'webhook_delivery_lag_seconds_sum') ?? 0;

    receiver.handler = () => ({ status: 200, body: 'ok' });
    expect(
      (await t.app.inject({ method: 'POST', url: `/test/webhook-endpoints/${endpointId}/enable`, headers })).statusCode,
    ).toBe(200);
    const recoveredAt = Date.now();
    const recovered = await t.app.inject({
      method: 'POST',
      url: `/test/webhook-endpoints/${endpointId}/recover`,
      headers,
      payload: { since: '2020-01-01T00:00:00Z' },
    });
    expect(recovered.statusCode).toBe(202);
    await eventually(async () => {
      const d = await prisma.webhookDelivery.findUnique({ where: { id: missed.id } });
      return d?.status === 'succeeded' ? d : undefined;
    }, 10_000);
    const sentAfterS = (Date.now() - recoveredAt) / 1000;

    const text = await scrape();
    expect(sample(text, 'webhook_delivery_lag_seconds_count')).toBe(countBefore + 1);
    const lag = (sample(text, 'webhook_delivery_lag_seconds_sum') ?? 0) - sumBefore;
    // from the recovery (seconds at most), not the event's two hours
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThanOrEqual(sentAfterS + 1);
    console.log(`recovered delivery lag observed: ${lag.toFixed(3)} s (event committed 7200 s before)`);
  });

  it('labels queue_job_duration_seconds by queue, handler name and outcome; an unknown name is one value', async () => {
    type ProbeJobs = {
      readonly ok: { readonly n: number };
      readonly boom: { readonly n: number };
      readonly park: { readonly n: number };
    };
    const definition = defineQueue<ProbeJobs>('metrics-probe', {
      defaultJobOptions: { removeOnComplete: true, removeOnFail: true },
    });
    const registry = t.app.get(QueueRegistry);
    let parked = false;
    const worker = registry.worker(definition, {
      ok: () => Promise.resolve(1),
      boom: () => Promise.reject(new Error('boom')),
      park: async (_data, job, token) => {
        if (parked) return 1;
        parked = true;
        await job.moveToDelayed(Date.now() + 50, token);
        throw new DelayedError();
      },
    });
    expect(worker).toBeDefined();
    // before any job: every handler name × outcome at 0 (increase() sees the first failure)
    const idle = await scrape();
    for (const job_name of ['ok', 'boom', 'park'])
      for (const outcome of ['completed', 'failed', 'deferred'])
        expect(sample(idle, 'queue_job_duration_seconds_count', { queue: 'metrics-probe', job_name, outcome })).toBe(0);
    const queue = registry.queue(definition);
    await queue.add('ok', { n: 1 });
    await queue.add('ok', { n: 2 });
    await queue.add('boom', { n: 3 });
    await queue.add('park', { n: 4 });
    // a name no handler serves (a producer of another version): one label value, `unknown`
    await queue.raw.add('renamed-job', { n: 5 });
    const q = { queue: 'metrics-probe' };
    const text = await eventually(async () => {
      const s = await scrape();
      const done =
        sample(s, 'queue_job_duration_seconds_count', { ...q, job_name: 'ok', outcome: 'completed' }) === 2 &&
        sample(s, 'queue_job_duration_seconds_count', { ...q, job_name: 'boom', outcome: 'failed' }) === 1 &&
        sample(s, 'queue_job_duration_seconds_count', { ...q, job_name: 'park', outcome: 'completed' }) === 1 &&
        sample(s, 'queue_job_duration_seconds_count', { ...q, job_name: 'unknown', outcome: 'failed' }) === 1;
      return done ? s : undefined;
    }, 10_000);
    expect(sample(text, 'queue_job_duration_seconds_count', { ...q, job_name: 'park', outcome: 'deferred' })).toBe(1);
    expect(text).not.toContain('renamed-job');
  });
});
