/**
 * Issue 21, point 2a: a Sentinel failover under traffic. The three built services run as child
 * processes given only the Sentinels of a real local group (a primary, one asynchronous
 * replica, three Sentinels: REDIS_SENTINELS, no REDIS_URL). The primary is SIGKILLed while
 * payments, indications and vector traffic runs, webhook deliveries wait for their retry, and
 * offers' lifecycle transitions and authorizations' expiries fall due before, during and after
 * the failover. The services must follow the promoted replica without a restart, and afterwards
 * every event is delivered and every due transition and expiry applied, once: whatever the
 * replica had not received yet is re-created from PostgreSQL (the outbox, the sweeps). Then the
 * killed node comes back as a replica and the group fails over again, back to it.
 *
 * The plan aims each item at a phase (before, during, after the failover), but a busy machine
 * moves the kill: an item planned "during" may fall "before" it. The guarantees hold whatever
 * phase an item fell into, so they are what is asserted; the phase each item actually fell
 * into is a figure of the report (FAULT_REPORT=1), as is how late the kill came.
 *
 * Each test starts from the same topology (a primary and an in-sync replica, nothing killed):
 * afterEach brings a killed node back as a replica. The second test makes the node it fails
 * over back to itself (a kill without traffic, then the rejoin), so either runs alone (-t).
 *
 * Authorizations: there is no short capture window (AUTHORIZATION_TTL_HOURS is whole hours,
 * at least one), so each round moves its authorizations' capture_before in PostgreSQL, as
 * test/payments-api/capture.e2e-spec.ts does. Their own expiry jobs stay an hour out: the ones
 * due before and during the failover are canceled by the sweep the services run when Redis
 * answers again, the ones due after it by the expiry jobs that sweep enqueued at the new time.
 *
 * The traffic, the accounts it runs as and the "nothing lost" checks are redis-outage's
 * (support/outage-traffic.ts, support/outage-checks.ts); the failover and its plan are this file's.
 */
import { Redis } from 'ioredis';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { Receiver } from '../webhooks/support/receiver';
import { newOffer, query, retryingDeliveries } from './support/fixtures';
import { call, contractViolation, label, must, type Outcome } from './support/http';
import { lifecycleEvents } from './support/lifecycle';
import {
  expectAllAnswered,
  expectEveryEventDelivered,
  expectLifecycleCompleted,
  expectNothingLost,
} from './support/outage-checks';
import { answeredSince, probeReady, setUpTargets, startTraffic, type Targets, WEBHOOK_ENV } from './support/outage-traffic';
import {
  assertBuilt,
  dropQueueKeys,
  queuePrefix,
  type ServiceProcess,
  sharedRedisUrl,
  sleep,
  startService,
  waitUntil,
} from './support/processes';
import { SentinelGroup } from './support/redis-topology';
import { report } from './support/report';
import type { Traffic } from './support/traffic';

/** From the planning of a round's due times to the SIGKILL: room to create its offers and authorizations. */
const KILL_AFTER_MS = 5_000;
/**
 * How long an expiry may wait for the authorization sweep: normally the one the services run
 * when Redis answers again, at worst the periodic one (AUTHORIZATION_SWEEP_INTERVAL_MS, 60 s).
 */
const EXPIRY_WAIT_MS = 70_000;

/** When an offer's or authorization's due time fell, relative to the failover (planned, then as it fell). */
type Phase = 'before' | 'during' | 'after';

interface PlannedOffer {
  readonly id: string;
  readonly phase: Phase;
  readonly opensAt: number;
  readonly closesAt: number;
}

interface PlannedAuthorization {
  readonly id: string;
  readonly phase: Phase;
  readonly captureBefore: number;
}

interface ReadinessSample {
  readonly sentAt: number;
  readonly answeredAt: number;
  readonly outcome: Outcome;
}

