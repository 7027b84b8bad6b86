/**
 * Issue 14, findings 4 and 6 (HTTP hardening), against the real services on a real socket:
 *
 * 1. per-route body limits: BODY_LIMIT_BYTES (1 MiB) everywhere, the large limit only on
 *    vector inserts; a 44 MB body elsewhere is 413 before it is read;
 * 2. authentication before body parsing: every authenticated and admin route of every
 *    service answers 401 to a 44 MB body without credentials while the body has not even
 *    been sent (the client sends the headers, then waits);
 * 3. dates outside 1970–9999 (or not on the calendar) → 400 parameter_invalid naming them;
 * 4. webhook URLs with control characters → 400 webhook_url_invalid;
 * 5. wrong admin keys limited per client address (429 with Retry-After);
 * 6. what Node's HTTP parser refuses (431, unknown methods, bad framing, CONNECT, no Host)
 *    still gets the contract's error body with request_id and Request-Id;
 * 7. prototype keys → parameter_unknown, duplicate keys → parameter_duplicate, naming them.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { PlatformConfig, ServiceDefinition } from '@app/platform';
import type { LightMyRequestResponse } from 'fastify';
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { vectorService } from '../../apps/vector-api/src/service';
import { startTestApp, type TestApp } from '../support/app';
import {
  fillPath,
  isQdrantRoute,
  isStripeOperation,
  openApiOperations,
  type QdrantErrorBody,
  type StripeErrorBody,
} from './support';

const ADMIN_KEY = 'adm_http_hardening_0123456789abcdef0123456789';
const ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };
/** The size of the body the hostile prober sent (finding 4). */
const HUGE = 44_000_000;

interface ErrorJson {
  error: { type: string; code: string; message: string; param?: string; request_id: string };
}

interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Body bytes the client had written when the response was complete. */
  readonly bodyBytesSent: number;
}

/**
 * Sends `head` (request line and headers), then `prefix` of the body, and waits — never
 * sending the rest — for a complete response. An answer proves the server decided without
 * the body; 'no answer' means it was waiting for it.
 */
function sendHeadThenWait(port: number, head: string, prefix = '', waitMs = 5_000): Promise<RawResponse | 'no answer'> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let settled = false;
    const finish = (value: RawResponse | 'no answer'): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => finish('no answer'), waitMs);
    socket.on('connect', () => socket.write(head + prefix));
    socket.on('error', () => finish(parse(data) ?? 'no answer'));
    socket.on('close', () => finish(parse(data) ?? 'no answer'));
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const response = parse(data);
      if (response) finish(response);
    });
    function parse(buffer: Buffer): RawResponse | undefined {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      const [statusLine = '', ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      const body = buffer.subarray(end + 4);
      if (body.length < length) return undefined;
      return {
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: body.subarray(0, length).toString('utf8'),
        bodyBytesSent: Buffer.byteLength(prefix),
      };
    }
  });
}

/** A request whose headers declare a `HUGE` JSON body, of which only `{"rows":[` is sent. */
function hugeBodyHead(method: string, path: string, headers: Record<string, string> = {}): string {
  const lines = [
    `${method} ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    `Content-Length: ${HUGE}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** The contract's error body with a request_id equal to the Request-Id header. */
function contractError(res: RawResponse | LightMyRequestResponse | 'no answer', status: number): ErrorJson['error'] {
  if (res === 'no answer') throw new Error(`expected ${status}, but no answer came while the body was not sent`);
  const actual = 'status' in res ? res.status : res.statusCode;
  const raw = 'status' in res ? res.body : res.body;
  if (actual !== status) throw new Error(`expected ${status}, got ${actual}: ${raw}`);
  const requestId = res.headers['request-id'];
  const body = JSON.parse(raw) as ErrorJson;
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.request_id).toMatch(/^req_[0-9a-f]{24}$/);
  expect(requestId).toBe(body.error.request_id);
  expect(typeof body.error.type).toBe('string');
  expect(typeof body.error.message).toBe('string');
  return body.error;
}

async function listen(t: TestApp<PlatformConfig>): Promise<number> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return (t.app.getHttpServer().address() as AddressInfo).port;
}

