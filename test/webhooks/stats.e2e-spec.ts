/**
 * GET …/webhook-endpoints/{id}/stats: an endpoint's delivery attempts that succeeded and
 * failed per UTC hour or day (the console's chart, platform contract "Console (web UI)").
 * Real PostgreSQL, Redis and HTTP receiver; attempts made by the worker, plus attempts
 * written hours back to prove the bucketing.
 */
import { PrismaService } from '@app/platform';
import type { EndpointStatsView, ListView, WebhookDeliveryView, WebhookEndpointView } from '@app/webhooks';
import { startTestApp, type TestApp } from '../support/app';
import { eventually, Receiver } from './support/receiver';
import { type ProbeConfig, webhooksProbe } from './support/webhooks-probe';

const HOUR = 3_600_000;

describe('libs/webhooks endpoint stats (real PostgreSQL, Redis and HTTP receiver)', () => {
  let t: TestApp<ProbeConfig>;
  let receiver: Receiver;
  let prisma: PrismaService;
  let owner = 'stats_0';
  let ownerSeq = 0;

  beforeAll(async () => {
    t = await startTestApp(webhooksProbe, {});
    prisma = t.app.get(PrismaService);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  beforeEach(() => {
    owner = `stats_${++ownerSeq}`;
    receiver.handler = () => ({ status: 200, body: 'ok' });
  });
  afterEach(async () => {
    await prisma.webhookEndpoint.deleteMany({ where: { ownerType: 'partner', ownerId: owner } });
  });

  const call = (method: 'GET' | 'POST', url: string, payload?: object, who = owner) =>
    t.app.inject({
      method,
      url: `/test/webhook-endpoints${url}`,
      headers: { 'x-test-owner': who },
      ...(payload ? { payload } : {}),
    });

  async function createEndpoint(): Promise<WebhookEndpointView> {
    const res = await call('POST', '', { url: receiver.url });
    expect(res.statusCode).toBe(201);
    return res.json();
  }

  async function finished(endpointId: string, n: number): Promise<readonly WebhookDeliveryView[]> {
    return eventually(async () => {
      const res = await call('GET', `/${endpointId}/deliveries`);
      const list = res.json<ListView<WebhookDeliveryView>>().data;
      return list.length === n && list.every((d) => d.status !== 'pending') ? list : undefined;
    });
  }

  async function stats(endpointId: string, query = ''): Promise<EndpointStatsView> {
    const res = await call('GET', `/${endpointId}/stats${query}`);
    expect(res.statusCode).toBe(200);
    return res.json();
  }

  const total = (s: EndpointStatsView) =>
    s.buckets.reduce((acc, b) => ({ succeeded: acc.succeeded + b.succeeded, failed: acc.failed + b.failed }), {
      succeeded: 0,
      failed: 0,
    });

  it('counts the attempts of the last 24 hours per hour: 2xx as succeeded, anything else as failed', async () => {
    const endpoint = await createEndpoint();
    expect(total(await stats(endpoint.id))).toEqual({ succeeded: 0, failed: 0 });

    for (let i = 0; i < 2; i++) expect((await call('POST', `/${endpoint.id}/test`, {})).statusCode).toBe(202);
    await finished(endpoint.id, 2);
    // the receiver refuses this one and asks for no retry: exactly one failed attempt
    receiver.handler = () => ({ status: 500, headers: { 'webhook-delivery': 'abort' }, body: 'no' });
    expect((await call('POST', `/${endpoint.id}/test`, {})).statusCode).toBe(202);
    await finished(endpoint.id, 3);

    const s = await stats(endpoint.id);
    expect(s).toMatchObject({ object: 'webhook_endpoint_stats', endpoint_id: endpoint.id, granularity: 'hour' });
    expect(s.buckets).toHaveLength(24);
    for (const [i, b] of s.buckets.entries()) {
      expect(new Date(b.start).getTime()).toBe(new Date(s.since).getTime() + i * HOUR);
      expect(new Date(b.start).getUTCMinutes()).toBe(0);
    }
    expect(new Date(s.buckets.at(-1)?.start ?? 0).getTime()).toBeLessThanOrEqual(new Date(s.until).getTime());
    expect(total(s)).toEqual({ succeeded: 2, failed: 1 });
  });

  it('puts each attempt in the bucket of its time, by hour and by day, and only in its window', async () => {
    const endpoint = await createEndpoint();
    expect((await call('POST', `/${endpoint.id}/test`, {})).statusCode).toBe(202);
    const [delivery] = await finished(endpoint.id, 1);
    // an attempt without an answer 3 hours ago and a 503 30 hours ago (written directly: the clock cannot be moved)
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR;
    const threeHoursAgo = new Date(hourStart - 3 * HOUR + 60_000);
    const thirtyHoursAgo = new Date(hourStart - 30 * HOUR + 60_000);
    const base = { deliveryId: delivery?.id ?? '', endpointId: endpoint.id, durationMs: 5 };
    await prisma.webhookAttempt.create({ data: { ...base, statusCode: null, error: 'timeout', createdAt: threeHoursAgo } });
    await prisma.webhookAttempt.create({ data: { ...base, statusCode: 503, createdAt: thirtyHoursAgo } });

    const byHour = await stats(endpoint.id, `?since=${new Date(hourStart - 5 * HOUR).toISOString()}`);
    expect(byHour.buckets).toHaveLength(6);
    expect(byHour.buckets.map((b) => [b.succeeded, b.failed])).toEqual([
      [0, 0],
      [0, 0],
      [0, 1],
      [0, 0],
      [0, 0],
      [1, 0],
    ]);

    const byDay = await stats(endpoint.id, '?granularity=day');
    expect(byDay.buckets).toHaveLength(7);
    expect(new Date(byDay.since).getUTCHours()).toBe(0);
    expect(total(byDay)).toEqual({ succeeded: 1, failed: 2 });

    // a past window: only what happened in it; since is rounded down to its hour
    const past = await stats(
      endpoint.id,
      `?since=${new Date(thirtyHoursAgo.getTime() + 1_000).toISOString()}&until=${new Date(hourStart - 29 * HOUR).toISOString()}`,
    );
    expect(past.since).toBe(new Date(hourStart - 30 * HOUR).toISOString());
    expect(past.buckets).toEqual([{ start: past.since, succeeded: 0, failed: 1 }]);
  });

  it('counts an attempt written without its endpoint, as a process of the previous release writes it (rolling deploy)', async () => {
    const endpoint = await createEndpoint();
    expect((await call('POST', `/${endpoint.id}/test`, {})).statusCode).toBe(202);
    const [delivery] = await finished(endpoint.id, 1);
    // the previous release's INSERT names no endpoint_id: the migration's trigger fills it from the delivery
    await prisma.$executeRaw`
      INSERT INTO "webhook_attempts" ("id", "delivery_id", "status_code", "duration_ms", "created_at")
      VALUES (gen_random_uuid(), ${delivery?.id}, 502, 7, now())`;
    expect(total(await stats(endpoint.id))).toEqual({ succeeded: 1, failed: 1 });
  });

  it('refuses a bad window, an unknown granularity, and another owner’s endpoint', async () => {
    const endpoint = await createEndpoint();
    const expectError = async (query: string, status: number, code: string, param: string, who = owner) => {
      const res = await call('GET', `/${endpoint.id}/stats${query}`, undefined, who);
      expect({ status: res.statusCode, ...res.json<{ error: { code: string; param: string } }>().error }).toMatchObject({
        status,
        code,
        param,
      });
    };
    await expectError('?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', 400, 'parameter_invalid', 'until');
    await expectError('?since=2026-01-01T00:00:00Z&until=2026-03-01T00:00:00Z', 400, 'parameter_invalid', 'since');
    await expectError('?granularity=week', 400, 'parameter_invalid', 'granularity');
    await expectError('?since=yesterday', 400, 'parameter_invalid', 'since');
    await expectError('', 404, 'resource_missing', 'id', `${owner}_other`);
    const res = await call('GET', '/we_missing/stats');
    expect(res.statusCode).toBe(404);
    // a year of days is allowed
    const year = await stats(endpoint.id, '?granularity=day&since=2025-01-01T00:00:00Z&until=2026-01-01T00:00:00Z');
    expect(year.buckets).toHaveLength(365);
  });
});
