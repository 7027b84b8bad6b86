/**
 * OpenTelemetry tracing (issue 36, docs/operations.md "Tracing") against the BUILT services
 * as child processes (`npm run build` first; `npm test` does it), exporting OTLP/HTTP JSON to
 * an in-process receiver: one payment create is one trace from its HTTP span through the
 * INSERT, the outbox row and the delivery job to the webhook attempt; an offer's opening job
 * and its offer.opened delivery share a trace; with no endpoint set nothing is exported,
 * not even to OpenTelemetry's default localhost:4318.
 */
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { Receiver } from '../webhooks/support/receiver';
import { newAccount, newCustomer, newOffer, newPartner, newWebhookEndpoint } from '../faults/support/fixtures';
import { call, must } from '../faults/support/http';
import {
  assertBuilt,
  dropQueueKeys,
  queuePrefix,
  type ServiceProcess,
  sharedRedisUrl,
  sleep,
  startService,
  waitUntil,
} from '../faults/support/processes';
import { ancestry, OtlpReceiver, type ReceivedSpan, SPAN_KIND } from './support/otlp-receiver';

const isInsert = (s: ReceivedSpan): boolean =>
  s.attributes['db.system.name'] === 'postgresql' && /^\s*INSERT\b/i.test(String(s.attributes['db.query.text'] ?? ''));
/** The outbox row: written with the transaction's last statement (a CTE: `WITH w0 AS (INSERT INTO webhook_events …)`). */
const isOutboxInsert = (s: ReceivedSpan): boolean =>
  s.attributes['db.system.name'] === 'postgresql' &&
  /INSERT INTO "?webhook_events\b/i.test(String(s.attributes['db.query.text'] ?? ''));

/**
 * Warnings a normal start and stop must not print: the parked-deliveries pass used to run
 * before the Redis connection was ready (or after it closed) and warn "Stream isn't writeable".
 */