async function json<T>(res: Promise<LightMyRequestResponse>, status: number): Promise<T> {
  const r = await res;
  if (r.statusCode !== status) throw new Error(`expected ${status}, got ${r.statusCode}: ${r.body}`);
  return r.json<T>();
}

const SERVICES: Array<{ name: string; definition: ServiceDefinition<PlatformConfig> }> = [
  { name: 'vector-api', definition: vectorService as unknown as ServiceDefinition<PlatformConfig> },
  { name: 'offers-api', definition: offersService as unknown as ServiceDefinition<PlatformConfig> },
  { name: 'payments-api', definition: paymentsService as unknown as ServiceDefinition<PlatformConfig> },
];

describe('vector-api: per-route body limits and authentication before the body', () => {
  let t: TestApp<PlatformConfig>;
  let port: number;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp(vectorService as unknown as ServiceDefinition<PlatformConfig>, { ADMIN_API_KEY: ADMIN_KEY });
    port = await listen(t);
    const created = await json<{ token: string }>(
      t.app.inject({ method: 'POST', url: '/admin/v1/tokens', headers: ADMIN, payload: { name: 'hardening' } }),
      201,
    );
    token = created.token;
    await json(
      t.app.inject({
        method: 'POST',
        url: '/v1/tables',
        headers: { authorization: `Bearer ${token}` },
        payload: { name: 'big', dimension: 4 },
      }),
      201,
    );
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses a 44 MB body without Authorization on insert with 401 before the body is sent', async () => {
    const res = await sendHeadThenWait(port, hugeBodyHead('POST', '/v1/tables/big/insert'), '{"rows":[');
    const error = contractError(res, 401);
    expect(error.code).toBe('authentication_required');
    if (res === 'no answer') return;
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="/);
    // the connection is closed rather than the unread 44 MB drained
    expect(res.headers['connection']).toBe('close');
    expect(res.bodyBytesSent).toBeLessThan(100);
  });

  it('measures: a whole 44 MB body without Authorization, and another token’s requests meanwhile (logged for docs/reliability.md)', async () => {
    // The hostile client is a child process (its writing does not share this event loop):
    // valid JSON that costs what the prober's did to parse, one row of 44 MB of numbers.
    const client = `
      const { connect } = require('node:net');
      const open = '{"rows":[{"id":"a","embedding":[';
      const close = '0]}]}';
      const numbers = '0.123456789,'.repeat(Math.floor((${HUGE} - open.length - close.length) / 12));
      const body = Buffer.from((open + numbers + close).padEnd(${HUGE}, ' '));
      const head = ${JSON.stringify(hugeBodyHead('POST', '/v1/tables/big/insert'))};
      const started = performance.now();
      const socket = connect(${port}, '127.0.0.1', () => { socket.write(head); socket.write(body); });
      let answer = '';
      socket.on('data', (chunk) => {
        answer += chunk.toString('latin1');
        if (answer.includes('\\r\\n\\r\\n')) {
          process.stdout.write(JSON.stringify({ status: Number(answer.split(' ')[1]), ms: performance.now() - started }));
          process.exit(0);
        }
      });
      // The server may close (and reset) the connection right after its answer while this
      // side is still writing; a reset can discard the answer before it is read (as the test
      // above allows): say so instead of printing nothing.
      const closed = () => {
        process.stdout.write(JSON.stringify({ status: 0, ms: performance.now() - started }));
        process.exit(0);
      };
      socket.on('error', closed);
      socket.on('close', closed);
    `;
    const child = spawn(process.execPath, ['-e', client], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    // Meanwhile another token's reads, one after the other, until the refusal came.
    let done = false;
    void exited.then(() => (done = true));
    const latencies: number[] = [];
    while (!done) {
      const t0 = performance.now();
      const res = await fetch(`http://127.0.0.1:${port}/v1/tables`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      latencies.push(performance.now() - t0);
    }
    await exited;
    const refused = JSON.parse(output) as { status: number; ms: number };
    console.log(
      `44 MB insert without Authorization: ${refused.status === 0 ? 'connection closed before the answer was read' : refused.status} after ${refused.ms.toFixed(1)} ms; ` +
        `another token's GET /v1/tables meanwhile: ${latencies.length} requests, slowest ${Math.max(...latencies).toFixed(1)} ms`,
    );
    expect([0, 401]).toContain(refused.status);
  });

  it('refuses a wrong token on insert with 401 before the body is sent', async () => {
    const res = await sendHeadThenWait(
      port,
      hugeBodyHead('POST', '/v1/tables/big/insert', { Authorization: 'Bearer vt_not_a_real_token_0000000000' }),
      '{"rows":[',
    );
    expect(contractError(res, 401).type).toBe('authentication_error');
  });

  it('answers 413 body_too_large to a 44 MB body on every route but insert, before reading it', async () => {
    const auth = { Authorization: `Bearer ${token}` };
    for (const [method, path] of [
      ['POST', '/v1/tables/big/query'],
      ['DELETE', '/v1/tables/big/vectors'],
      ['POST', '/v1/tables'],
    ] as const) {
      const res = await sendHeadThenWait(port, hugeBodyHead(method, path, auth), '{');
      expect({ route: `${method} ${path}`, code: contractError(res, 413).code }).toEqual({
        route: `${method} ${path}`,
        code: 'body_too_large',
      });
    }
    // BODY_LIMIT_BYTES is the platform's 1 MiB on vector-api too
    expect(t.config.BODY_LIMIT_BYTES).toBe(1_048_576);
  });

  it('still accepts insert bodies over 1 MiB (its own limit, VECTOR_INSERT_BODY_LIMIT_BYTES)', async () => {
    const rows = Array.from({ length: 2_000 }, (_, i) => ({
      id: `row-${i}`,
      embedding: [Math.random(), Math.random(), Math.random(), Math.random()],
      metadata: { note: 'x'.repeat(500) },
    }));
    const payload = JSON.stringify({ rows: rows.slice(0, 1000) });
    expect(Buffer.byteLength(payload)).toBeGreaterThan(1_048_576 / 2);
    const padded = payload.replace(/}$/, `${' '.repeat(1_100_000)}}`);
    expect(Buffer.byteLength(padded)).toBeGreaterThan(1_048_576);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/tables/big/insert',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: padded,
    });
    expect(res.statusCode).toBe(201);
  });

  it('names a duplicate key with its path in an insert body (parameter_duplicate)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/tables/big/insert',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: '{"rows":[{"id":"d0","embedding":[1,2,3,4]},{"id":"d1","embedding":[1,2,3,4],"metadata":{"x":1,"y":2,"x":3}}]}',
    });
    const error = contractError(res, 400);
    expect(error).toMatchObject({ code: 'parameter_duplicate', param: 'rows[1].metadata.x' });
  });
});

