/**
 * Issue 21, point 2b: the whole flow of each service against a real three-master Redis
 * Cluster (no REDIS_URL: REDIS_CLUSTER_NODES only). The built services run as child
 * processes: offers-api and payments-api twice each (a second ROLE=api instance, to see
 * revocations cross the cluster's pub/sub), vector-api once. Then the cluster itself is
 * inspected: keys on more than one master, every BullMQ key hash-tagged per queue
 * (`{<QUEUE_PREFIX>:<queue>}`, one slot per queue, so BullMQ's multi-key scripts never
 * cross slots), and no CROSSSLOT or MOVED/ASK error surfacing in any service's output.
 */
import { createTestDatabase, type TestDatabase } from '../support/database';
import { Receiver } from '../webhooks/support/receiver';
import { hashTag, keysByNode, serviceQueue, clusterClient } from './support/cluster-keys';
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
import { call, must, type Response } from './support/http';
import { expectOnceEachInOrder, lifecycleEvents } from './support/lifecycle';
import { WEBHOOK_ENV } from './support/outage-traffic';
import { ADMIN, assertBuilt, queuePrefix, type ServiceProcess, startService, waitUntil } from './support/processes';
import { RedisCluster } from './support/redis-topology';
import { report } from './support/report';

/** Small failure limits, so the Lua counters reach 429 in a few requests (each test uses its own client address). */
const LIMIT = 3;
const LIMIT_ENV = {
  // requests come from 127.0.0.1: trusted as the proxy whose X-Forwarded-For names the client
  TRUST_PROXY: '127.0.0.1',
  ADMIN_AUTH_FAILURES_PER_MINUTE: String(LIMIT),
  OAUTH_TOKEN_FAILURES_PER_MINUTE: String(LIMIT),
};

/**
 * payments-api delivers one event at a time per endpoint, to an endpoint limited to 4 per
 * second (a slot every 250 ms), at a receiver that takes 150 ms: deliveries park in the
 * endpoint's line while one is in flight (parking-line scripts) and then wait for their
 * rate slot (GCRA script), the multi-key Lua of libs/webhooks.
 */
const PAYMENTS_DELIVERY_ENV = { WEBHOOK_ENDPOINT_CONCURRENCY: '1' };
const PAYMENTS_ENDPOINT_RATE = 4;
const RECEIVER_DELAY_MS = 150;

/** Every BullMQ queue each service runs (docs/operations.md, "Processes and roles"; docs/webhooks.md for the delivery queues' names). */
const SERVICE_QUEUES = {
  offers: ['console-sessions-prune', 'idempotency-purge', 'offers-lifecycle', 'webhook-deliveries-partner'],
  payments: ['console-sessions-prune', 'idempotency-purge', 'payments-authorizations', 'webhook-deliveries-payments_account'],
  vector: ['console-sessions-prune', 'idempotency-purge'],
} as const;
type ServiceName = keyof typeof SERVICE_QUEUES;

/** What would show a cluster problem surfacing: a cross-slot command, a redirection not followed, a fail-open limit, a lost broadcast. */
const CLUSTER_TROUBLE =
  /CROSSSLOT|\bMOVED \d|\bASK \d|ClusterAllFailedError|Too many Cluster redirections|failing open|could not broadcast|cannot subscribe|could not schedule/i;