const redisRaceWarnings = (service: ServiceProcess): unknown[] =>
  service.logs.map((l) => l['msg']).filter((m) => /parked webhook deliveries|Stream isn't writeable/.test(String(m)));

describe('tracing (built services, OTLP/HTTP to an in-process receiver)', () => {
  const prefix = queuePrefix('trace');
  let db: TestDatabase;
  let hooks: Receiver;
  let otlp: OtlpReceiver;
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    assertBuilt();
    db = await createTestDatabase();
    hooks = await Receiver.start();
    otlp = await OtlpReceiver.start();
  });
  afterAll(async () => {
    await Promise.all(services.map((s) => s.kill()));
    await hooks?.close();
    await otlp?.close();
    await db?.drop();
    await dropQueueKeys(sharedRedisUrl(), prefix);
  });

  const tracedEnv = (): Record<string, string> & { DATABASE_URL: string; QUEUE_PREFIX: string } => ({
    DATABASE_URL: db.url,
    REDIS_URL: sharedRedisUrl(),
    QUEUE_PREFIX: prefix,
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });

  it('one payment create is one trace: HTTP span, INSERT, delivery job, webhook attempt, all linked', async () => {
    const payments = await startService('payments-api', tracedEnv());
    services.push(payments);
    const account = await newAccount(payments.baseUrl);
    // a Slack-style secret in the endpoint's path: never exported
    const pathSecret = `tok${randomBytes(8).toString('hex')}`;
    await newWebhookEndpoint(payments.baseUrl, '/v2/webhook-endpoints', account.auth, `${hooks.url}/T0/${pathSecret}`);
    const customer = await newCustomer(payments.baseUrl, account.auth);
    // a value that must never reach a span (statement parameters are not recorded)
    const marker = `order-${randomBytes(6).toString('hex')}`;
    const created = await must(
      call(payments.baseUrl, 'POST', '/v2/payments', {
        headers: account.auth,
        body: {
          amount: 4_321,
          currency: 'usd',
          customer_id: customer,
          payment_method: 'pm_card_visa',
          metadata: { order: marker },
        },
      }),
    );
    expect(created.status).toBe(201);
    const paymentId = (created.json as { id: string }).id;
    const requestId = String(created.headers.get('request-id'));

    await waitUntil('the payment.succeeded delivery', () => hooks.requests.some((r) => r.body.includes(paymentId)), 20_000);
    const attempt = await waitUntil(
      "the attempt span of the payment's delivery",
      () =>
        otlp.spans.find(
          (s) =>
            s.name === 'POST' &&
            s.kind === SPAN_KIND.CLIENT &&
            s.attributes['webhook.event.type'] === 'payment.succeeded' &&
            s.service === 'payments-api',
        ),
      20_000,
    );
    // its parent, the job's consume span, ends after it (once the attempt is recorded): it may come in a later export
    await waitUntil("the delivery job's consume span", () => otlp.spans.some((s) => s.spanId === attempt.parentSpanId), 10_000);
    const server = otlp.spans.find((s) => s.kind === SPAN_KIND.SERVER && s.name === 'POST /v2/payments');
    expect(server).toBeDefined();
    if (server === undefined) return;
    expect(server.parentSpanId).toBe('');
    expect(server.attributes).toMatchObject({
      'http.route': '/v2/payments',
      'http.request.method': 'POST',
      'http.response.status_code': 201,
      'url.path': '/v2/payments',
    });
    const trace = otlp.trace(server.traceId);

    // the attempt: an HTTP CLIENT span of this trace, under the delivery job's consume span
    expect(attempt.traceId).toBe(server.traceId);
    expect(attempt.kind).toBe(SPAN_KIND.CLIENT);
    const receiver = new URL(hooks.url);
    expect(attempt.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
      'server.port': Number(receiver.port),
      'url.scheme': 'http',
      // the origin only: receivers keep secrets in the path
      'url.full': receiver.origin,
    });
    expect(attempt.attributes['error.type']).toBeUndefined();
    expect(String(attempt.attributes['webhook.delivery.id'])).toMatch(/^dlv_/);
    const attemptChain = ancestry(attempt, trace);
    const consume = attemptChain[1];
    expect(consume?.kind).toBe(SPAN_KIND.CONSUMER);
    expect(consume?.name).toBe('process webhook-deliveries-payments_account');
    expect(consume?.attributes).toMatchObject({
      'messaging.system': 'bullmq',
      'messaging.destination.name': 'webhook-deliveries-payments_account',
      'messaging.operation.type': 'process',
    });
    // …whose producer is the dispatcher's enqueue, in the context the outbox row carried
    expect(attemptChain.some((s) => s.kind === SPAN_KIND.PRODUCER && s.name.startsWith('addBulk webhook-deliveries'))).toBe(true);
    expect(attemptChain.at(-1)).toBe(server);

    // the delivery's batched load and record run outside any trace (they serve several jobs at once)
    const batched = trace.filter((s) =>
      /FROM "webhook_deliveries" d|INSERT INTO "webhook_attempts"/.test(String(s.attributes['db.query.text'] ?? '')),
    );
    expect(batched.map((s) => s.attributes['db.query.text'])).toEqual([]);

    // the payment's INSERT (and the outbox row's) under the request's span
    const inserts = trace.filter(isInsert);
    expect(inserts.length).toBeGreaterThan(0);
    for (const insert of inserts) expect(ancestry(insert, trace).at(-1)).toBe(server);
    const outboxInsert = trace.find(isOutboxInsert);
    expect(outboxInsert).toBeDefined();
    if (outboxInsert !== undefined) expect(ancestry(outboxInsert, trace).at(-1)).toBe(server);

    // a query string: its parameter names are on the server span, its values are not exported
    const queryMarker = `q${randomBytes(6).toString('hex')}`;
    const listed = await must(
      call(payments.baseUrl, 'GET', `/v2/customers?limit=1&email=${queryMarker}%40example.com`, {
        headers: account.auth,
      }),
    );
    expect(listed.status).toBe(200);
    const listSpan = await waitUntil(
      'the server span of GET /v2/customers',
      () => otlp.spans.find((s) => s.kind === SPAN_KIND.SERVER && s.name === 'GET /v2/customers'),
      10_000,
    );
    expect(listSpan.attributes['url.query']).toBe('limit=REDACTED&email=REDACTED');

    // no statement parameter, no query-string value, no receiver path, in anything exported
    for (const secret of [marker, queryMarker, pathSecret]) {
      expect(otlp.bodies.filter((b) => b.includes(secret))).toEqual([]);
    }
    // traces only: no /v1/metrics, no /v1/logs
    expect(otlp.otherPaths).toEqual([]);

    // log lines written while handling the request carry its trace and its request id
    const lines = payments.logs.filter((l) => l['reqId'] === requestId);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line['trace_id']).toBe(server.traceId);
      expect(String(line['span_id'])).toMatch(/^[0-9a-f]{16}$/);
    }
    // and the delivery worker's lines too
    const workerLines = payments.logs.filter((l) => l['trace_id'] === server.traceId && l['reqId'] === undefined);
    process.stdout.write(
      `tracing: payment trace ${server.traceId}: ${trace.length} spans; ${lines.length} request log lines, ${workerLines.length} other lines in the trace\n`,
    );
    await payments.stop();
    expect(redisRaceWarnings(payments)).toEqual([]);
  }, 90_000);

  it("an offer's opening job and its offer.opened delivery share a trace", async () => {
    const offers = await startService('offers-api', { ...tracedEnv(), WEBHOOK_SWEEP_INTERVAL_MS: '250' });
    services.push(offers);
    const partner = await newPartner(offers.baseUrl, 'Traced Partner');
    await newWebhookEndpoint(offers.baseUrl, '/api/v1/webhook-endpoints', partner.auth, hooks.url);
    const offerId = await newOffer(offers.baseUrl, partner, Date.now() + 2_500, Date.now() + 3_600_000);

    await waitUntil(
      'the offer.opened delivery',
      () => hooks.requests.some((r) => r.body.includes('offer.opened') && r.body.includes(offerId)),
      20_000,
    );
    const attempt = await waitUntil(
      'the attempt span of offer.opened',
      () =>
        otlp.spans.find(
          (s) => s.name === 'POST' && s.kind === SPAN_KIND.CLIENT && s.attributes['webhook.event.type'] === 'offer.opened',
        ),
      20_000,
    );
    // settle: the trace's other spans may be in the next export batch
    await sleep(500);
    const trace = otlp.trace(attempt.traceId);
    const chain = ancestry(attempt, trace);
    const opening = chain.find((s) => s.kind === SPAN_KIND.CONSUMER && s.name === 'process offers-lifecycle');
    expect(opening).toBeDefined();
    if (opening === undefined) return;
    // the transition wrote the outbox row inside the opening job's span
    const outboxInsert = trace.find(isOutboxInsert);
    expect(outboxInsert).toBeDefined();
    if (outboxInsert !== undefined) expect(ancestry(outboxInsert, trace)).toContain(opening);
    // the delivery's consume span comes after the opening job, in the same trace
    expect(chain[1]?.name).toBe('process webhook-deliveries-partner');
    process.stdout.write(
      `tracing: offer ${offerId} opening trace ${attempt.traceId}: ${trace.length} spans, root '${chain.at(-1)?.name}'\n`,
    );
    await offers.stop();
    expect(redisRaceWarnings(offers)).toEqual([]);
  }, 90_000);
});