describe.each(SERVICES)(
  '$name: every authenticated and admin route refuses missing credentials before the body',
  ({ definition }) => {
    let t: TestApp<PlatformConfig>;
    let port: number;

    beforeAll(async () => {
      t = await startTestApp(definition, { ADMIN_API_KEY: ADMIN_KEY, ROLE: 'api' });
      port = await listen(t);
    });
    afterAll(async () => {
      await t.close();
    });

    it('answers 401 to a 44 MB body without Authorization on every route with a body, while the body is not sent', async () => {
      const operations = (await openApiOperations(t.app)).filter(
        (op) => op.security.length > 0 && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(op.method),
      );
      expect(operations.length).toBeGreaterThan(2);
      expect(operations.some((op) => op.path.startsWith('/admin/'))).toBe(true);
      const answers: string[] = [];
      for (const op of operations) {
        const res = await sendHeadThenWait(port, hugeBodyHead(op.method, fillPath(op.path, {})), '{');
        if (isQdrantRoute(op.path)) {
          // vector-api's Qdrant-compatible routes: Qdrant's body, the platform's code leading the message
          const body = res === 'no answer' ? undefined : (JSON.parse(res.body) as Partial<QdrantErrorBody>);
          const code = /^([a-z_]+): /.exec(body?.status?.error ?? '')?.[1];
          answers.push(`${op.method} ${op.path}: ${res === 'no answer' ? res : `${res.status} ${code}`}`);
          if (res !== 'no answer' && res.status === 401) {
            expect(Object.keys(body ?? {}).sort()).toEqual(['status', 'time']);
            expect(res.headers['request-id']).toMatch(/^req_[0-9a-f]{24}$/);
            expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="/);
            expect(res.headers['connection']).toBe('close');
          }
          continue;
        }
        if (isStripeOperation(op)) {
          // payments-api's Stripe-compatible /v1: Stripe's body (no request_id in it), the code kept
          const error = res === 'no answer' ? undefined : (JSON.parse(res.body) as Partial<StripeErrorBody>).error;
          answers.push(`${op.method} ${op.path}: ${res === 'no answer' ? res : `${res.status} ${error?.code}`}`);
          if (res !== 'no answer' && res.status === 401) {
            expect(Object.keys(JSON.parse(res.body) as object)).toEqual(['error']);
            expect([error?.type, typeof error?.message, error && 'request_id' in error]).toEqual([
              'invalid_request_error',
              'string',
              false,
            ]);
            expect(res.headers['request-id']).toMatch(/^req_[0-9a-f]{24}$/);
            expect(res.headers['connection']).toBe('close');
          }
          continue;
        }
        const error = res === 'no answer' ? undefined : (JSON.parse(res.body) as Partial<ErrorJson>).error;
        answers.push(`${op.method} ${op.path}: ${res === 'no answer' ? res : `${res.status} ${error?.code}`}`);
        if (res !== 'no answer' && res.status === 401) {
          contractError(res, 401);
          expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="/);
        }
      }
      expect(answers).toEqual(answers.map((a) => a.replace(/: .*$/, ': 401 authentication_required')));
    });

    it('answers 401 to a wrong admin key on an admin route before the body is sent', async () => {
      const admin = (await openApiOperations(t.app)).find((op) => op.path.startsWith('/admin/') && op.method === 'POST');
      expect(admin).toBeDefined();
      if (!admin) return;
      const res = await sendHeadThenWait(
        port,
        hugeBodyHead('POST', fillPath(admin.path, {}), { Authorization: 'Bearer not-the-admin-key-at-all' }),
        '{',
      );
      expect(contractError(res, 401).code).toBe('invalid_api_key');
      if (res !== 'no answer') expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="admin"/);
    });
  },
);