describe('faults: Sentinel failover (primary SIGKILLed) under traffic (all three services, built)', () => {
  let db: TestDatabase;
  let group: SentinelGroup;
  let receiver: Receiver;
  let offers: ServiceProcess;
  let payments: ServiceProcess;
  let vector: ServiceProcess;
  const services = (): ServiceProcess[] => [offers, payments, vector].filter((s) => s !== undefined);
  const prefixes = {
    offers: queuePrefix('sentinel-offers'),
    payments: queuePrefix('sentinel-payments'),
    vector: queuePrefix('sentinel-vector'),
  };
  let targets: Targets;

  beforeAll(async () => {
    assertBuilt();
    const started = Date.now();
    [db, group, receiver] = await Promise.all([createTestDatabase(), SentinelGroup.start(), Receiver.start()]);
    const groupSeconds = (Date.now() - started) / 1000;
    // Only the Sentinels: the services must ask them for the primary (and ask again after a failover).
    const env = (prefix: string) => ({
      DATABASE_URL: db.url,
      REDIS_SENTINELS: group.sentinelAddresses,
      REDIS_SENTINEL_NAME: SentinelGroup.NAME,
      QUEUE_PREFIX: prefix,
      ...WEBHOOK_ENV,
    });
    // Two rounds of traffic send more than a minute's default allowance per key; the rate
    // limits are not under test here (their counters still live in the group).
    [offers, payments, vector] = await Promise.all([
      startService('offers-api', { ...env(prefixes.offers), RATE_LIMIT_ENTERPRISE: '100000' }),
      startService('payments-api', { ...env(prefixes.payments), PAYMENTS_RATE_LIMIT_PER_MINUTE: '100000' }),
      startService('vector-api', {
        ...env(prefixes.vector),
        VECTOR_SYNC_INTERVAL_MS: '100',
        VECTOR_RATE_LIMIT_PER_MINUTE: '100000',
      }),
    ]);
    targets = await setUpTargets({ offers, payments, vector }, receiver);
    report('sentinel group', { startSeconds: groupSeconds, sentinels: group.sentinelAddresses, primary: await group.primary() });
  });

  /** Every service answers /health/ready with 200. */
  async function allReady(what: string): Promise<void> {
    await Promise.all(
      services().map((s) =>
        waitUntil(
          `${s.app} ready ${what}`,
          async () => {
            const o = await probeReady(s);
            return o.kind === 'response' && o.status === 200;
          },
          30_000,
          100,
        ),
      ),
    );
  }

  // The topology every test starts from: a node a test killed comes back as a replica.
  afterEach(async () => {
    if (targets) targets.receiving.failing = false;
    if (group?.killedNode !== undefined) {
      await group.restartKilled();
      await allReady('after the topology was restored');
    }
  });

  afterAll(async () => {
    await Promise.all(services().map((s) => s.kill()));
    // (only there if the services fell back to the shared Redis: expectKeysInTheGroup failed)
    await Promise.all(Object.values(prefixes).map((p) => dropQueueKeys(sharedRedisUrl(), p)));
    await group?.destroy();
    await receiver?.close();
    await db?.drop();
  });

  /** Polls a service's /health/ready every 100 ms until stopped, recording each answer. */
  function watchReadiness(s: ServiceProcess): { samples: ReadinessSample[]; stop: () => Promise<void> } {
    const samples: ReadinessSample[] = [];
    let stopped = false;
    const loop = (async () => {
      while (!stopped) {
        const sentAt = Date.now();
        const outcome = await probeReady(s);
        samples.push({ sentAt, answeredAt: Date.now(), outcome });
        await sleep(100); // pacing of the probe, not a wait for anything
      }
    })();
    return {
      samples,
      stop: async () => {
        stopped = true;
        await loop;
      },
    };
  }

  /** A manual-capture payment: an authorization waiting in requires_capture. */
  async function newAuthorization(key: string): Promise<string> {
    const res = await must(
      call(payments.baseUrl, 'POST', '/v2/payments', {
        headers: { ...targets.account, 'idempotency-key': key },
        body: { amount: 4_200, currency: 'usd', customer_id: targets.customer, capture_method: 'manual', metadata: { key } },
      }),
      201,
    );
    const p = res.json as { id: string; status: string };
    expect(p.status).toBe('requires_capture');
    return p.id;
  }

  /**
   * Moves an authorization's capture_before (AUTHORIZATION_TTL_HOURS is whole hours, at
   * least one): its own expiry job still waits for the original time, so only the sweep —
   * on the services' Redis reconnect, or its minutely run — can cancel it, or re-enqueue its
   * expiry at the new time. The same move test/payments-api/capture.e2e-spec.ts makes.
   */
  async function moveCaptureBefore(id: string, at: number): Promise<void> {
    await query(db.url, `UPDATE payments SET capture_before = $2 WHERE id = $1`, [id, new Date(at)]);
  }

  /** The non-2xx answers, by operation and "status code" (what the failover cost the API clients). */
  function non2xx(traffic: Traffic): Record<string, Record<string, number>> {
    const out: Record<string, Record<string, number>> = {};
    for (const s of traffic.sent) {
      if (s.outcome.kind === 'response' && s.outcome.status < 300) continue;
      const byLabel = (out[s.op] ??= {});
      byLabel[label(s.outcome)] = (byLabel[label(s.outcome)] ?? 0) + 1;
    }
    return out;
  }

  /**
   * The offer ends closed, each transition applied once, in order. (closing_soon depends on
   * how late the worker got to it: without it when opened and closed were both due first.)
   * Returns how late each transition was applied, in ms after it fell due.
   */
  async function expectPlannedOfferCompleted(offer: PlannedOffer): Promise<Record<string, number>> {
    await expectLifecycleCompleted(db.url, offer.id, 'either', `offer ${offer.id} (${offer.phase} the failover)`);
    const at = await query<{ event: string; at: Date }>(
      db.url,
      `SELECT event, created_at AS at FROM webhook_events WHERE data->>'id' = $1 AND event IN ('offer.opened', 'offer.closed')`,
      [offer.id],
    );
    const late = (event: string, due: number): number => (at.find((e) => e.event === event)?.at.getTime() ?? NaN) - due;
    return { opened: late('offer.opened', offer.opensAt), closed: late('offer.closed', offer.closesAt) };
  }

  /**
   * Each authorization past its window is canceled (reason automatic) exactly once: one
   * payment.canceled event. Returns how late each was canceled, in ms after capture_before,
   * by the phase its capture_before fell into.
   */
  async function expectExpiredOnce(
    auths: readonly PlannedAuthorization[],
    phaseOf: (due: number) => Phase,
  ): Promise<Record<Phase, number[]>> {
    const ids = auths.map((a) => a.id);
    const rows = await waitUntil(
      `${auths.length} authorizations canceled by their expiry`,
      async () => {
        const r = await query<{ id: string; status: string; reason: string | null; canceled_at: Date | null }>(
          db.url,
          `SELECT id, status, cancellation_reason AS reason, canceled_at FROM payments WHERE id = ANY($1::text[])`,
          [ids],
        );
        return r.length === auths.length && r.every((p) => p.status === 'canceled') ? r : undefined;
      },
      EXPIRY_WAIT_MS,
      250,
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, r.reason]))).toEqual(Object.fromEntries(ids.map((id) => [id, 'automatic'])));
    const events = await query<{ id: string; n: string }>(
      db.url,
      `SELECT data->>'id' AS id, count(*) AS n FROM webhook_events
        WHERE event = 'payment.canceled' AND data->>'id' = ANY($1::text[]) GROUP BY 1`,
      [ids],
    );
    expect(Object.fromEntries(events.map((e) => [e.id, Number(e.n)]))).toEqual(Object.fromEntries(ids.map((id) => [id, 1])));
    const late: Record<Phase, number[]> = { before: [], during: [], after: [] };
    for (const a of auths) {
      late[phaseOf(a.captureBefore)].push((rows.find((r) => r.id === a.id)?.canceled_at?.getTime() ?? NaN) - a.captureBefore);
    }
    return late;
  }

  function tallyBy(names: readonly string[]): Record<string, number> {
    const out: Record<string, number> = {};
    for (const n of names) out[n] = (out[n] ?? 0) + 1;
    return out;
  }

  /** Key names by owner: each service's BullMQ prefix, the rate-limit namespaces, the rest. */
  function keyOwners(keys: readonly string[]): Record<string, number> {
    const owners: Record<string, number> = {};
    for (const k of keys) {
      const owner =
        Object.entries(prefixes).find(([, p]) => k.startsWith(`${p}:`))?.[0] ??
        (k.startsWith('ratelimit:') ? k.split(':').slice(0, 2).join(':') : 'other');
      owners[owner] = (owners[owner] ?? 0) + 1;
    }
    return owners;
  }

  /**
   * BullMQ job hashes (`<prefix>:<queue>:<job id>`) the old primary had and the new one does
   * not, by queue: the lifecycle and authorization queues keep their jobs a day, so one gone
   * was lost; a webhook delivery's job is removed once delivered, so see deliveryJobsLost.
   */
  function missingJobs(before: readonly string[], after: readonly string[]): Array<{ queue: string; id: string }> {
    const now = new Set(after);
    const structures = new Set(['wait', 'active', 'delayed', 'completed', 'failed', 'paused', 'prioritized', 'pc', 'marker']);
    const out: Array<{ queue: string; id: string }> = [];
    for (const k of before) {
      if (now.has(k)) continue;
      const prefix = Object.values(prefixes).find((p) => k.startsWith(`${p}:`));
      if (!prefix) continue;
      const [queue, id, ...rest] = k.slice(prefix.length + 1).split(':');
      if (queue === undefined || id === undefined || rest.length > 0 || structures.has(id) || /^[a-z-]+$/.test(id)) continue;
      out.push({ queue, id });
    }
    return out;
  }

  /**
   * Of the delivery jobs (job id = delivery id) the new primary lacked, those whose delivery
   * first succeeded only after the kill: their job was still needed, so the replica lost it
   * and the services re-created it from PostgreSQL. (The others had completed just before.)
   */
  async function deliveryJobsLost(jobs: ReadonlyArray<{ queue: string; id: string }>, killedAt: number): Promise<number> {
    const ids = jobs.filter((j) => j.queue.startsWith('webhook-deliveries-')).map((j) => j.id);
    if (ids.length === 0) return 0;
    const rows = await query<{ id: string; ok_at: Date | null }>(
      db.url,
      `SELECT d.id, min(a.created_at) FILTER (WHERE a.status_code BETWEEN 200 AND 299) AS ok_at
         FROM webhook_deliveries d LEFT JOIN webhook_attempts a ON a.delivery_id = d.id
        WHERE d.id = ANY($1::text[]) GROUP BY d.id`,
      [ids],
    );
    return rows.filter((r) => r.ok_at !== null && r.ok_at.getTime() >= killedAt).length;
  }

  /** The sweeps' reports in a service's log since `since` (lines of lifecycle.worker, authorization-expiry.worker, outbox-dispatcher). */
  function sweepLines(s: ServiceProcess, since: number): string[] {
    return s.logs
      .filter((l) => Date.parse(String(l['time'])) >= since)
      .map((l) => String(l['msg']))
      .filter(
        (m) =>
          m.startsWith('lifecycle sweep on ') ||
          m.startsWith('authorization sweep on ') ||
          m.startsWith('Redis reconnected: re-enqueued') ||
          m.startsWith('sweep re-enqueued') ||
          m === 'Redis connection is back',
      );
  }

  /** The services' keys are in this group, not in the shared Redis the suite's other tests use (no REDIS_URL fallback). */
  async function expectKeysInTheGroup(keys: readonly string[]): Promise<void> {
    const owners = keyOwners(keys);
    const inGroup = { offers: owners['offers'] ?? 0, payments: owners['payments'] ?? 0, vector: owners['ratelimit:vector'] ?? 0 };
    expect(Object.values(inGroup).every((n) => n > 0) ? 'each service' : inGroup).toBe('each service');
    const shared = new Redis(sharedRedisUrl(), { lazyConnect: true, maxRetriesPerRequest: 1 });
    shared.on('error', () => undefined);
    try {
      await shared.connect();
      const found = await Promise.all(Object.values(prefixes).map((p) => shared.keys(`${p}:*`)));
      expect(found.flat()).toEqual([]);
    } finally {
      shared.disconnect();
    }
  }

  /**
   * One failover under traffic, with every assertion of the brief; returns the figures.
   * `round` names the round's rows (Idempotency-Keys, vector ids).
   */
  async function failoverRound(round: string): Promise<Record<string, unknown>> {
    const roundStart = new Date();
    const traffic = startTraffic(targets, round);
    let watchers: Array<ReturnType<typeof watchReadiness>> = [];
    try {
      return await failoverUnderTraffic(round, roundStart, traffic, (w) => (watchers = w));
    } finally {
      // also when an assertion failed half-way: no loop may outlive its round
      targets.receiving.failing = false;
      await Promise.all(watchers.map((w) => w.stop()));
      await traffic.stop();
    }
  }

  async function failoverUnderTraffic(
    round: string,
    roundStart: Date,
    traffic: Traffic,
    watching: (w: Array<ReturnType<typeof watchReadiness>>) => void,
  ): Promise<Record<string, unknown>> {
    await answeredSince(traffic, 0, 'steady traffic before the failover', { served: true, n: 10 });

    // Due before the kill planned at `killAt`, during the failover (within 1.3 s of the kill:
    // the Sentinels alone wait 1 s before they call the primary down) and after it.
    const plannedAt = Date.now();
    const killAt = plannedAt + KILL_AFTER_MS;
    const offerPlan: Array<Omit<PlannedOffer, 'id'>> = [
      { phase: 'before', opensAt: plannedAt + 500, closesAt: plannedAt + 2_000 },
      { phase: 'during', opensAt: killAt + 600, closesAt: killAt + 1_300 },
      { phase: 'during', opensAt: killAt - 1_000, closesAt: killAt + 1_300 },
      { phase: 'after', opensAt: killAt + 8_000, closesAt: killAt + 10_000 },
    ];
    const plannedOffers: PlannedOffer[] = [];
    for (const p of offerPlan) {
      plannedOffers.push({ ...p, id: await newOffer(offers.baseUrl, targets.partner, p.opensAt, p.closesAt) });
    }
    const expiryPlan: Array<[Phase, number]> = [
      ['before', plannedAt + 1_000],
      ['before', plannedAt + 2_000],
      ['during', killAt + 600],
      ['during', killAt + 1_200],
      ['after', killAt + 6_000],
      ['after', killAt + 7_000],
    ];
    const authorizations: PlannedAuthorization[] = [];
    for (const [i, [phase, captureBefore]] of expiryPlan.entries()) {
      const id = await newAuthorization(`${round}-auth-${i}`);
      await moveCaptureBefore(id, captureBefore);
      authorizations.push({ id, phase, captureBefore });
    }
    // Just before the kill the receiver fails: those deliveries wait for their retry in
    // delayed jobs on the primary, which the replica may or may not have received.
    // (Aiming the kill at the plan, not waiting for anything: the real clock is what makes the
    // plan fall due. A late kill only moves items to another phase, which the report shows.)
    await sleep(Math.max(0, killAt - 1_500 - Date.now()));
    targets.receiving.failing = true;
    await waitUntil('deliveries waiting for a retry', async () => (await retryingDeliveries(db.url)) > 0, 10_000, 100);
    await sleep(Math.max(0, killAt - 200 - Date.now())); // (what follows takes about that long)

    const watchers = services().map((s) => watchReadiness(s));
    watching(watchers);
    const keysBefore = await group.keys();
    const primaryBefore = await group.primary();
    const retrying = await retryingDeliveries(db.url);
    const killing = group.killPrimary().then(async (f) => ({ failover: f, keysAfterPromotion: await group.keys() }));
    // The retries now waiting are what the failover must keep or rebuild; the receiver takes
    // them again (none can run before Redis answers), before any delivery runs out of attempts.
    targets.receiving.failing = false;
    // An admin write that schedules lifecycle jobs once the primary is dead (the Sentinels take
    // at least their 1 s down-after to promote anyone) answers within its bounded wait (its
    // jobs: enqueued once Redis answers, or by a sweep). Whether it landed before the promotion
    // is a figure.
    await waitUntil('the primary killed', () => group.killedNode !== undefined, 10_000, 10);
    const createdAt = Date.now();
    const createdDuring: PlannedOffer = {
      phase: 'during',
      opensAt: createdAt + 3_000,
      closesAt: createdAt + 5_000,
      id: await newOffer(offers.baseUrl, targets.partner, createdAt + 3_000, createdAt + 5_000),
    };
    const adminWriteSeconds = (Date.now() - createdAt) / 1000;
    const adminWroteAt = Date.now();
    const { failover, keysAfterPromotion } = await killing;
    const promotedAt = failover.killedAt + failover.seconds * 1000;
    expect(failover.primary).not.toBe(primaryBefore);
    expect(retrying).toBeGreaterThan(0);
    await expectKeysInTheGroup(keysBefore);
    await answeredSince(traffic, failover.killedAt, 'traffic answered during the failover');

    // Each service ready again: a 200 to a probe sent after the promotion came from the new primary (the old one is dead).
    const readyAgain = await Promise.all(
      watchers.map((w, i) =>
        waitUntil(
          `${services()[i]?.app} ready again on the new primary`,
          () => w.samples.find((x) => x.sentAt >= promotedAt && x.outcome.kind === 'response' && x.outcome.status === 200),
          20_000,
          100,
        ).catch((err: unknown) => {
          // what the service said about Redis meanwhile is the diagnosis
          const warnings = (services()[i]?.logs ?? []).filter((l) => Number(l['level']) >= 40).slice(-8);
          throw new Error(`${(err as Error).message}; its last warnings: ${warnings.map((l) => String(l['msg'])).join(' | ')}`);
        }),
      ),
    );
    await Promise.all(watchers.map((w) => w.stop()));
    // the same processes: no restart was needed
    expect(services().map((s) => s.running())).toEqual([true, true, true]);
    // The phase each item fell into (a figure, not asserted: the guarantees below hold in
    // each): before the kill, while the services were failing over (from the kill until the
    // last one was ready again), after that.
    const readyAllAt = Math.max(...readyAgain.map((r) => r.answeredAt));
    const phaseOf = (due: number): Phase => (due < failover.killedAt ? 'before' : due <= readyAllAt ? 'during' : 'after');
    const fellInto = {
      offers: tallyBy(
        [...plannedOffers, createdDuring].map((o) => `${o.phase} → opened ${phaseOf(o.opensAt)}, closed ${phaseOf(o.closesAt)}`),
      ),
      authorizations: tallyBy(authorizations.map((a) => `${a.phase} → ${phaseOf(a.captureBefore)}`)),
      offPlan:
        plannedOffers.filter((o) => ![o.opensAt, o.closesAt].map(phaseOf).includes(o.phase)).length +
        authorizations.filter((a) => phaseOf(a.captureBefore) !== a.phase).length,
    };
    // readiness always answered, 200 or 503 in the contract body (never a hang)
    const readiness = watchers.map((w) => w.samples.filter((x) => x.sentAt >= failover.killedAt));
    for (const samples of readiness) {
      const bad = samples.filter(
        (x) =>
          !(
            x.outcome.kind === 'response' &&
            (x.outcome.status === 200 || (x.outcome.status === 503 && !contractViolation(x.outcome)))
          ),
      );
      expect(bad.map((x) => label(x.outcome))).toEqual([]);
    }

    await answeredSince(traffic, Date.now(), 'traffic served after the failover', { served: true, n: 10 });
    // traffic keeps running until every offer of the plan has closed (the last falls due after the failover)
    await waitUntil(
      'every planned offer closed',
      async () => {
        for (const o of [...plannedOffers, createdDuring]) {
          if (!(await lifecycleEvents(db.url, o.id)).some((e) => e.event === 'offer.closed')) return false;
        }
        return true;
      },
      EXPIRY_WAIT_MS,
      250,
    );
    await traffic.stop();

    expectAllAnswered(traffic);
    await expectNothingLost(db.url, targets, traffic, round);
    const lifecycleLateMs: Record<string, Record<string, number>> = {};
    for (const [i, o] of [...plannedOffers, createdDuring].entries()) {
      lifecycleLateMs[`${i}:closed ${phaseOf(o.closesAt)}`] = await expectPlannedOfferCompleted(o);
    }
    const expiryLateMs = await expectExpiredOnce(authorizations, phaseOf);
    const events = await expectEveryEventDelivered(db.url, targets.receiving.acknowledged, 20_000, roundStart);
    expect(events).toBeGreaterThan(20);

    // What the new primary holds now that the services wrote to it: keys of each of them it did not have before the kill.
    const keysAtEnd = await group.keys();
    const old = new Set(keysBefore);
    const newSinceKill = keyOwners(keysAtEnd.filter((k) => !old.has(k)));
    expect({ offers: (newSinceKill['offers'] ?? 0) > 0, payments: (newSinceKill['payments'] ?? 0) > 0 }).toEqual({
      offers: true,
      payments: true,
    });

    const readyAgainSeconds = Object.fromEntries(
      services().map((s, i) => [s.app, ((readyAgain[i]?.answeredAt ?? NaN) - failover.killedAt) / 1000]),
    );
    const readinessDuringFailover = Object.fromEntries(
      services().map((s, i) => [
        s.app,
        (readiness[i] ?? [])
          .filter((x) => x.sentAt <= (readyAgain[i]?.sentAt ?? 0))
          .reduce<Record<string, number>>((acc, x) => ({ ...acc, [label(x.outcome)]: (acc[label(x.outcome)] ?? 0) + 1 }), {}),
      ]),
    );
    const gone = missingJobs(keysBefore, keysAfterPromotion);
    const apiNon2xx = non2xx(traffic);
    const api503 = Object.values(apiNon2xx)
      .flatMap((byLabel) => Object.entries(byLabel))
      .filter(([l]) => l.startsWith('503'))
      .reduce((a, [, n]) => a + n, 0);
    return {
      failover: {
        from: primaryBefore,
        to: failover.primary,
        promotionSeconds: failover.seconds,
        killedLaterThanPlannedMs: failover.killedAt - killAt,
      },
      fellInto,
      adminWriteDuringFailover: { status: 201, seconds: adminWriteSeconds, answeredBeforePromotion: adminWroteAt < promotedAt },
      readyAgainSeconds,
      readinessDuringFailover,
      apiNon2xx,
      api503,
      keys: {
        dbsizeJustBeforeKill: keysBefore.length,
        dbsizeRightAfterPromotion: keysAfterPromotion.length,
        byOwnerBefore: keyOwners(keysBefore),
        byOwnerAfterPromotion: keyOwners(keysAfterPromotion),
        keysGoneAtPromotion: keysBefore.filter((k) => !new Set(keysAfterPromotion).has(k)).length,
        jobsGoneAtPromotion: tallyBy(gone.map((j) => j.queue)),
        deliveryJobsLost: await deliveryJobsLost(gone, failover.killedAt),
      },
      retryingDeliveriesAtKill: retrying,
      reEnqueuedBySweeps: Object.fromEntries(services().map((s) => [s.app, sweepLines(s, failover.killedAt)])),
      lifecycleLateMs,
      expiryLateMs,
      traffic: traffic.summary(),
      events,
    };
  }

  it('the primary SIGKILLed: services follow the promoted replica without a restart, nothing lost, every due transition and expiry once', async () => {
    const facts = await failoverRound('s1');
    report('sentinel failover 1 (primary SIGKILLed)', facts);
  });

  it('the killed node back as a replica, then failover back to it: the same guarantees', async () => {
    // its own node to fail back to: a primary killed (no traffic yet), back as a replica
    await group.killPrimary();
    const rejoin = await group.restartKilled();
    await allReady('on the promoted replica');
    const facts = await failoverRound('s2');
    report('sentinel failover 2 (back to the restarted node)', {
      rejoinSeconds: rejoin.seconds,
      rejoined: rejoin.replica,
      ...facts,
    });
  });
});
