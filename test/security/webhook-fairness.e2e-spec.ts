/**
 * Noisy neighbour in webhook delivery (issue 14, finding 5): one owner whose receivers hold
 * their replies must not delay another owner's deliveries, nor its own other endpoints,
 * and an owner cannot register endpoints without limit (docs/webhooks.md, "Fair delivery").
 *
 * Behavioural, no timing thresholds: the other owner's delivery must arrive while the
 * neighbour's attempts are all still hanging (none of them has ended when it arrives);
 * before the fix every slot of the worker was held by the neighbour and it arrived only
 * after the neighbour's attempts timed out. The latency is logged for docs/reliability.md.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrismaService } from '@app/platform';
import { startTestApp, type TestApp } from '../support/app';
import { eventually, Receiver } from '../webhooks/support/receiver';
import { emitEvent, type ProbeConfig, webhooksProbe } from '../webhooks/support/webhooks-probe';

/** A receiver on 127.0.0.1 that holds every request unanswered until `release()`, and counts what the sender gave up on. */
class HoldingReceiver {
  /** Requests received, in order. */
  readonly received: Array<{ path: string; eventId: string }> = [];
  /** Held requests the sender closed before any answer (an attempt that ended, e.g. timed out). */
  abandoned = 0;
  /** Most requests held at once, in all and per path. */
  peak = 0;
  readonly peakByPath = new Map<string, number>();
  private readonly open = new Map<ServerResponse, string>();
  private readonly openByPath = new Map<string, number>();
  private released = false;
  private readonly server: Server;

  private constructor() {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = req.url ?? '';
        this.received.push({ path, eventId: String(req.headers['webhook-id']) });
        if (this.released) {
          res.writeHead(200).end('ok');
          return;
        }
        this.open.set(res, path);
        const n = (this.openByPath.get(path) ?? 0) + 1;
        this.openByPath.set(path, n);
        this.peakByPath.set(path, Math.max(n, this.peakByPath.get(path) ?? 0));
        this.peak = Math.max(this.peak, this.open.size);
        res.on('close', () => {
          if (!this.open.has(res)) return;
          this.forget(res);
          if (!res.writableEnded) this.abandoned++;
        });
      });
    });
  }

  static async start(): Promise<HoldingReceiver> {
    const r = new HoldingReceiver();
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    return r;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  get holding(): number {
    return this.open.size;
  }

  /** Answers every held request 200, and every later one at once. */
  release(): void {
    this.released = true;
    for (const res of [...this.open.keys()]) {
      this.forget(res);
      res.writeHead(200).end('ok');
    }
  }

  async close(): Promise<void> {
    for (const res of this.open.keys()) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private forget(res: ServerResponse): void {
    const path = this.open.get(res);
    this.open.delete(res);
    if (path !== undefined) this.openByPath.set(path, (this.openByPath.get(path) ?? 1) - 1);
  }
}

interface ErrorBody {
  error: { type: string; code: string; message: string; param?: string; request_id: string };
}

async function createEndpoint(t: TestApp<ProbeConfig>, owner: string, url: string): Promise<{ statusCode: number; id?: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/test/webhook-endpoints',
    headers: { 'x-test-owner': owner },
    payload: { url },
  });
  return { statusCode: res.statusCode, ...(res.statusCode === 201 ? { id: res.json<{ id: string }>().id } : {}) };
}