describe('dates outside 1970-9999 or off the calendar, and webhook URLs with control characters', () => {
  let payments: TestApp<PlatformConfig>;
  let offers: TestApp<PlatformConfig>;
  let paymentsAuth: Record<string, string>;
  let partnerAuth: Record<string, string>;
  let offerId: string;

  beforeAll(async () => {
    payments = await startTestApp(paymentsService as unknown as ServiceDefinition<PlatformConfig>, { ADMIN_API_KEY: ADMIN_KEY });
    offers = await startTestApp(offersService as unknown as ServiceDefinition<PlatformConfig>, { ADMIN_API_KEY: ADMIN_KEY });
    const account = await json<{ test_key: string }>(
      payments.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: ADMIN, payload: { name: 'Dates' } }),
      201,
    );
    paymentsAuth = { authorization: `Bearer ${account.test_key}` };
    const partner = await json<{ id: string }>(
      offers.app.inject({
        method: 'POST',
        url: '/admin/v1/partners',
        headers: ADMIN,
        payload: { name: 'Dates', tier: 'growth' },
      }),
      201,
    );
    const client = await json<{ client_id: string; client_secret: string }>(
      offers.app.inject({ method: 'POST', url: `/admin/v1/partners/${partner.id}/clients`, headers: ADMIN }),
      201,
    );
    const tokenRes = await json<{ access_token: string }>(
      offers.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: 'client_credentials', ...client }).toString(),
      }),
      200,
    );
    partnerAuth = { authorization: `Bearer ${tokenRes.access_token}` };
    const offer = await json<{ id: string }>(
      offers.app.inject({ method: 'POST', url: '/admin/v1/offers', headers: ADMIN, payload: offerBody() }),
      201,
    );
    offerId = offer.id;
  });
  afterAll(async () => {
    await payments?.close();
    await offers?.close();
  });

  const HOUR = 3_600_000;
  function offerBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      company: 'Dated plc',
      ticker: 'DTD',
      type: 'ipo',
      price_per_share: 2.5,
      currency: 'gbp',
      minimum_investment: 250,
      opens_at: new Date(Date.now() + HOUR).toISOString(),
      closes_at: new Date(Date.now() + 48 * HOUR).toISOString(),
      shares_offered: 1000,
      ...overrides,
    };
  }

  const OUT_OF_RANGE = [
    '0000-01-01T00:00:00Z',
    '1969-12-31T23:59:59Z',
    '9999-12-31T23:59:59-05:00',
    '2025-02-29T00:00:00Z',
    '2024-04-31T00:00:00Z',
    '2024-01-01T24:00:00Z',
  ];

  it('GET /v2/payments: created[gte] / created[lte] outside the range → 400 naming the parameter', async () => {
    for (const param of ['created[gte]', 'created[lte]']) {
      for (const value of [...OUT_OF_RANGE, '999999999999']) {
        const res = await payments.app.inject({
          method: 'GET',
          url: `/v2/payments?${encodeURIComponent(param)}=${encodeURIComponent(value)}`,
          headers: paymentsAuth,
        });
        expect({ value, ...contractError(res, 400) }).toMatchObject({ value, code: 'parameter_invalid', param });
      }
      for (const value of ['1970-01-01T00:00:00Z', '2026-01-01', '9999-12-31T23:59:59.999Z', '1700000000']) {
        const res = await payments.app.inject({
          method: 'GET',
          url: `/v2/payments?${encodeURIComponent(param)}=${encodeURIComponent(value)}`,
          headers: paymentsAuth,
        });
        expect({ value, status: res.statusCode }).toEqual({ value, status: 200 });
      }
    }
  });

  it('admin offer create and patch: opens_at / closes_at outside the range → 400 naming the field', async () => {
    for (const field of ['opens_at', 'closes_at']) {
      for (const value of OUT_OF_RANGE) {
        const created = await offers.app.inject({
          method: 'POST',
          url: '/admin/v1/offers',
          headers: ADMIN,
          payload: offerBody({ [field]: value }),
        });
        expect({ value, ...contractError(created, 400) }).toMatchObject({ value, code: 'parameter_invalid', param: field });
        const patched = await offers.app.inject({
          method: 'PATCH',
          url: `/admin/v1/offers/${offerId}`,
          headers: ADMIN,
          payload: { [field]: value },
        });
        expect({ value, ...contractError(patched, 400) }).toMatchObject({ value, code: 'parameter_invalid', param: field });
      }
    }
  });

  it('webhook recover: since outside the range → 400 naming it, on both services', async () => {
    for (const [app, auth, prefix] of [
      [payments, paymentsAuth, '/v2'],
      [offers, partnerAuth, '/api/v1'],
    ] as const) {
      const endpoint = await json<{ id: string }>(
        app.app.inject({
          method: 'POST',
          url: `${prefix}/webhook-endpoints`,
          headers: auth,
          payload: { url: 'http://127.0.0.1:9/hooks' },
        }),
        201,
      );
      for (const since of OUT_OF_RANGE) {
        const res = await app.app.inject({
          method: 'POST',
          url: `${prefix}/webhook-endpoints/${endpoint.id}/recover`,
          headers: auth,
          payload: { since },
        });
        expect({ since, ...contractError(res, 400) }).toMatchObject({ since, code: 'parameter_invalid', param: 'since' });
      }
    }
  });

  it('webhook endpoint create: a URL with CR, LF, TAB, DEL or a C1 control → 400 webhook_url_invalid naming url', async () => {
    for (const [app, auth, prefix] of [
      [payments, paymentsAuth, '/v2'],
      [offers, partnerAuth, '/api/v1'],
    ] as const) {
      for (const url of [
        'http://127.0.0.1:9/hooks\r\nX-Injected: 1',
        'http://127.0.0.1:9/ho\noks',
        'http://127.0.0.1:9/ho\toks',
        'http://127.0.0.1:9/hooks\u007f',
        'http://127.0.0.1:9/hooks\u0085',
        '\u0001http://127.0.0.1:9/hooks',
      ]) {
        const res = await app.app.inject({ method: 'POST', url: `${prefix}/webhook-endpoints`, headers: auth, payload: { url } });
        expect({ url, ...contractError(res, 400) }).toMatchObject({ url, code: 'webhook_url_invalid', param: 'url' });
      }
      // percent-encoded, they are delivered exactly as shown: accepted
      await json(
        app.app.inject({
          method: 'POST',
          url: `${prefix}/webhook-endpoints`,
          headers: auth,
          payload: { url: 'http://127.0.0.1:9/hooks%0D%0A' },
        }),
        201,
      );
    }
  });
});