describe('tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  const prefix = queuePrefix('notrace');
  let db: TestDatabase;
  let defaultPort: OtlpReceiver | undefined;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    assertBuilt();
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await service?.kill();
    await defaultPort?.close();
    await db?.drop();
    await dropQueueKeys(sharedRedisUrl(), prefix);
  });

  it('creates no span: nothing reaches OpenTelemetry’s default localhost:4318, no log line has a trace id', async () => {
    // OpenTelemetry's default endpoint: an SDK started without configuration would post here
    defaultPort = await OtlpReceiver.start(4318);
    service = await startService('payments-api', { DATABASE_URL: db.url, REDIS_URL: sharedRedisUrl(), QUEUE_PREFIX: prefix });
    const account = await newAccount(service.baseUrl);
    const customer = await newCustomer(service.baseUrl, account.auth);
    const created = await must(
      call(service.baseUrl, 'POST', '/v2/payments', {
        headers: account.auth,
        body: { amount: 1_000, currency: 'usd', customer_id: customer, payment_method: 'pm_card_visa' },
      }),
    );
    expect(created.status).toBe(201);
    const requestId = String(created.headers.get('request-id'));
    // the SDK's batch delay is 5 s: wait past it, then stop (a started SDK flushes at shutdown)
    await sleep(5_500);
    const exit = await service.stop();
    expect(exit.code).toBe(0);
    expect(redisRaceWarnings(service)).toEqual([]);
    expect(defaultPort.spans).toEqual([]);
    expect(defaultPort.otherPaths).toEqual([]);
    expect(service.logs.some((l) => 'trace_id' in l || 'span_id' in l)).toBe(false);
    // the request id is in the request's lines all the same
    expect(service.logs.filter((l) => l['reqId'] === requestId).length).toBeGreaterThan(0);
  }, 60_000);
});
