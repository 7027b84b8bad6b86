import { randomUUID } from 'node:crypto';
import { IdempotencyService, isDomainError } from '@app/platform';
import { offersService } from '../../apps/offers-api/src/service';
import { startTestApp } from '../support/app';
import { ADMIN, newAccount, newCustomer, startPayments, type PaymentsApp } from '../payments-api/payments-context';
import { client, newToken, startVectorApp, type VectorTestApp } from '../vector-api/support';

/** The value of one sample of a /metrics body, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('payments-api: refusals and readiness in /metrics', () => {
  let t: PaymentsApp;
  const scrape = async (): Promise<string> => (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  beforeAll(async () => {
    t = await startPayments({ ADMIN_AUTH_FAILURES_PER_MINUTE: '2' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('exports every limit of rate_limit_refusals_total at 0, and counts a 429 under the limit that refused it', async () => {
    const before = await scrape();
    for (const limit of ['principal', 'admin_auth', 'sign_in', 'token_endpoint', 'secret_hashing', 'other']) {
      expect({ limit, value: sample(before, 'rate_limit_refusals_total', { limit }) }).toEqual({ limit, value: 0 });
    }
    const from = { remoteAddress: '192.0.2.36' };
    const wrong = { authorization: 'Bearer not-the-admin-key' };
    for (let i = 0; i < 2; i++) {
      expect((await t.app.inject({ method: 'GET', url: '/admin/v1/info', headers: wrong, ...from })).statusCode).toBe(401);
    }
    const limited = await t.app.inject({ method: 'GET', url: '/admin/v1/info', headers: ADMIN, ...from });
    expect(limited.statusCode).toBe(429);
    const after = await scrape();
    expect(sample(after, 'rate_limit_refusals_total', { limit: 'admin_auth' })).toBe(1);
    expect(sample(after, 'rate_limit_refusals_total', { limit: 'other' })).toBe(0);
    expect(
      sample(after, 'http_server_request_duration_seconds_count', {
        http_route: '/admin/v1/info',
        http_response_status_code: '429',
      }),
    ).toBe(1);
  });

  it('counts idempotency conflicts by reason: a reused key with another body, and a key still in flight', async () => {
    const acct = await newAccount(t);
    const customer = await newCustomer(t, acct.test);
    const key = randomUUID();
    const pay = (amount: number) =>
      t.app.inject({
        method: 'POST',
        url: '/v2/payments',
        headers: { ...acct.test, 'idempotency-key': key },
        payload: { amount, currency: 'gbp', customer_id: customer },
      });
    expect((await pay(1500)).statusCode).toBe(201);
    expect((await pay(1500)).headers['idempotent-replayed']).toBe('true'); // a replay is no conflict
    const mismatch = await pay(1600);
    expect(mismatch.json<{ error: { code: string } }>().error.code).toBe('idempotency_key_reused');

    // a claim still held (its request has not finished): the next one with the key is 409
    const idempotency = t.app.get(IdempotencyService);
    const held = randomUUID();
    await idempotency.claim('metrics-test', held, 'POST', '/v2/payments', { a: 1 });
    const refused = await idempotency.claim('metrics-test', held, 'POST', '/v2/payments', { a: 1 }).catch((err: unknown) => err);
    expect(isDomainError(refused) ? refused.code : refused).toBe('idempotency_key_in_use');

    const text = await scrape();
    expect(sample(text, 'idempotency_conflicts_total', { reason: 'body_mismatch' })).toBe(1);
    expect(sample(text, 'idempotency_conflicts_total', { reason: 'in_flight' })).toBe(1);
  });

  it('reports readiness: service_ready and each dependency up', async () => {
    const text = await scrape();
    expect(sample(text, 'service_ready')).toBe(1);
    expect(sample(text, 'service_dependency_up', { dependency: 'postgres' })).toBe(1);
    expect(sample(text, 'service_dependency_up', { dependency: 'redis' })).toBe(1);
  });
});

describe('readiness metrics with Redis unreachable', () => {
  it('service_ready is 0 and service_dependency_up names redis', async () => {
    const t = await startTestApp(offersService, { REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(sample(text, 'service_ready')).toBe(0);
      expect(sample(text, 'service_dependency_up', { dependency: 'redis' })).toBe(0);
      expect(sample(text, 'service_dependency_up', { dependency: 'postgres' })).toBe(1);
    } finally {
      await t.close();
    }
  });
});

describe('vector-api: tables aggregated in /metrics, never by name', () => {
  let t: VectorTestApp;
  beforeAll(async () => {
    t = await startVectorApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts tables by index state, sums the build backlog, and ages unsnapshotted changes', async () => {
    const call = client(t.app, await newToken(t.app));
    const scrape = async (): Promise<string> => (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const empty = await scrape();
    expect(sample(empty, 'vector_tables', { state: 'ready' })).toBe(0);
    expect(sample(empty, 'vector_snapshot_oldest_age_seconds')).toBe(0);
    expect(sample(empty, 'vector_index_build_oldest_seconds')).toBe(0);

    expect((await call('POST', '/v1/tables', { name: 'metrics_secret_name_a', dimension: 4, index: 'hnsw' })).status).toBe(201);
    expect((await call('POST', '/v1/tables', { name: 'metrics_secret_name_b', dimension: 4, index: 'flat' })).status).toBe(201);
    const states = await Promise.all(
      ['metrics_secret_name_a', 'metrics_secret_name_b'].map(
        async (name) => (await call<{ index_status: { state: string } }>('GET', `/v1/tables/${name}`)).body.index_status.state,
      ),
    );
    const rows = [
      { id: 'a', embedding: [1, 0, 0, 0] },
      { id: 'b', embedding: [0, 1, 0, 0] },
    ];
    expect((await call('POST', '/v1/tables/metrics_secret_name_b/insert', { rows })).status).toBe(201);
    const text = await scrape();
    const byState = Object.fromEntries(
      ['ready', 'building', 'exact', 'loading'].map((state) => [state, sample(text, 'vector_tables', { state })]),
    );
    const expected: Record<string, number> = { ready: 0, building: 0, exact: 0, loading: 0 };
    for (const s of states) expected[s] = (expected[s] ?? 0) + 1;
    expect(byState).toEqual(expected);
    expect(sample(text, 'vector_tables_held')).toBe(2);
    expect(sample(text, 'vector_index_build_backlog_rows')).toBe(0);
    expect(sample(text, 'vector_index_build_oldest_seconds')).toBe(0); // no build runs
    // the flat table changed and has no snapshot yet: its age runs from that change (seconds, not more)
    const age = sample(text, 'vector_snapshot_oldest_age_seconds') ?? -1;
    expect(age).toBeGreaterThan(0);
    expect(age).toBeLessThan(30);
    expect(text).not.toContain('metrics_secret_name');
  });
});