async function metric(t: TestApp<ProbeConfig>, name: string): Promise<number> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics' });
  let sum = 0;
  for (const m of res.body.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.e+-]+)$`, 'gm'))) sum += Number(m[1]);
  return sum;
}

describe('webhook delivery is fair between owners and between endpoints (finding 5)', () => {
  // A neighbour's attempts hang for this long before they time out: long enough that
  // "arrived while none had ended" cannot be a race.
  const ATTEMPT_TIMEOUT_MS = 15_000;
  let t: TestApp<ProbeConfig>;
  let holding: HoldingReceiver;
  let other: Receiver;
  let prisma: PrismaService;

  beforeEach(async () => {
    t = await startTestApp(webhooksProbe, {
      WEBHOOK_TIMEOUT_MS: String(ATTEMPT_TIMEOUT_MS),
      WEBHOOK_LOCK_DURATION_MS: String(2 * ATTEMPT_TIMEOUT_MS),
      WEBHOOK_RETRY_SCHEDULE: '1h',
      WEBHOOK_WORKER_CONCURRENCY: '20',
      // 40 endpoints for the neighbour (the default cap is 16)
      WEBHOOK_MAX_ENDPOINTS_PER_OWNER: '50',
    });
    prisma = t.app.get(PrismaService);
    holding = await HoldingReceiver.start();
    other = await Receiver.start();
  });
  afterEach(async () => {
    await holding.close();
    await other.close();
    await t.close();
  });

  it("another owner's delivery arrives while a neighbour's 40 endpoints hold every reply", async () => {
    // the neighbour: 40 endpoints that never answer, 3 events → 120 deliveries queued first
    for (let i = 0; i < 40; i++) expect((await createEndpoint(t, 'neighbour', holding.url(`/n/${i}`))).statusCode).toBe(201);
    expect((await createEndpoint(t, 'tenant_b', other.url)).statusCode).toBe(201);
    for (let i = 0; i < 3; i++) await emitEvent(t.app, { ownerType: 'partner', ownerId: 'neighbour' }, 'offer.opened', { n: i });
    await eventually(() => holding.holding > 0, 15_000, "the neighbour's attempts in flight");

    const sent = performance.now();
    const eventId = await emitEvent(t.app, { ownerType: 'partner', ownerId: 'tenant_b' }, 'offer.opened', { n: 'b' });
    await eventually(
      () => other.requests.some((r) => r.headers['webhook-id'] === eventId),
      3 * ATTEMPT_TIMEOUT_MS,
      "tenant_b's delivery",
    );
    const latencyMs = performance.now() - sent;
    const snapshot = { abandoned: holding.abandoned, holding: holding.holding, peak: holding.peak };
    process.stdout.write(
      `webhook fairness: tenant_b delivered ${latencyMs.toFixed(0)} ms after commit while the neighbour held ${snapshot.holding} attempts (peak ${snapshot.peak}, none ended)\n`,
    );

    // every neighbour attempt that had started was still hanging: none had timed out
    expect(snapshot.abandoned).toBe(0);
    expect(snapshot.holding).toBeGreaterThan(0);
    // the neighbour held at most its share of the worker's 20 slots (a quarter by default)
    expect(snapshot.peak).toBeLessThanOrEqual(5);

    // the neighbour's waiting deliveries were not attempted and not dropped: all pending, no attempt recorded
    const neighbour = { endpoint: { ownerType: 'partner', ownerId: 'neighbour' } };
    expect(await prisma.webhookDelivery.count({ where: { ...neighbour, status: 'pending' } })).toBe(120);
    expect(await prisma.webhookAttempt.count({ where: { delivery: neighbour } })).toBe(0);
    const deferred = await metric(t, 'webhook_deliveries_deferred_total');
    expect(deferred).toBeGreaterThan(0);

    // once the neighbour's receivers answer, every one of its parked deliveries is delivered, each once
    holding.release();
    await eventually(
      async () => (await prisma.webhookDelivery.count({ where: { ...neighbour, status: 'succeeded' } })) === 120,
      30_000,
      "all of the neighbour's deliveries",
    );
    expect(await prisma.webhookAttempt.count({ where: { delivery: neighbour } })).toBe(120);
    expect(holding.peak).toBeLessThanOrEqual(5);
    process.stdout.write(
      `webhook fairness: ${deferred} deferrals for the neighbour's ~${120 - snapshot.holding} parked deliveries while they hung\n`,
    );
  }, 120_000);

  it("one endpoint that hangs holds at most its endpoint's slots: its owner's other endpoint is still served", async () => {
    const owner = { ownerType: 'partner', ownerId: 'tenant_c' };
    expect((await createEndpoint(t, owner.ownerId, holding.url('/stuck'))).statusCode).toBe(201);
    expect((await createEndpoint(t, owner.ownerId, other.url)).statusCode).toBe(201);
    // 25 events: more than the worker's 20 slots for the stuck endpoint alone
    const events: string[] = [];
    for (let i = 0; i < 25; i++) events.push(await emitEvent(t.app, owner, 'offer.opened', { n: i }));

    await eventually(
      () => events.every((id) => other.requests.some((r) => r.headers['webhook-id'] === id)),
      3 * ATTEMPT_TIMEOUT_MS,
      'every event at the healthy endpoint',
    );
    const snapshot = { abandoned: holding.abandoned, holding: holding.holding, peak: holding.peakByPath.get('/stuck') ?? 0 };
    expect(snapshot.abandoned).toBe(0);
    expect(snapshot.holding).toBeGreaterThan(0);
    // WEBHOOK_ENDPOINT_CONCURRENCY (4 by default) attempts at most to the stuck endpoint
    expect(snapshot.peak).toBeLessThanOrEqual(4);
  }, 120_000);
});

describe('webhook endpoints per owner are capped (WEBHOOK_MAX_ENDPOINTS_PER_OWNER, default 16)', () => {
  let t: TestApp<ProbeConfig>;
  let prisma: PrismaService;
  const url = 'http://127.0.0.1:9/hook';

  beforeAll(async () => {
    t = await startTestApp(webhooksProbe, { ROLE: 'api' });
    prisma = t.app.get(PrismaService);
  });
  afterAll(async () => {
    await t.close();
  });

  const count = (ownerId: string): Promise<number> => prisma.webhookEndpoint.count({ where: { ownerType: 'partner', ownerId } });

  it('the 17th endpoint is refused with 409 webhook_endpoint_limit_reached; deleting one makes room', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) {
      const created = await createEndpoint(t, 'capped', `${url}/${i}`);
      expect(created.statusCode).toBe(201);
      ids.push(created.id ?? '');
    }
    const refused = await t.app.inject({
      method: 'POST',
      url: '/test/webhook-endpoints',
      headers: { 'x-test-owner': 'capped' },
      payload: { url: `${url}/16` },
    });
    expect(refused.statusCode).toBe(409);
    const body = refused.json<ErrorBody>();
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'webhook_endpoint_limit_reached' });
    expect(body.error.message).toMatch(/16/);
    expect(body.error.request_id).toBe(refused.headers['request-id']);
    expect(await count('capped')).toBe(16);

    // the cap is per owner
    expect((await createEndpoint(t, 'capped_other', url)).statusCode).toBe(201);
    // a deleted endpoint frees its place
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/test/webhook-endpoints/${ids[0]}`,
      headers: { 'x-test-owner': 'capped' },
    });
    expect(deleted.statusCode).toBe(200);
    expect((await createEndpoint(t, 'capped', `${url}/17`)).statusCode).toBe(201);
    expect((await createEndpoint(t, 'capped', `${url}/18`)).statusCode).toBe(409);
  });

  it('40 concurrent creates by one owner create exactly 16', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => createEndpoint(t, 'racer', `${url}/${i}`)));
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(16);
    expect(statuses.filter((s) => s === 409)).toHaveLength(24);
    expect(await count('racer')).toBe(16);
  });
});
