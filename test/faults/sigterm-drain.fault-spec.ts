/**
 * Scenario 4: SIGTERM during load. payments-api (built, child process) takes 200 payment
 * creates with Idempotency-Keys over 20 keep-alive connections and is sent SIGTERM mid-run.
 * Every request it accepted must get a complete response, it must exit 0 (before its own
 * forced-exit timer, which exits 1), nothing may be half-written, and after a restart the
 * same keys replay the originals without charging twice.
 */
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { newAccount, newCustomer, query } from './support/fixtures';
import type { ContractError } from './support/http';
import { loadClient, type LoadOutcome } from './support/load';
import { report } from './support/report';
import { assertBuilt, dropQueueKeys, queuePrefix, sharedRedisUrl, type ServiceProcess, startService } from './support/processes';

const TOTAL = 200;
const CONNECTIONS = 20;
/** SIGTERM once this many responses have arrived. */
const SIGTERM_AFTER = 60;

type Response = Extract<LoadOutcome, { kind: 'response' }>;

function describeOutcome(o: LoadOutcome): string {
  if (o.kind === 'response') {
    const code = (o.json as { error?: { code?: string } } | undefined)?.error?.code;
    return code === undefined ? String(o.status) : `${o.status} ${code}`;
  }
  if (o.kind === 'timeout') return 'timeout';
  return `connection ${o.code}${o.reusedSocket ? ' (reused socket)' : ''}${o.partialResponse ? ' (partial response)' : ''}`;
}