describe('faults: a three-master Redis Cluster, each service’s whole flow (built services)', () => {
  let db: TestDatabase;
  let cluster: RedisCluster;
  let receiver: Receiver;
  const prefixes: Record<ServiceName, string> = {
    offers: queuePrefix('cl-offers'),
    payments: queuePrefix('cl-payments'),
    vector: queuePrefix('cl-vector'),
  };
  let offers: ServiceProcess;
  let offersApi: ServiceProcess;
  let payments: ServiceProcess;
  let paymentsApi: ServiceProcess;
  let vector: ServiceProcess;
  const services = (): ServiceProcess[] =>
    [offers, offersApi, payments, paymentsApi, vector].filter((s): s is ServiceProcess => s !== undefined);
  /** Event ids the receiver answered 2xx. */
  const acknowledged = new Set<string>();
  const startedAt = Date.now();

  beforeAll(async () => {
    assertBuilt();
    [db, cluster, receiver] = await Promise.all([createTestDatabase(), RedisCluster.start(), Receiver.start()]);
    receiver.handler = (r) => {
      acknowledged.add(String(r.headers['webhook-id']));
      // slow enough that payments' one-per-endpoint deliveries queue up behind each other
      return { status: 200, delayMs: RECEIVER_DELAY_MS };
    };
    const env = (service: ServiceName, extra: Record<string, string> = {}) => ({
      DATABASE_URL: db.url,
      REDIS_CLUSTER_NODES: cluster.nodeAddresses,
      QUEUE_PREFIX: prefixes[service],
      ...WEBHOOK_ENV,
      ...LIMIT_ENV,
      ...extra,
    });
    // The instances' OAuth client status stays cached for a minute: only the broadcast can
    // end it sooner (docs/auth.md, revocation).
    const offersEnv = env('offers', { OAUTH_CLIENT_CACHE_TTL_MS: '60000' });
    [offers, payments, vector] = await Promise.all([
      startService('offers-api', offersEnv),
      startService('payments-api', env('payments', PAYMENTS_DELIVERY_ENV)),
      startService('vector-api', env('vector', { VECTOR_SYNC_INTERVAL_MS: '100' })),
    ]);
    // After the first offers-api: it created the installation's JWT key the second one shares.
    [offersApi, paymentsApi] = await Promise.all([
      startService('offers-api', { ...offersEnv, ROLE: 'api' }),
      startService('payments-api', env('payments', { ...PAYMENTS_DELIVERY_ENV, ROLE: 'api' })),
    ]);
    await Promise.all(
      services().map((s) =>
        waitUntil(
          `${s.app} ready on the cluster`,
          async () => {
            const o = await call(s.baseUrl, 'GET', '/health/ready');
            return o.kind === 'response' && o.status === 200;
          },
          20_000,
          100,
        ),
      ),
    );
    report('redis cluster: boot', { bootSeconds: (Date.now() - startedAt) / 1000, nodes: cluster.nodeAddresses });
  });

  afterAll(async () => {
    await Promise.all(services().map((s) => s.kill()));
    await cluster?.destroy();
    await receiver?.close();
    await db?.drop();
  });

  /** Every event of `ownerId` written since `since` was acknowledged by the receiver; returns them by kind. */
  async function expectDelivered(ownerId: string, since: Date): Promise<Record<string, number>> {
    const events = await query<{ id: string; event: string }>(
      db.url,
      `SELECT id, event FROM webhook_events WHERE owner_id = $1 AND created_at >= $2 AND NOT test AND event IS NOT NULL`,
      [ownerId, since],
    );
    const missing = (): Array<{ id: string; event: string }> => events.filter((e) => !acknowledged.has(e.id));
    await waitUntil(`every event of ${ownerId} delivered`, () => missing().length === 0, 20_000, 100).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}; missing: ${JSON.stringify(missing().slice(0, 5))}`);
    });
    const byKind: Record<string, number> = {};
    for (const e of events) byKind[e.event] = (byKind[e.event] ?? 0) + 1;
    return byKind;
  }

  /** The per-caller rate limit answered through its Lua script (a limit failing open sends no RateLimit header). */
  function expectLimitCounted(res: Response): void {
    expect({ status: res.status, ratelimit: /;r=\d+;t=\d+$/.test(res.headers.get('ratelimit') ?? '') }).toEqual({
      status: res.status,
      ratelimit: true,
    });
  }

  describe('offers-api', () => {
    let partner: Partner;
    let terms: string;

    beforeAll(async () => {
      partner = await newPartner(offers.baseUrl, 'Cluster Partner');
      terms = await publishTerms(offers.baseUrl);
      await newWebhookEndpoint(offers.baseUrl, '/api/v1/webhook-endpoints', partner.auth, receiver.url);
    });

    it('lifecycle on delayed jobs, idempotent indications, allocation: each event once, in order, delivered', async () => {
      const since = new Date();
      const now = Date.now();
      // BullMQ delayed jobs open and close it a few seconds from now
      const opensAt = now + 2_000;
      const closesAt = now + 8_000;
      const offerId = await newOffer(offers.baseUrl, partner, opensAt, closesAt);
      await waitUntil(
        'offer.opened',
        async () => (await lifecycleEvents(db.url, offerId)).some((e) => e.event === 'offer.opened'),
        15_000,
        100,
      );
      const openedLate = Date.now() - opensAt;

      const indicate = (investor: string, key: string) =>
        must(
          call(offers.baseUrl, 'POST', `/api/v1/offers/${offerId}/indications`, {
            headers: { ...partner.auth, 'idempotency-key': key },
            body: { investor_id: investor, amount: 25_000, currency: 'gbp', terms_accepted: true, terms_version: terms },
          }),
        );
      const first = await Promise.all(['inv_cl_1', 'inv_cl_2', 'inv_cl_3'].map((inv) => indicate(inv, `cl-${inv}`)));
      expect(first.map((r) => r.status)).toEqual([201, 201, 201]);
      first.forEach(expectLimitCounted);
      const retry = await indicate('inv_cl_2', 'cl-inv_cl_2');
      expect({ status: retry.status, replayed: retry.headers.get('idempotent-replayed'), body: retry.json }).toEqual({
        status: 201,
        replayed: 'true',
        body: first[1]?.json,
      });
      const stored = await query<{ id: string }>(db.url, `SELECT id FROM indications WHERE offer_id = $1 ORDER BY id`, [offerId]);
      expect(stored.map((r) => r.id)).toEqual(first.map((r) => (r.json as { id: string }).id).sort());

      const events = await waitUntil(
        'offer.closed',
        async () => {
          const e = await lifecycleEvents(db.url, offerId);
          return e.some((x) => x.event === 'offer.closed') ? e : undefined;
        },
        20_000,
        100,
      );
      const closedLate = Date.now() - closesAt;
      // opened less than an hour before its close: closing_soon comes with opened
      expectOnceEachInOrder(
        offerId,
        events.map((e) => e.event),
        'required',
      );
      const status = await must(call(offers.baseUrl, 'GET', `/admin/v1/offers/${offerId}`, { headers: ADMIN }), 200);
      expect((status.json as { status: string }).status).toBe('closed');

      const allocated = await must(
        call(offers.baseUrl, 'POST', `/admin/v1/offers/${offerId}/allocations`, {
          headers: ADMIN,
          body: { shares_available: 1_000_000, policy: 'pro_rata' },
        }),
        201,
      );
      const allocations = (allocated.json as { allocations: Array<{ investor_id: string; outcome: string }> }).allocations;
      expect(allocations.map((a) => [a.investor_id, a.outcome]).sort()).toEqual([
        ['inv_cl_1', 'confirmed'],
        ['inv_cl_2', 'confirmed'],
        ['inv_cl_3', 'confirmed'],
      ]);

      const delivered = await expectDelivered(partner.id, since);
      expect(delivered).toEqual({
        'offer.opened': 1,
        'offer.closing_soon': 1,
        'indication.received': 3,
        'offer.closed': 1,
        'allocation.confirmed': 3,
      });
      report('redis cluster: offers-api flow', {
        lifecycleJobLateMs: { opened: openedLate, closedSeenAfter: closedLate },
        delivered,
      });
    });

    it('the admin key failure limit and the OAuth token failure limit (Lua counters) answer 429 past the limit', async () => {
      const from = (address: string, headers: Record<string, string> = {}) => ({ 'x-forwarded-for': address, ...headers });
      const info = (address: string, authorization: string) =>
        must(call(offers.baseUrl, 'GET', '/admin/v1/info', { headers: from(address, { authorization }) }));
      const admin: number[] = [];
      for (let i = 0; i <= LIMIT; i++) admin.push((await info('203.0.113.21', 'Bearer wrong-admin-key-0000')).status);
      // past the limit even the right key is refused, from that address only, on every instance
      admin.push((await info('203.0.113.21', ADMIN.authorization)).status);
      const elsewhere = (await info('203.0.113.22', ADMIN.authorization)).status;
      const otherInstance = (
        await must(call(offersApi.baseUrl, 'GET', '/admin/v1/info', { headers: from('203.0.113.21', ADMIN) }))
      ).status;
      expect({ admin, elsewhere, otherInstance }).toEqual({
        admin: [401, 401, 401, 429, 429],
        elsewhere: 200,
        otherInstance: 429,
      });

      const c = await must(call(offers.baseUrl, 'POST', `/admin/v1/partners/${partner.id}/clients`, { headers: ADMIN }), 201);
      const { client_id, client_secret } = c.json as { client_id: string; client_secret: string };
      const token = (address: string, secret: string) =>
        must(
          call(offers.baseUrl, 'POST', '/oauth/token', {
            headers: from(address, { 'content-type': 'application/x-www-form-urlencoded' }),
            body: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret: secret }).toString(),
          }),
        );
      const oauth: Array<number | string> = [];
      for (let i = 0; i < LIMIT; i++) oauth.push((await token('198.51.100.31', 'cs_wrong')).status);
      const limited = await token('198.51.100.31', client_secret); // the right secret too, until the window ends
      oauth.push(limited.status, (limited.json as { error: string }).error);
      const otherAddress = (await token('198.51.100.32', client_secret)).status;
      expect({ oauth, otherAddress }).toEqual({ oauth: [401, 401, 401, 429, 'slow_down'], otherAddress: 200 });

      // the counters are keys of the cluster
      const counters = (await keysByNode(cluster.nodeAddresses)).flatMap((n) => n.keys).filter((k) => k.startsWith('ratelimit:'));
      expect(counters.filter((k) => k.includes('203.0.113.21')).length).toBeGreaterThan(0);
      report('redis cluster: offers-api limits', { admin, oauth, rateLimitKeys: counters.length });
    });

    it('a deleted OAuth client’s token is refused at once by the other instance (revocation broadcast through the cluster)', async () => {
      const other = await newPartner(offers.baseUrl, 'Revoked Partner');
      const clients = await must(call(offers.baseUrl, 'GET', '/api/v1/clients', { headers: other.auth }), 200);
      const [clientId] = (clients.json as { data: Array<{ client_id: string }> }).data.map((x) => x.client_id);
      // the second instance caches the client as active for a minute
      expect((await must(call(offersApi.baseUrl, 'GET', '/api/v1/offers', { headers: other.auth }))).status).toBe(200);
      await must(call(offers.baseUrl, 'DELETE', `/admin/v1/partners/${other.id}/clients/${clientId ?? ''}`, { headers: ADMIN }));
      const deletedAt = Date.now();
      await waitUntil(
        'the other instance to refuse the token (well within its 60 s cache)',
        async () => (await must(call(offersApi.baseUrl, 'GET', '/api/v1/offers', { headers: other.auth }))).status === 401,
        10_000,
        10,
      );
      report('redis cluster: offers-api revocation', { refusedByOtherInstanceAfterMs: Date.now() - deletedAt });
    });
  });

  describe('payments-api', () => {
    let account: Auth;
    let accountId: string;
    let customer: string;

    beforeAll(async () => {
      const a = await newAccount(payments.baseUrl, 'Cluster Shop');
      account = a.auth;
      accountId = a.id;
      customer = await newCustomer(payments.baseUrl, account);
      await must(
        call(payments.baseUrl, 'POST', '/v2/webhook-endpoints', {
          headers: account,
          body: { url: receiver.url, rate_limit_per_second: PAYMENTS_ENDPOINT_RATE },
        }),
        201,
      );
    });

    const pay = (body: Record<string, unknown>, key?: string) =>
      must(
        call(payments.baseUrl, 'POST', '/v2/payments', {
          headers: { ...account, ...(key === undefined ? {} : { 'idempotency-key': key }) },
          body: { currency: 'gbp', customer_id: customer, ...body },
        }),
      );
    const payment = async (id: string) =>
      (await must(call(payments.baseUrl, 'GET', `/v2/payments/${id}`, { headers: account }), 200)).json as {
        status: string;
        cancellation_reason: string | null;
        amount_refunded: number;
      };

    it('payments, idempotent retry, capture, refund, authorization expiry on its delayed job: every event delivered', async () => {
      const since = new Date();
      const first = await pay({ amount: 1_000 }, 'cl-pay-1');
      expect(first.status).toBe(201);
      expectLimitCounted(first);
      const retry = await pay({ amount: 1_000 }, 'cl-pay-1');
      expect({ status: retry.status, replayed: retry.headers.get('idempotent-replayed'), body: retry.json }).toEqual({
        status: 201,
        replayed: 'true',
        body: first.json,
      });
      const rows = await query(db.url, `SELECT id FROM payments WHERE account_id = $1`, [accountId]);
      expect(rows).toHaveLength(1);

      // captured, then refunded
      const held = await pay({ amount: 2_500, capture_method: 'manual' }, 'cl-pay-2');
      const heldId = (held.json as { id: string }).id;
      expect((held.json as { status: string }).status).toBe('requires_capture');
      const captured = await must(
        call(payments.baseUrl, 'POST', `/v2/payments/${heldId}/capture`, { headers: account, body: {} }),
        200,
      );
      expect((captured.json as { status: string }).status).toBe('succeeded');
      await must(call(payments.baseUrl, 'POST', '/v2/refunds', { headers: account, body: { payment_id: heldId } }), 201);
      expect((await payment(heldId)).amount_refunded).toBe(2_500);

      // An authorization left uncaptured: its expiry waits in the cluster as a delayed job
      // (AUTHORIZATION_TTL_HOURS is at least an hour, so the test moves capture_before into
      // the past in PostgreSQL and promotes the job instead of waiting for it).
      const expiring = await pay({ amount: 4_000, capture_method: 'manual' }, 'cl-pay-3');
      const expiringId = (expiring.json as { id: string }).id;
      const authorizations = serviceQueue(cluster.nodeAddresses, prefixes.payments, 'payments-authorizations');
      try {
        const job = await waitUntil(
          'the delayed expiry job in the cluster',
          async () =>
            (await authorizations.queue.getJobs(['delayed'])).find(
              (j) => (j.data as { paymentId?: string }).paymentId === expiringId,
            ),
          10_000,
          100,
        );
        expect(job.delay).toBeGreaterThan(3_000_000); // ~1 h (AUTHORIZATION_TTL_HOURS default is a week)
        await query(db.url, `UPDATE payments SET capture_before = now() - interval '1 second' WHERE id = $1`, [expiringId]);
        await job.promote();
        const expired = await waitUntil(
          'the expiry job run by the worker',
          async () => {
            const p = await payment(expiringId);
            return p.status === 'canceled' ? p : undefined;
          },
          10_000,
          100,
        );
        expect(expired.cancellation_reason).toBe('automatic');
        expect(await waitUntil('the job completed', async () => (await job.getState()) === 'completed' || undefined, 5_000)).toBe(
          true,
        );
      } finally {
        await authorizations.close();
      }

      // the events of the account's test mode (its webhook owner: `<account id>:test`)
      const delivered = await expectDelivered(`${accountId}:test`, since);
      expect(delivered).toEqual({
        'payment.succeeded': 2,
        'payment.requires_capture': 2,
        'payment.captured': 1,
        'refund.succeeded': 1,
        'payment.canceled': 1,
      });
      // some waited for their rate slot, some for the endpoint's one slot (parked in its line)
      const metrics = (await must(call(payments.baseUrl, 'GET', '/metrics'), 200)).text;
      const deferred = (limit: string): number =>
        Number(new RegExp(`^webhook_deliveries_deferred_total\\{limit="${limit}"[^}]*\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
      const deferrals = { rate: deferred('rate'), endpoint: deferred('endpoint') };
      expect({ rate: deferrals.rate > 0, endpoint: deferrals.endpoint > 0 }).toEqual({ rate: true, endpoint: true });
      report('redis cluster: payments-api flow', { delivered, deferrals });
    });

    it('a rolled key is refused by the other instance within its 1 s key cache (revocation broadcast through the cluster)', async () => {
      const other = await newAccount(payments.baseUrl, 'Cluster Roll');
      const subscriber = clusterClient(cluster.nodeAddresses);
      const heard: string[] = [];
      try {
        subscriber.on('message', (_channel: string, id: string) => heard.push(id));
        await subscriber.subscribe('auth:payments-key-revoked');
        const cachedAt = Date.now();
        expect((await must(call(paymentsApi.baseUrl, 'GET', '/v2/customers', { headers: other.auth }))).status).toBe(200);
        const rolled = await must(
          call(payments.baseUrl, 'POST', '/v2/api-keys/roll', { headers: other.auth, body: { mode: 'test' } }),
          201,
        );
        // as test/payments-api/api-keys.e2e-spec.ts: the other instance's cached entry would
        // still be good until cachedAt + 1 s; only the broadcast evicts it sooner
        await waitUntil(
          'the other instance to refuse the old key',
          async () => (await must(call(paymentsApi.baseUrl, 'GET', '/v2/customers', { headers: other.auth }))).status === 401,
          Math.max(0, cachedAt + 1_000 - Date.now()),
          5,
        );
        const refusedAfterMs = Date.now() - cachedAt;
        const secret = (rolled.json as { secret: string }).secret;
        expect(
          (await must(call(paymentsApi.baseUrl, 'GET', '/v2/customers', { headers: { authorization: `Bearer ${secret}` } })))
            .status,
        ).toBe(200);
        await waitUntil('the broadcast seen by a subscriber of the cluster', () => heard.length > 0, 5_000, 10);
        expect(heard.every((id) => id.startsWith('key_'))).toBe(true);
        report('redis cluster: payments-api revocation', { refusedAfterMsFromCaching: refusedAfterMs, broadcasts: heard.length });
      } finally {
        subscriber.disconnect();
      }
    });
  });

  describe('vector-api', () => {
    it('tables of each index type: insert, upsert, query, fetch, delete; its BullMQ jobs complete on the cluster', async () => {
      const auth = await newVectorToken(vector.baseUrl);
      const v = (method: string, path: string, body?: unknown) =>
        must(call(vector.baseUrl, method, path, { headers: auth, body }));
      const outcomes: Record<string, unknown> = {};
      for (const index of ['hnsw', 'flat', 'ivf'] as const) {
        const table = `cluster_${index}`;
        const created = await v('POST', '/v1/tables', { name: table, dimension: 4, index });
        expectLimitCounted(created);
        const inserted = await v('POST', `/v1/tables/${table}/insert`, {
          rows: [
            { id: 'a', embedding: [1, 0, 0, 0], metadata: { v: 1 } },
            { id: 'b', embedding: [0, 1, 0, 0] },
            { id: 'c', embedding: [0, 0, 0, 1] },
          ],
        });
        const upserted = await v('POST', `/v1/tables/${table}/upsert`, {
          rows: [
            { id: 'a', embedding: [0, 0, 1, 0], metadata: { v: 2 } },
            { id: 'd', embedding: [-1, 0, 0, 0] },
          ],
        });
        const nearest = await v('POST', `/v1/tables/${table}/query`, { vector: [0, 0.1, 1, 0], n: 2 });
        const fetched = await v('POST', `/v1/tables/${table}/fetch`, { ids: ['a', 'd', 'zz'] });
        const deleted = await v('DELETE', `/v1/tables/${table}/vectors`, { ids: ['b'] });
        const after = await v('POST', `/v1/tables/${table}/query`, { vector: [0, 1, 0, 0], n: 10 });
        const described = await v('GET', `/v1/tables/${table}`);
        outcomes[index] = {
          created: [created.status, (created.json as { index: string }).index],
          inserted: [inserted.status, inserted.json],
          upserted: [upserted.status, upserted.json],
          nearest: (nearest.json as { results: Array<{ id: string; metadata: unknown }> }).results.map((r) => [r.id, r.metadata]),
          fetched: [
            (fetched.json as { rows: Array<{ id: string }> }).rows.map((r) => r.id),
            (fetched.json as { not_found: string[] }).not_found,
          ],
          deleted: [deleted.status, deleted.json],
          remaining: (after.json as { results: Array<{ id: string }> }).results.map((r) => r.id).sort(),
          rows: (described.json as { rows: number }).rows,
        };
      }
      const expected = (index: string) => ({
        created: [201, index],
        inserted: [201, { inserted: 3 }],
        upserted: [200, { upserted: 2, inserted: 1, updated: 1 }],
        nearest: [
          ['a', { v: 2 }],
          ['b', {}],
        ],
        fetched: [['a', 'd'], ['zz']],
        deleted: [200, { deleted: 1, not_found: [] }],
        remaining: ['a', 'c', 'd'],
        rows: 3,
      });
      expect(outcomes).toEqual({ hnsw: expected('hnsw'), flat: expected('flat'), ivf: expected('ivf') });

      // vector-api's BullMQ work: the two repeatable housekeeping jobs, each run once at start
      const jobs = await completedRepeatables('vector');
      expect(jobs).toEqual({
        'console-sessions-prune': { schedulers: 1, completed: true },
        'idempotency-purge': { schedulers: 1, completed: true },
      });
    });
  });

  /** Per housekeeping queue of a service: its job scheduler, and whether a job it added completed. */
  async function completedRepeatables(service: ServiceName): Promise<Record<string, { schedulers: number; completed: boolean }>> {
    const out: Record<string, { schedulers: number; completed: boolean }> = {};
    for (const name of ['console-sessions-prune', 'idempotency-purge']) {
      const q = serviceQueue(cluster.nodeAddresses, prefixes[service], name);
      try {
        const completed = await waitUntil(
          `${service} ${name}: a completed job`,
          async () => (await q.queue.getJobCounts('completed')).completed ?? 0,
          10_000,
          100,
        ).then(
          (n) => n > 0,
          () => false,
        );
        out[name] = { schedulers: (await q.queue.getJobSchedulers()).length, completed };
      } finally {
        await q.close();
      }
    }
    return out;
  }

  describe('the cluster afterwards', () => {
    it('keys spread over the masters; every BullMQ key hash-tagged per queue; no cluster error in any service’s output', async () => {
      const perNode = await cluster.keysPerNode();
      expect(perNode.filter((n) => n > 0).length).toBeGreaterThan(1);

      const nodes = await keysByNode(cluster.nodeAddresses);
      const all = nodes.flatMap((n) => n.keys);
      const queuesByService: Record<string, string[]> = {};
      const nodesOfQueues: Record<string, string[]> = {};
      const untagged: string[] = [];
      const misplaced: string[] = [];
      for (const service of Object.keys(SERVICE_QUEUES) as ServiceName[]) {
        const prefix = prefixes[service];
        const mine = all.filter((k) => k.includes(prefix));
        // BullMQ's keys: `{<prefix>:<queue>}:<queue>:…`, every key of a queue in that queue's slot
        const bull = mine.filter((k) => k.startsWith(`{${prefix}:`));
        const queues = new Set<string>();
        for (const key of bull) {
          const queue = hashTag(key)?.slice(prefix.length + 1) ?? '';
          if (!key.startsWith(`{${prefix}:${queue}}:${queue}:`)) misplaced.push(key);
          // a queue the test opened itself (serviceQueue) writes only its `meta` key
          if (!key.endsWith(':meta')) queues.add(queue);
        }
        queuesByService[service] = [...queues].sort();
        for (const queue of queues) {
          nodesOfQueues[`${service}/${queue}`] = nodes
            .filter((n) => n.keys.some((k) => k.startsWith(`{${prefix}:${queue}}`)))
            .map((n) => n.node);
        }
        // anything else of the prefix (webhook parking lines, delivery rate limits) is
        // hash-tagged too; the `ratelimit:` counters are one key per script call, so they
        // need no tag
        untagged.push(...mine.filter((k) => hashTag(k) === undefined && !k.startsWith('ratelimit:')));
        // and no BullMQ key outside a hash tag (the prefix used as in single mode)
        misplaced.push(...mine.filter((k) => SERVICE_QUEUES[service].some((q) => k.startsWith(`${prefix}:${q}:`))));
      }
      expect({ queuesByService, untagged, misplaced }).toEqual({
        queuesByService: Object.fromEntries(Object.entries(SERVICE_QUEUES).map(([s, q]) => [s, [...q]])),
        untagged: [],
        misplaced: [],
      });
      // one slot per queue: each queue's keys on exactly one master
      expect(Object.entries(nodesOfQueues).filter(([, n]) => n.length !== 1)).toEqual([]);

      // the housekeeping jobs of offers-api and payments-api ran too
      for (const service of ['offers', 'payments'] as const) {
        expect({ service, jobs: await completedRepeatables(service) }).toEqual({
          service,
          jobs: {
            'console-sessions-prune': { schedulers: 1, completed: true },
            'idempotency-purge': { schedulers: 1, completed: true },
          },
        });
      }

      const trouble = services().flatMap((s) => [
        ...s.logs
          .filter((l) => CLUSTER_TROUBLE.test(JSON.stringify(l)))
          .map((l) => `${s.app}: ${JSON.stringify(l).slice(0, 300)}`),
        ...s
          .stderr()
          .split('\n')
          .filter((line) => CLUSTER_TROUBLE.test(line))
          .map((line) => `${s.app} stderr: ${line.slice(0, 300)}`),
      ]);
      expect(services().map((s) => [s.app, s.logs.length > 0])).toEqual(services().map((s) => [s.app, true])); // the check saw their output
      expect(trouble).toEqual([]);
      expect(services().map((s) => s.running())).toEqual([true, true, true, true, true]);

      report('redis cluster: keys', {
        keysPerNode: perNode,
        bullKeys: all.filter((k) => k.startsWith('{')).length,
        otherKeys: all.filter((k) => !k.startsWith('{')).length,
        warnings: Object.fromEntries(
          services().map((s, i) => [
            `${i}:${s.app}`,
            [...new Set(s.logs.filter((l) => Number(l['level']) >= 40).map((l) => String(l['msg']).slice(0, 120)))],
          ]),
        ),
        queueNodes: Object.fromEntries(Object.entries(nodesOfQueues).map(([q, n]) => [q, n.join(',')])),
        seconds: (Date.now() - startedAt) / 1000,
      });
    });
  });
});
