/**
 * Scenario 2: PostgreSQL connection loss. payments-api (built, child process) reaches its
 * database through a TCP proxy that the test cuts — open connections destroyed, new ones
 * black-holed (a partition) and then refused (a dead server) — and restores, without ever
 * restarting the service.
 */
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { Receiver } from '../webhooks/support/receiver';
import { newAccount, newCustomer, newWebhookEndpoint, query, type PaymentsAccount } from './support/fixtures';
import { call, contractViolation, must, type Outcome, type Response, tally } from './support/http';
import {
  assertBuilt,
  dropQueueKeys,
  queuePrefix,
  sharedRedisUrl,
  type ServiceProcess,
  startService,
  waitUntil,
} from './support/processes';
import { TcpProxy } from './support/tcp-proxy';

/** Longer than any bounded wait in the service (pool connect 5 s, readiness 2 s): a timeout here is a hang. */
const CLIENT_TIMEOUT_MS = 12_000;

function expectUnavailable(o: Outcome, what: string): Response {
  if (o.kind !== 'response')
    throw new Error(`${what}: expected a 503, got ${o.kind}${o.kind === 'connection' ? ` ${o.code}` : ''}`);
  expect({ what, status: o.status, violation: contractViolation(o) }).toEqual({ what, status: 503, violation: undefined });
  expect(o.json).toMatchObject({ error: { type: 'api_error', code: 'service_unavailable' } });
  expect(o.headers.get('retry-after')).toMatch(/^\d+$/);
  return o;
}

describe('faults: PostgreSQL connection loss (payments-api through a TCP proxy)', () => {
  const prefix = queuePrefix('pg');
  let db: TestDatabase;
  let proxy: TcpProxy;
  let service: ServiceProcess | undefined;
  let receiver: Receiver;

  beforeAll(async () => {
    assertBuilt();
    db = await createTestDatabase();
    receiver = await Receiver.start();
    const target = new URL(db.url);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
  });
  afterAll(async () => {
    await service?.kill();
    await proxy?.close();
    await receiver?.close();
    await db?.drop();
    await dropQueueKeys(sharedRedisUrl(), prefix);
  });

  it('answers 503 service_unavailable (never hangs) while the database is unreachable, and recovers without a restart', async () => {
    service = await startService('payments-api', {
      DATABASE_URL: proxy.rewrite(db.url),
      REDIS_URL: sharedRedisUrl(),
      QUEUE_PREFIX: prefix,
      WEBHOOK_SWEEP_INTERVAL_MS: '200',
    });
    const base = service.baseUrl;
    const account: PaymentsAccount = await newAccount(base);
    const customer = await newCustomer(base, account.auth);
    await newWebhookEndpoint(base, '/v2/webhook-endpoints', account.auth, receiver.url);
    const pay = (key: string): Promise<Outcome> =>
      call(base, 'POST', '/v2/payments', {
        headers: { ...account.auth, 'idempotency-key': key },
        body: { amount: 1000, currency: 'usd', customer_id: customer, metadata: { key } },
        timeoutMs: CLIENT_TIMEOUT_MS,
      });
    await must(call(base, 'GET', '/health/ready'), 200);
    const before = await must(pay(`before-${randomUUID()}`), 201);
    const beforeId = (before.json as { id: string }).id;

    const outageKeys: string[] = [];
    for (const mode of ['blackhole', 'refuse'] as const) {
      proxy.cut(mode);
      const ready = expectUnavailable(
        await call(base, 'GET', '/health/ready', { timeoutMs: CLIENT_TIMEOUT_MS }),
        `ready (${mode})`,
      );
      expect(ready.json).toMatchObject({ error: { checks: { postgres: 'down', redis: 'up' } } });
      expect((ready.json as { error: { message: string } }).error.message).toContain('postgres');

      // writes, reads and lists, several at once (they share the pool)
      const keys = [1, 2, 3].map((i) => `outage-${mode}-${i}-${randomUUID()}`);
      outageKeys.push(...keys);
      const outcomes = await Promise.all([
        ...keys.map(pay),
        call(base, 'GET', `/v2/payments/${beforeId}`, { headers: account.auth, timeoutMs: CLIENT_TIMEOUT_MS }),
        call(base, 'GET', '/v2/payments?limit=5', { headers: account.auth, timeoutMs: CLIENT_TIMEOUT_MS }),
        call(base, 'GET', `/v2/customers/${customer}`, { headers: account.auth, timeoutMs: CLIENT_TIMEOUT_MS }),
      ]);
      expect({ mode, outcomes: tally(outcomes) }).toEqual({ mode, outcomes: { '503 service_unavailable': outcomes.length } });
      outcomes.forEach((o, i) => expectUnavailable(o, `request ${i} (${mode})`));
      // liveness does not depend on the database
      await must(call(base, 'GET', '/health/live'), 200);
    }
    expect(proxy.acceptedWhileCut).toBeGreaterThan(0); // the service really tried to reconnect
    // each logged as an outage (warn), not as an unexpected error
    await waitUntil(
      'a "Dependency unavailable" log line per failed request',
      () => service?.logs.filter((l) => String(l.msg).startsWith('Dependency unavailable')).length === 12,
      5_000,
    );

    proxy.restore();
    await waitUntil(
      'readiness back to 200',
      async () => {
        const o = await call(base, 'GET', '/health/ready', { timeoutMs: CLIENT_TIMEOUT_MS });
        return o.kind === 'response' && o.status === 200;
      },
      20_000,
      250,
    );
    expect(service.running()).toBe(true); // the same process: no restart

    // The outage's requests committed nothing: retrying their keys charges each exactly once.
    for (const key of outageKeys) {
      const retried = await must(pay(key), 201);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
    }
    const replay = await must(pay(outageKeys[0] ?? ''), 201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await must(call(base, 'GET', `/v2/payments/${beforeId}`, { headers: account.auth }), 200);
    const rows = await query<{ key: string; n: string }>(
      db.url,
      `SELECT metadata->>'key' AS key, count(*) AS n FROM payments GROUP BY 1 ORDER BY 1`,
    );
    expect(rows).toHaveLength(outageKeys.length + 1);
    expect(rows.filter((r) => r.n !== '1')).toEqual([]);

    // the outbox dispatcher (its LISTEN connection was cut too) delivers every payment's event
    // (to the /v2 endpoint: the customer's customer.created has only a /v1 side)
    const events = await query<{ id: string }>(db.url, `SELECT id FROM webhook_events WHERE event IS NOT NULL`);
    expect(events).toHaveLength(rows.length);
    await waitUntil(
      'every payment event delivered',
      () => events.every((e) => receiver.requests.some((r) => r.headers['webhook-id'] === e.id)),
      20_000,
      200,
    );
  });
});
