/**
 * Scenario 1: Redis stopped and restarted during traffic. The three built services run as
 * child processes against a private redis-server (temp dir, free port), which is SIGKILLed
 * under steady traffic and restarted on the same port a few seconds later — first with its
 * append-only file (fsync always: everything acknowledged survives), then EMPTY (no
 * persistence: every job, delayed job and job scheduler is gone).
 */
import { createTestDatabase, type TestDatabase } from '../support/database';
import { Receiver } from '../webhooks/support/receiver';
import {
  type Auth,
  newAccount,
  newCustomer,
  newOffer,
  newPartner,
  newVectorToken,
  newWebhookEndpoint,
  type Partner,
  publishTerms,
  query,
} from './support/fixtures';
import { call, contractViolation, type ContractError, must, type Outcome } from './support/http';
import { assertBuilt, queuePrefix, type ServiceProcess, sleep, startService, waitUntil } from './support/processes';
import { type ClosingSoon, expectOnceEachInOrder, lifecycleEvents } from './support/lifecycle';
import { PrivateRedis } from './support/redis-server';
import { report } from './support/report';
import { Traffic } from './support/traffic';

/** Scaled-down delivery settings (libs/webhooks/src/webhooks.config.ts). */
const WEBHOOK_ENV = {
  WEBHOOK_SWEEP_INTERVAL_MS: '250',
  WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1s,1s,1s,1s,1s',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_LOCK_DURATION_MS: '4000',
};
/** No bounded wait in the services is longer (Redis enqueue 5 s, offer scheduling 2 s, pool 5 s): a timeout is a hang. */
const CLIENT_TIMEOUT_MS = 12_000;

