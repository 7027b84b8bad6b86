/**
 * What the Redis outage and failover specs require once the fault is over, whatever the fault
 * was: every request answered, nothing acknowledged lost, every event delivered, each offer's
 * transitions applied once. The expectations read PostgreSQL (`dbUrl`), the source of truth.
 */
import { query } from './fixtures';
import { call, contractViolation, must, type Outcome } from './http';
import { type ClosingSoon, expectOnceEachInOrder, lifecycleEvents } from './lifecycle';
import type { Targets } from './outage-traffic';
import { LOOPS } from './outage-traffic';
import { waitUntil } from './processes';
import type { Traffic } from './traffic';

/** Every request got a complete answer: a success, or a 503 in the contract body. Never a hang or a dropped connection. */
export function expectAllAnswered(traffic: Traffic): void {
  const summary = traffic.summary();
  for (const op of LOOPS) {
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

/**
 * Every acknowledged write of `round` is in PostgreSQL under the id its response gave, and
 * nothing else was written: counts and ids match. The vector service still finds its rows.
 */
export async function expectNothingLost(
  dbUrl: string,
  targets: Pick<Targets, 'vector' | 'vectorAuth'>,
  traffic: Traffic,
  round: string,
): Promise<void> {
  const acked = (op: string) =>
    traffic.sent.filter((s) => s.op === op && s.outcome.kind === 'response' && s.outcome.status === 201);
  const idOf = (o: Outcome) => (o.kind === 'response' ? (o.json as { id: string }).id : '');

  const pays = acked('payments.create');
  const payRows = await query<{ id: string; key: string }>(
    dbUrl,
    `SELECT id, metadata->>'key' AS key FROM payments WHERE metadata->>'key' LIKE $1`,
    [`${round}-pay-%`],
  );
  const payByKey = new Map(payRows.map((r) => [r.key, r.id]));
  expect(pays.filter((s) => payByKey.get(s.key) !== idOf(s.outcome)).map((s) => s.key)).toEqual([]);
  expect(payRows.length).toBe(pays.length);

  const inds = acked('offers.indicate');
  const indRows = await query<{ id: string }>(dbUrl, `SELECT id FROM indications WHERE investor_id LIKE $1`, [
    `inv_${round}-ind-%`,
  ]);
  const indIds = new Set(indRows.map((r) => r.id));
  expect(inds.filter((s) => !indIds.has(idOf(s.outcome))).map((s) => s.key)).toEqual([]);
  expect(indRows.length).toBe(inds.length);

  const vecs = acked('vector.insert');
  const vecRows = await query<{ id: string }>(dbUrl, `SELECT id FROM vector_rows WHERE id LIKE $1`, [`${round}-vec-%`]);
  const vecIds = new Set(vecRows.map((r) => r.id));
  expect(vecs.filter((s) => !vecIds.has(s.key)).map((s) => s.key)).toEqual([]);
  expect(vecRows.length).toBe(vecs.length);
  // and the service still finds them (the in-memory index followed)
  if (vecs.length > 0) {
    const q = await must(
      call(targets.vector.baseUrl, 'POST', '/v1/tables/faults/query', {
        headers: targets.vectorAuth,
        body: { vector: [1, 0, 0, 0.5], n: 1000, filter: {} },
      }),
      200,
    );
    const found = new Set((q.json as { results: Array<{ id: string }> }).results.map((r) => r.id));
    expect(vecs.filter((s) => !found.has(s.key)).map((s) => s.key)).toEqual([]);
  }
}

/**
 * Every delivery is `succeeded`, and every event written since `since` was acknowledged (2xx)
 * by the receiver at least once; returns how many events that is. The events are read once
 * the deliveries are done, so those written while waiting are required too.
 */
export async function expectEveryEventDelivered(
  dbUrl: string,
  acknowledged: ReadonlySet<string>,
  timeoutMs: number,
  since: Date,
): Promise<number> {
  await waitUntil(
    'every delivery succeeded',
    async () => {
      const open = await query(dbUrl, `SELECT id FROM webhook_deliveries WHERE status <> 'succeeded'`);
      return open.length === 0;
    },
    timeoutMs,
    200,
  );
  // the events the service's own endpoints get (an event of a second dialect only, as payments-api's
  // customer.created for /v1, has no `event` and goes to none of them)
  const events = await query<{ id: string }>(
    dbUrl,
    `SELECT id FROM webhook_events WHERE created_at >= $1 AND event IS NOT NULL`,
    [since],
  );
  const missing = (): string[] => events.map((e) => e.id).filter((id) => !acknowledged.has(id));
  await waitUntil(`every webhook event delivered (${events.length})`, () => missing().length === 0, timeoutMs, 200).catch(
    (err: unknown) => {
      throw new Error(`${(err as Error).message}; missing ${missing().length}: ${missing().slice(0, 5).join(', ')}`);
    },
  );
  return events.length;
}

/** The offer ends closed, each transition applied once, in order. `what` names it in a timeout. */
export async function expectLifecycleCompleted(
  dbUrl: string,
  offerId: string,
  closingSoon: ClosingSoon,
  what = `offer ${offerId}`,
): Promise<void> {
  const events = await waitUntil(
    `${what} closed`,
    async () => {
      const e = await lifecycleEvents(dbUrl, offerId);
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
  const status = await query<{ status: string }>(dbUrl, `SELECT status FROM offers WHERE id = $1`, [offerId]);
  expect(status).toEqual([{ status: 'closed' }]);
}