describe('admin key failures are limited per client address', () => {
  let t: TestApp<PlatformConfig>;
  const from = (ip: string, authorization?: string): Record<string, string> => ({
    'x-forwarded-for': ip,
    ...(authorization === undefined ? {} : { authorization }),
  });
  const info = (headers: Record<string, string>): Promise<LightMyRequestResponse> =>
    t.app.inject({ method: 'GET', url: '/admin/v1/info', headers });

  beforeAll(async () => {
    // TRUST_PROXY=1: the client address is the X-Forwarded-For entry the (test) proxy added.
    t = await startTestApp(paymentsService as unknown as ServiceDefinition<PlatformConfig>, {
      ADMIN_API_KEY: ADMIN_KEY,
      ADMIN_AUTH_FAILURES_PER_MINUTE: '3',
      TRUST_PROXY: '1',
      ROLE: 'api',
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 429 with Retry-After past the limit, to the right key too; successes and missing keys are not counted', async () => {
    const a = '203.0.113.7';
    for (let i = 0; i < 10; i++) expect((await info(from(a, ADMIN.authorization))).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect(contractError(await info(from(a)), 401).code).toBe('authentication_required');
    for (let i = 0; i < 3; i++)
      expect(contractError(await info(from(a, 'Bearer wrong-key-00000000')), 401).code).toBe('invalid_api_key');
    const limited = await info(from(a, 'Bearer wrong-key-00000000'));
    expect(contractError(limited, 429)).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(contractError(await info(from(a, ADMIN.authorization)), 429).code).toBe('rate_limit_exceeded');
    // an admin route with a body is refused the same way, before the body
    const post = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: from(a, ADMIN.authorization),
      payload: { name: 'locked out' },
    });
    expect(contractError(post, 429).code).toBe('rate_limit_exceeded');

    // another address is not affected
    const b = '198.51.100.9';
    expect(contractError(await info(from(b, 'Bearer wrong-key-00000000')), 401).code).toBe('invalid_api_key');
    expect((await info(from(b, ADMIN.authorization))).statusCode).toBe(200);
  });

  it('counts IPv6 clients per /64', async () => {
    for (let i = 1; i <= 3; i++) {
      expect(contractError(await info(from(`2001:db8:14:1::${i}`, 'Bearer wrong-key-00000000')), 401).code).toBe(
        'invalid_api_key',
      );
    }
    expect(contractError(await info(from('2001:db8:14:1:ffff::9', 'Bearer wrong-key-00000000')), 429).code).toBe(
      'rate_limit_exceeded',
    );
    expect(contractError(await info(from('2001:db8:14:2::1', 'Bearer wrong-key-00000000')), 401).code).toBe('invalid_api_key');
  });
});

describe('the admin failure limit fails open without Redis', () => {
  it('answers 401 to wrong keys and 200 to the right one when Redis is unreachable', async () => {
    const t = await startTestApp(paymentsService as unknown as ServiceDefinition<PlatformConfig>, {
      ADMIN_API_KEY: ADMIN_KEY,
      ADMIN_AUTH_FAILURES_PER_MINUTE: '1',
      REDIS_URL: 'redis://127.0.0.1:9',
      ROLE: 'api',
    });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await t.app.inject({
          method: 'GET',
          url: '/admin/v1/info',
          headers: { authorization: 'Bearer wrong-key-0000' },
        });
        expect(contractError(res, 401).code).toBe('invalid_api_key');
      }
      expect((await t.app.inject({ method: 'GET', url: '/admin/v1/info', headers: ADMIN })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('errors raised before routing and JSON keys', () => {
  let t: TestApp<PlatformConfig>;
  let port: number;
  let auth: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp(paymentsService as unknown as ServiceDefinition<PlatformConfig>, { ADMIN_API_KEY: ADMIN_KEY });
    port = await listen(t);
    const account = await json<{ test_key: string }>(
      t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: ADMIN, payload: { name: 'Keys' } }),
      201,
    );
    auth = { authorization: `Bearer ${account.test_key}` };
  });
  afterAll(async () => {
    await t.close();
  });

  const raw = (text: string): Promise<RawResponse | 'no answer'> => sendHeadThenWait(port, text);

  it('431: headers over maxHeaderSize', async () => {
    const res = await raw(`GET /v2/payments HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(contractError(res, 431)).toMatchObject({ type: 'invalid_request_error', code: 'headers_too_large' });
  });

  it('methods Node does not know, CONNECT, and methods no route serves', async () => {
    expect(contractError(await raw('FOO /v2/payments HTTP/1.1\r\nHost: x\r\n\r\n'), 400).code).toBe('request_malformed');
    expect(contractError(await raw('CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n'), 404).code).toBe(
      'route_not_found',
    );
    expect(contractError(await raw('PROPFIND /v2/payments HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 404).code).toBe(
      'route_not_found',
    );
  });

  it('malformed requests: a bad header name, two Content-Lengths, no Host, a control character or bad percent-encoding in the URL', async () => {
    for (const text of [
      'GET /v2/payments HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n',
      'POST /v2/payments HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
      'GET /v2/payments HTTP/1.1\r\nConnection: close\r\n\r\n',
      'GET /v2/pay\u0001ments HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /v2/payments HTTP/9.1\r\nHost: x\r\n\r\n',
    ]) {
      const res = await raw(text);
      expect({ text, code: contractError(res, 400).code }).toEqual({ text, code: 'request_malformed' });
    }
    const res = await raw('GET /v2/payments/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(contractError(res, 400).code).toBe('parameter_invalid');
  });

  it('__proto__, constructor and prototype keys → parameter_unknown naming the key', async () => {
    for (const [payload, param] of [
      ['{"__proto__":{"amount":1},"amount":100,"currency":"gbp","customer_id":"cus_x"}', '__proto__'],
      ['{"amount":100,"currency":"gbp","customer_id":"cus_x","metadata":{"__proto__":{"a":"b"}}}', 'metadata.__proto__'],
      ['{"amount":100,"currency":"gbp","customer_id":"cus_x","constructor":{"prototype":{"a":1}}}', 'constructor'],
      ['{"amount":100,"currency":"gbp","customer_id":"cus_x","metadata":{"prototype":"x"}}', 'metadata.prototype'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2/payments',
        headers: { ...auth, 'content-type': 'application/json' },
        payload,
      });
      expect({ payload, ...contractError(res, 400) }).toMatchObject({ payload, code: 'parameter_unknown', param });
    }
  });

  it('a key given twice in an object → parameter_duplicate naming it (the last one used to win silently)', async () => {
    for (const [payload, param] of [
      ['{"amount":100,"currency":"gbp","amount":1,"customer_id":"cus_x"}', 'amount'],
      ['{"amount":100,"currency":"gbp","\\u0061mount":1,"customer_id":"cus_x"}', 'amount'],
      ['{"amount":100,"currency":"gbp","customer_id":"cus_x","metadata":{"a":"1","b":"2","a":"3"}}', 'metadata.a'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2/payments',
        headers: { ...auth, 'content-type': 'application/json' },
        payload,
      });
      expect({ payload, ...contractError(res, 400) }).toMatchObject({ payload, code: 'parameter_duplicate', param });
    }
    // the same key in sibling objects, or as a string value, is not a duplicate
    const customer = await t.app.inject({
      method: 'POST',
      url: '/v2/customers',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"email":"a@example.com","metadata":{"email":"email","name":"\\"email\\""},"name":"email"}',
    });
    expect(customer.statusCode).toBe(201);
  });
});