describe('faults: Redis killed and restarted during traffic (all three services, built)', () => {
  let db: TestDatabase;
  let redis: PrivateRedis;
  let receiver: Receiver;
  let offers: ServiceProcess;
  let payments: ServiceProcess;
  let vector: ServiceProcess;
  const services = (): ServiceProcess[] => [offers, payments, vector].filter((s) => s !== undefined);
  let partner: Partner;
  let terms: string;
  let liveOffer: string;
  let account: Auth;
  let customer: string;
  let vectorAuth: Auth;
  /** Event ids the receiver answered 2xx; while `receiverFailing` it answers 503. */
  const acknowledged = new Set<string>();
  let receiverFailing = false;

  beforeAll(async () => {
    assertBuilt();
    db = await createTestDatabase();
    redis = await PrivateRedis.create();
    await redis.start({ persistent: true });
    receiver = await Receiver.start();
    receiver.handler = (r) => {
      if (receiverFailing) return { status: 503 };
      acknowledged.add(String(r.headers['webhook-id']));
      return { status: 200 };
    };
    const env = (label: string) => ({
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: queuePrefix(label),
      ...WEBHOOK_ENV,
    });
    [offers, payments, vector] = await Promise.all([
      startService('offers-api', env('offers')),
      startService('payments-api', env('payments')),
      startService('vector-api', { ...env('vector'), VECTOR_SYNC_INTERVAL_MS: '100' }),
    ]);
    partner = await newPartner(offers.baseUrl);
    terms = await publishTerms(offers.baseUrl);
    liveOffer = await newOffer(offers.baseUrl, partner, Date.now() - 3_600_000, Date.now() + 24 * 3_600_000);
    await newWebhookEndpoint(offers.baseUrl, '/api/v1/webhook-endpoints', partner.auth, receiver.url);
    const acct = await newAccount(payments.baseUrl);
    account = acct.auth;
    customer = await newCustomer(payments.baseUrl, account);
    await newWebhookEndpoint(payments.baseUrl, '/v2/webhook-endpoints', account, receiver.url);
    vectorAuth = await newVectorToken(vector.baseUrl);
    await must(
      call(vector.baseUrl, 'POST', '/v1/tables', { headers: vectorAuth, body: { name: 'faults', dimension: 4, index: 'hnsw' } }),
      201,
    );
  });

  afterAll(async () => {
    await Promise.all(services().map((s) => s.kill()));
    await redis?.destroy();
    await receiver?.close();
    await db?.drop();
  });

  /** Payments, indications, vector inserts and queries, each in its own loop. */
  function startTraffic(round: string): Traffic {
    const traffic = new Traffic();
    const t = { timeoutMs: CLIENT_TIMEOUT_MS };
    traffic.run('payments.create', (seq) => {
      const key = `${round}-pay-${seq}`;
      return {
        key,
        send: () =>
          call(payments.baseUrl, 'POST', '/v2/payments', {
            ...t,
            headers: { ...account, 'idempotency-key': key },
            body: { amount: 500 + seq, currency: 'usd', customer_id: customer, metadata: { key } },
          }),
      };
    });
    traffic.run('offers.indicate', (seq) => {
      const key = `${round}-ind-${seq}`;
      return {
        key,
        send: () =>
          call(offers.baseUrl, 'POST', `/api/v1/offers/${liveOffer}/indications`, {
            ...t,
            headers: { ...partner.auth, 'idempotency-key': key },
            body: { investor_id: `inv_${key}`, amount: 25_000, currency: 'gbp', terms_accepted: true, terms_version: terms },
          }),
      };
    });
    traffic.run('vector.insert', (seq) => {
      const key = `${round}-vec-${seq}`;
      const embedding = [1, seq % 7, (seq * 3) % 11, 0.5];
      return {
        key,
        send: () =>
          call(vector.baseUrl, 'POST', '/v1/tables/faults/insert', {
            ...t,
            headers: vectorAuth,
            body: { rows: [{ id: key, embedding }] },
          }),
      };
    });
    traffic.run('vector.query', (seq) => ({
      key: `${round}-q-${seq}`,
      send: () =>
        call(vector.baseUrl, 'POST', '/v1/tables/faults/query', {
          ...t,
          headers: vectorAuth,
          body: { vector: [1, seq % 5, 1, 0], n: 3 },
        }),
    }));
    return traffic;
  }

  function ready(s: ServiceProcess): Promise<Outcome> {
    return call(s.baseUrl, 'GET', '/health/ready', { timeoutMs: CLIENT_TIMEOUT_MS });
  }

  /** Every service's /health/ready answers (never hangs) 503 naming redis, in the contract body. */
  async function expectNotReadyNamingRedis(): Promise<void> {
    const answers = await Promise.all(
      services().map((s) =>
        waitUntil(
          `${s.app} readiness 503`,
          async () => {
            const r = await must(ready(s));
            return r.status === 503 ? r : undefined;
          },
          10_000,
        ),
      ),
    );
    answers.forEach((o, i) => {
      const error = (o.json as ContractError).error;
      expect({
        app: services()[i]?.app,
        violation: contractViolation(o),
        type: error.type,
        code: error.code,
        namesRedis: error.message.includes('redis'),
        checks: error['checks'],
      }).toEqual({
        app: services()[i]?.app,
        violation: undefined,
        type: 'api_error',
        code: 'service_unavailable',
        namesRedis: true,
        checks: { postgres: 'up', redis: 'down' },
      });
    });
  }

  async function expectReadyAgain(): Promise<void> {
    await Promise.all(
      services().map((s) =>
        waitUntil(
          `${s.app} readiness 200 after Redis restarted`,
          async () => {
            const o = await ready(s);
            return o.kind === 'response' && o.status === 200;
          },
          20_000,
          200,
        ),
      ),
    );
    // the same processes: no restart was needed
    expect(services().map((s) => s.running())).toEqual([true, true, true]);
  }

  /** Every request got a complete answer: a success, or a 503 in the contract body. Never a hang or a dropped connection. */
  function expectAllAnswered(traffic: Traffic): void {
    const summary = traffic.summary();
    for (const op of ['payments.create', 'offers.indicate', 'vector.insert', 'vector.query']) {
      expect(Object.values(summary[op] ?? {}).reduce((a, b) => a + b, 0)).toBeGreaterThan(5);
    }
    const bad = traffic.sent.filter((s) => {
      const o = s.outcome;
      if (o.kind !== 'response') return true;
      if (o.status === 200 || o.status === 201) return false;
      return o.status !== 503 || contractViolation(o) !== undefined;
    });
    expect({ summary, bad: bad.slice(0, 5) }).toEqual({ summary, bad: [] });
  }

  /** Every acknowledged write is in PostgreSQL under the id its response gave, and nothing else was written: counts and ids match. */
  async function expectNothingLost(traffic: Traffic, round: string): Promise<void> {
    const acked = (op: string) =>
      traffic.sent.filter((s) => s.op === op && s.outcome.kind === 'response' && s.outcome.status === 201);
    const idOf = (o: Outcome) => (o.kind === 'response' ? (o.json as { id: string }).id : '');

    const pays = acked('payments.create');
    const payRows = await query<{ id: string; key: string }>(
      db.url,
      `SELECT id, metadata->>'key' AS key FROM payments WHERE metadata->>'key' LIKE $1`,
      [`${round}-pay-%`],
    );
    const payByKey = new Map(payRows.map((r) => [r.key, r.id]));
    expect(pays.filter((s) => payByKey.get(s.key) !== idOf(s.outcome)).map((s) => s.key)).toEqual([]);
    expect(payRows.length).toBe(pays.length);

    const inds = acked('offers.indicate');
    const indRows = await query<{ id: string }>(db.url, `SELECT id FROM indications WHERE investor_id LIKE $1`, [
      `inv_${round}-ind-%`,
    ]);
    const indIds = new Set(indRows.map((r) => r.id));
    expect(inds.filter((s) => !indIds.has(idOf(s.outcome))).map((s) => s.key)).toEqual([]);
    expect(indRows.length).toBe(inds.length);

    const vecs = acked('vector.insert');
    const vecRows = await query<{ id: string }>(db.url, `SELECT id FROM vector_rows WHERE id LIKE $1`, [`${round}-vec-%`]);
    const vecIds = new Set(vecRows.map((r) => r.id));
    expect(vecs.filter((s) => !vecIds.has(s.key)).map((s) => s.key)).toEqual([]);
    expect(vecRows.length).toBe(vecs.length);
    // and the service still finds them (the in-memory index followed)
    if (vecs.length > 0) {
      const q = await must(
        call(vector.baseUrl, 'POST', '/v1/tables/faults/query', {
          headers: vectorAuth,
          body: { vector: [1, 0, 0, 0.5], n: 1000, filter: {} },
        }),
        200,
      );
      const found = new Set((q.json as { results: Array<{ id: string }> }).results.map((r) => r.id));
      expect(vecs.filter((s) => !found.has(s.key)).map((s) => s.key)).toEqual([]);
    }
  }

  /**
   * Every event of this round (written since `since`) was acknowledged (2xx) by the receiver
   * at least once, and every delivery is `succeeded`; returns how many events the round wrote.
   */
  async function expectEveryEventDelivered(timeoutMs: number, since: Date): Promise<number> {
    const events = await query<{ id: string }>(db.url, `SELECT id FROM webhook_events WHERE created_at >= $1`, [since]);
    const missing = (): string[] => events.map((e) => e.id).filter((id) => !acknowledged.has(id));
    await waitUntil(
      'every delivery succeeded',
      async () => {
        const open = await query(db.url, `SELECT id FROM webhook_deliveries WHERE status <> 'succeeded'`);
        return open.length === 0;
      },
      timeoutMs,
      200,
    );
    await waitUntil(`every webhook event delivered (${events.length})`, () => missing().length === 0, timeoutMs, 200).catch(
      (err: unknown) => {
        throw new Error(`${(err as Error).message}; missing ${missing().length}: ${missing().slice(0, 5).join(', ')}`);
      },
    );
    return events.length;
  }

  /** The offer ends closed, each transition applied once, in order. */
  async function expectLifecycleCompleted(offerId: string, closingSoon: ClosingSoon): Promise<void> {
    const events = await waitUntil(
      `offer ${offerId} closed`,
      async () => {
        const e = await lifecycleEvents(db.url, offerId);
        return e.some((x) => x.event === 'offer.closed') ? e : undefined;
      },
      20_000,
      200,
    );
    expectOnceEachInOrder(
      offerId,
      events.map((e) => e.event),
      closingSoon,
    );
    const status = await query<{ status: string }>(db.url, `SELECT status FROM offers WHERE id = $1`, [offerId]);
    expect(status).toEqual([{ status: 'closed' }]);
  }

  const LOOPS = ['payments.create', 'offers.indicate', 'vector.insert', 'vector.query'];

  /**
   * Waits until every traffic loop has had `n` requests answered that it sent at or after
   * `since` (with `served`, answered 2xx): the traffic really ran through that phase.
   */
  function answeredSince(traffic: Traffic, since: number, what: string, { served = false, n = 3 } = {}): Promise<true> {
    const counts = (s: { startedAt: number; outcome: Outcome }): boolean =>
      s.startedAt >= since && (!served || (s.outcome.kind === 'response' && s.outcome.status < 300));
    return waitUntil(
      `${what} (${n} answers per loop)`,
      () => LOOPS.every((op) => traffic.sent.filter((s) => s.op === op && counts(s)).length >= n),
      20_000,
      100,
    );
  }

  /**
   * The services run as child processes on the real clock, so an offer's transitions fall
   * due only when real time reaches them: this waits for that (there is no condition to
   * observe while Redis, which holds their jobs, is down).
   */
  async function untilDue(at: number): Promise<void> {
    await sleep(Math.max(0, at - Date.now()));
  }

  it('with persistence (AOF): APIs stay up, readiness flips 503 → 200, queued and outbox work completes, nothing lost', async () => {
    const roundStart = new Date();
    const traffic = startTraffic('aof');
    await answeredSince(traffic, 0, 'steady traffic before the outage', { served: true, n: 10 });
    // due while Redis is down (killed right after): its delayed jobs wait in the (persisted) Redis
    const now = Date.now();
    const dueDuringOutage = { opensAt: now + 1_000, closesAt: now + 2_500 };
    const dueDuringOutageId = await newOffer(offers.baseUrl, partner, dueDuringOutage.opensAt, dueDuringOutage.closesAt);

    await redis.kill();
    const killedAt = Date.now();
    await expectNotReadyNamingRedis();
    // an admin write that schedules lifecycle jobs answers within its bounded wait
    const createdDuringOutage = await newOffer(offers.baseUrl, partner, Date.now() + 4_000, Date.now() + 7_000);
    await answeredSince(traffic, killedAt, 'traffic answered during the outage');
    await untilDue(dueDuringOutage.closesAt);
    await redis.start({ persistent: true });
    expect(await redis.dbsize()).toBeGreaterThan(0); // it really came back with its data

    await expectReadyAgain();
    await answeredSince(traffic, Date.now(), 'traffic served again after the restart', { served: true, n: 10 });
    await traffic.stop();

    expectAllAnswered(traffic);
    await expectNothingLost(traffic, 'aof');
    // (closing_soon depends on how late the worker got to each offer; each once, in order, always)
    await expectLifecycleCompleted(dueDuringOutageId, 'either');
    await expectLifecycleCompleted(createdDuringOutage, 'either');
    const events = await expectEveryEventDelivered(20_000, roundStart);
    expect(events).toBeGreaterThan(20);
    report('redis restarted with AOF', { traffic: traffic.summary(), events });
  });

  it('EMPTY after the restart: the outbox is still delivered and lifecycle transitions still happen', async () => {
    const roundStart = new Date();
    const traffic = startTraffic('empty');
    await answeredSince(traffic, 0, 'steady traffic before the outage', { served: true, n: 10 });
    // the receiver fails just before the crash: those deliveries wait for their retry in
    // delayed jobs, which the empty Redis no longer has
    receiverFailing = true;
    const retryingDeliveries = async (): Promise<number> =>
      Number(
        (
          await query<{ n: string }>(
            db.url,
            `SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND attempt_count > 0`,
          )
        )[0]?.n,
      );
    await waitUntil('deliveries waiting for a retry', async () => (await retryingDeliveries()) > 0, 10_000, 100);
    // due during the outage, and after it: both plans' delayed jobs die with Redis' data
    const now = Date.now();
    const dueDuringOutage = { opensAt: now + 1_000, closesAt: now + 2_500 };
    const dueAfterOutage = { opensAt: now + 10_000, closesAt: now + 13_000 };
    const dueDuringOutageId = await newOffer(offers.baseUrl, partner, dueDuringOutage.opensAt, dueDuringOutage.closesAt);
    const dueAfterOutageId = await newOffer(offers.baseUrl, partner, dueAfterOutage.opensAt, dueAfterOutage.closesAt);

    await redis.kill();
    const killedAt = Date.now();
    receiverFailing = false;
    const retrying = await retryingDeliveries();
    expect(retrying).toBeGreaterThan(0);
    await expectNotReadyNamingRedis();
    await answeredSince(traffic, killedAt, 'traffic answered during the outage');
    await untilDue(dueDuringOutage.closesAt);
    await redis.start({ persistent: false });
    expect(Date.now()).toBeLessThan(dueAfterOutage.opensAt); // its transitions are still ahead, their jobs gone

    await expectReadyAgain();
    await answeredSince(traffic, Date.now(), 'traffic served again after the restart', { served: true, n: 10 });
    await traffic.stop();

    expectAllAnswered(traffic);
    await expectNothingLost(traffic, 'empty');
    // without their jobs, only the sweep re-created at the reconnect can close these
    await expectLifecycleCompleted(dueDuringOutageId, 'either');
    await expectLifecycleCompleted(dueAfterOutageId, 'either');
    const events = await expectEveryEventDelivered(20_000, roundStart);
    expect(events).toBeGreaterThan(40);
    report('redis restarted EMPTY', {
      traffic: traffic.summary(),
      retryingDeliveriesLostWithRedis: retrying,
      events,
    });
  });
});