describe('faults: SIGTERM during load (payments-api, built)', () => {
  const prefix = queuePrefix('term');
  let db: TestDatabase;
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    assertBuilt();
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const s of services) await s.kill();
    await db?.drop();
    await dropQueueKeys(sharedRedisUrl(), prefix);
  });

  it('drains accepted requests, exits 0, leaves nothing half-written; retries after restart replay the originals', async () => {
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: sharedRedisUrl(),
      QUEUE_PREFIX: prefix,
      PAYMENTS_RATE_LIMIT_PER_MINUTE: '100000',
      SHUTDOWN_TIMEOUT_MS: '15000',
    };
    const first = await startService('payments-api', env);
    services.push(first);
    const account = await newAccount(first.baseUrl);
    const customer = await newCustomer(first.baseUrl, account.auth);
    const tag = randomBytes(4).toString('hex');
    const keys = Array.from({ length: TOTAL }, (_, i) => `term-${tag}-${i}`);
    // every tenth card is declined: a stored failed payment answered 402, also replayable
    const bodyOf = (i: number) => ({
      amount: 1_000 + i,
      currency: 'usd',
      customer_id: customer,
      payment_method: i % 10 === 9 ? 'pm_card_declined' : 'pm_card_visa',
      metadata: { key: keys[i] ?? '' },
    });
    const headersOf = (i: number) => ({ ...account.auth, 'idempotency-key': keys[i] ?? '' });

    // ---- load, SIGTERM mid-run --------------------------------------------------------
    const client = loadClient(first.baseUrl, CONNECTIONS);
    const outcomes: LoadOutcome[] = new Array<LoadOutcome>(TOTAL);
    let next = 0;
    let answered = 0;
    let sigtermSent = false;
    const sentBeforeSigterm = new Set<number>();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        for (let i = next++; i < TOTAL; i = next++) {
          if (!sigtermSent) sentBeforeSigterm.add(i);
          outcomes[i] = await client.post('/v2/payments', bodyOf(i), headersOf(i));
          if (outcomes[i]?.kind === 'response') answered++;
          if (!sigtermSent && answered >= SIGTERM_AFTER) {
            sigtermSent = true;
            first.child.kill('SIGTERM');
          }
        }
      }),
    );
    client.close();
    const exit = await first.exited;
    expect(sigtermSent).toBe(true);
    // 0 = drained and closed in time; the forced-exit timer would have exited 1
    expect({ exit, stderr: exit.code === 0 ? '' : first.stderr().slice(-2_000) }).toEqual({
      exit: { code: 0, signal: null },
      stderr: '',
    });
    expect(first.logs.some((l) => l.msg === 'payments-api stopped')).toBe(true);

    const summary: Record<string, number> = {};
    for (const o of outcomes) summary[describeOutcome(o)] = (summary[describeOutcome(o)] ?? 0) + 1;
    report('SIGTERM under load', { outcomes: summary });

    // ---- what the clients saw ---------------------------------------------------------
    const responses = outcomes.filter((o): o is Response => o.kind === 'response');
    // every request sent before the SIGTERM (on an open connection) was answered in full;
    // no request hung, and none was cut after the service had started answering it
    expect(sentBeforeSigterm.size).toBeGreaterThan(SIGTERM_AFTER);
    expect([...sentBeforeSigterm].map((i) => describeOutcome(outcomes[i])).filter((d) => d.startsWith('connection'))).toEqual([]);
    expect(outcomes.filter((o) => o.kind === 'timeout')).toEqual([]);
    expect(outcomes.filter((o) => o.kind === 'connection' && o.partialResponse)).toEqual([]);
    // every answer is a success, a stored decline, or a 503 in the contract body
    for (const r of responses) {
      if (r.status === 201 || r.status === 402) continue;
      const error = (r.json as Partial<ContractError> | undefined)?.error;
      const requestId = r.headers['request-id'];
      expect({ status: r.status, type: error?.type, code: error?.code, requestId: error?.request_id }).toEqual({
        status: 503,
        type: 'api_error',
        code: 'service_unavailable',
        requestId: requestId === undefined ? 'a Request-Id header' : requestId,
      });
    }
    expect(responses.filter((r) => r.status === 201).length).toBeGreaterThanOrEqual(SIGTERM_AFTER * 0.8);

    // ---- what the database holds ------------------------------------------------------
    const payments = await query<{ id: string; key: string; status: string }>(
      db.url,
      `SELECT id, metadata->>'key' AS key, status FROM payments`,
    );
    const byKey = new Map(payments.map((p) => [p.key, p]));
    expect(byKey.size).toBe(payments.length); // never two payments for one key
    // every 201 / 402 answer names a payment that exists, with that outcome
    outcomes.forEach((o, i) => {
      if (o.kind !== 'response' || (o.status !== 201 && o.status !== 402)) return;
      const id =
        o.status === 201 ? (o.json as { id: string }).id : (o.json as { error: { payment_id: string } }).error.payment_id;
      expect(byKey.get(keys[i] ?? '')).toEqual({ id, key: keys[i], status: o.status === 201 ? 'succeeded' : 'failed' });
    });
    // a request refused or closed before the service took it left no trace
    outcomes.forEach((o, i) => {
      if (o.kind === 'connection')
        expect({ key: keys[i], payment: byKey.get(keys[i] ?? '') }).toEqual({ key: keys[i], payment: undefined });
    });
    // each payment has exactly its one outbox event (the customer's customer.created has only a /v1 side)
    const events = await query<{ payment_id: string; event: string; n: string }>(
      db.url,
      `SELECT data->>'id' AS payment_id, event, count(*) AS n FROM webhook_events WHERE event IS NOT NULL GROUP BY 1, 2`,
    );
    expect(events.length).toBe(payments.length);
    for (const p of payments) {
      expect(events.find((e) => e.payment_id === p.id)).toEqual({
        payment_id: p.id,
        event: p.status === 'succeeded' ? 'payment.succeeded' : 'payment.failed',
        n: '1',
      });
    }
    // no Idempotency-Key is left claimed without a response; each answered one stores its payment
    const claims = await query<{ key: string; response_status: number | null; response_body: string | null }>(
      db.url,
      `SELECT key, response_status, response_body FROM idempotency_keys`,
    );
    expect(claims.filter((c) => c.response_status === null)).toEqual([]);
    expect(claims.length).toBe(payments.length);

    // ---- restart, retry every key -----------------------------------------------------
    const second = await startService('payments-api', env);
    services.push(second);
    const retry = loadClient(second.baseUrl, CONNECTIONS);
    const retried: LoadOutcome[] = [];
    next = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        for (let i = next++; i < TOTAL; i = next++) retried[i] = await retry.post('/v2/payments', bodyOf(i), headersOf(i));
      }),
    );
    retry.close();
    retried.forEach((o, i) => {
      const original = outcomes[i];
      const expected = bodyOf(i).payment_method === 'pm_card_visa' ? 201 : 402;
      expect({ i, outcome: describeOutcome(o) }).toEqual({ i, outcome: expected === 201 ? '201' : '402 card_declined' });
      if (o.kind !== 'response' || original?.kind !== 'response' || (original.status !== 201 && original.status !== 402)) return;
      // answered before the shutdown: the very same response, replayed
      expect(o.headers['idempotent-replayed']).toBe('true');
      expect(o.json).toEqual(original.json);
    });
    const after = await query<{ key: string; n: string }>(
      db.url,
      `SELECT metadata->>'key' AS key, count(*) AS n FROM payments GROUP BY 1`,
    );
    expect(after.length).toBe(TOTAL);
    expect(after.filter((r) => r.n !== '1')).toEqual([]);
    expect((await second.stop()).code).toBe(0);
  });
});
