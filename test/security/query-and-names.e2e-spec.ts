/**
 * Two input rules of issue 31, in each service:
 *
 * - Unknown query parameters are 400 `parameter_unknown` naming the parameter on EVERY route
 *   (the finding: `GET /v1/tables?bogus=1` and `?limit=1` were silently ignored). The cases
 *   come from the service's /openapi.json, so a route added later is covered without touching
 *   this file: each operation is called with its credential (the admin key, or a console
 *   session with its CSRF token) and an undeclared parameter. Routes that take a query keep
 *   taking what they declare; the console's pages take any (the single-page app's state).
 *   vector-api's Qdrant-compatible routes answer the same in Qdrant's body.
 * - Names refuse control and bidirectional characters (the finding: OAuth client and vector
 *   token names accepted `\u202egnp.exe`): 400 `parameter_invalid` naming the field, for every
 *   name a person reads (clients, tokens, API keys, tenants, webhook endpoint descriptions).
 */
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { vectorService } from '../../apps/vector-api/src/service';
import type { PlatformConfig, ServiceDefinition } from '@app/platform';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../support/app';
import { consoleSession, type ConsoleService, newConsoleTenant } from '../support/console';
import { type ErrorBody, fillPath, isStripeOperation, openApiOperations, opKey, type Operation } from './support';

const ADMIN = { authorization: 'Bearer dev-admin-key' };
const UNKNOWN = 'bogus_param';

const SERVICES: Array<[ConsoleService, ServiceDefinition<PlatformConfig>, Record<string, string>]> = [
  ['offers', offersService as unknown as ServiceDefinition<PlatformConfig>, { RATE_LIMIT_GROWTH: '100000' }],
  ['vector', vectorService as unknown as ServiceDefinition<PlatformConfig>, { VECTOR_RATE_LIMIT_PER_MINUTE: '100000' }],
  ['payments', paymentsService as unknown as ServiceDefinition<PlatformConfig>, { PAYMENTS_RATE_LIMIT_PER_MINUTE: '100000' }],
];

/**
 * `[status, code, param]` of a platform error body, or of POST /oauth/token's RFC 6749 body,
 * or of Qdrant's body on vector-api's Qdrant-compatible routes (`{status: {error: "code: message"}}`,
 * the platform's code in front; the param is the unknown one when the message names it).
 */
const refusalOf = (res: LightMyRequestResponse): string => {
  let body: { error?: unknown; error_description?: unknown; status?: { error?: unknown } };
  try {
    body = res.json<{ error?: unknown; error_description?: unknown; status?: { error?: unknown } }>();
  } catch {
    return `${res.statusCode} (not JSON)`;
  }
  if (body.error === undefined && typeof body.status?.error === 'string') {
    const message = body.status.error;
    const code = /^([a-z_]+): /.exec(message)?.[1];
    return `${res.statusCode} ${code} ${message.includes(`parameter: ${UNKNOWN}`) ? UNKNOWN : undefined}`;
  }
  if (typeof body.error === 'string') {
    const named = typeof body.error_description === 'string' && body.error_description.includes(UNKNOWN);
    return `${res.statusCode} ${body.error} ${String(named)}`;
  }
  const error = (body as ErrorBody).error;
  return `${res.statusCode} ${error?.code} ${error?.param}`;
};

describe.each(SERVICES)('unknown query parameters: %s', (service, definition, env) => {
  let t: TestApp<PlatformConfig>;
  let session: Awaited<ReturnType<typeof consoleSession>>;
  let ops: Operation[];
  /** A payments secret key, for Stripe's /v1 (which takes no console session). */
  let key: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp(definition, env);
    session = await consoleSession(t.app, service, await newConsoleTenant(t.app, service));
    ops = await openApiOperations(t.app);
    if (ops.some(isStripeOperation)) {
      const account = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: ADMIN, payload: { name: 'q' } });
      key = { authorization: `Bearer ${account.json<{ test_key: string }>().test_key}` };
    }
  });
  afterAll(() => t?.close());

  /** The credential an operation takes: the admin key, the console session (with CSRF for writes), or none. */
  const credentialOf = (op: Operation): Record<string, string> => {
    if (op.security.includes('admin')) return ADMIN;
    if (op.security.length === 0) return {};
    if (isStripeOperation(op)) return key;
    return op.method === 'GET' ? { cookie: session.cookie } : session.headers;
  };

  const send = (op: Operation, query: string): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: op.method,
      url: `${fillPath(op.path, {}, 'qry_0000000000000000000000')}?${query}`,
      // A Content-Type only with a body: a DELETE saying JSON without one is an invalid_json of its
      // own, which a route whose query is a validated class (the Qdrant routes) reads first.
      ...(op.method === 'GET' || op.method === 'DELETE'
        ? { headers: { 'idempotency-key': `q-${Math.random()}`, ...credentialOf(op) } }
        : {
            headers: { 'content-type': 'application/json', 'idempotency-key': `q-${Math.random()}`, ...credentialOf(op) },
            payload: '{}',
          }),
    });

  it('finds the operations in /openapi.json, with and without query parameters', () => {
    expect(ops.length).toBeGreaterThan(15);
    expect(ops.some((op) => op.security.includes('admin'))).toBe(true);
  });

  it(`refuses ?${UNKNOWN}=1 on every operation with 400 parameter_unknown naming it`, async () => {
    const answers: string[] = [];
    for (const op of ops) answers.push(`${opKey(op)}: ${refusalOf(await send(op, `${UNKNOWN}=1`))}`);
    const expected = answers.map((a) =>
      a.startsWith('POST /oauth/token:')
        ? a.replace(/: .*$/, ': 400 invalid_request true')
        : a.replace(/: .*$/, `: 400 parameter_unknown ${UNKNOWN}`),
    );
    expect(answers).toEqual(expected);
  });

  it('refuses an empty-valued and a repeated unknown parameter too, and health and metrics take none', async () => {
    for (const url of ['/health/live?x', '/health/ready?x=1&x=2', '/metrics?format=text']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(refusalOf(res)).toMatch(/^400 parameter_unknown (x|format)$/);
    }
    expect((await t.app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
  });

  it('keeps the console pages, /openapi.json and /docs answering with a query string', async () => {
    for (const url of ['/console?created=1', '/console/settings?page=2', '/openapi.json?v=1', '/docs?x=1']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect({ url, status: res.statusCode }).toEqual({ url, status: res.statusCode === 503 ? 503 : 200 });
      expect(res.statusCode).not.toBe(400);
    }
  });
});

describe('declared query parameters still work', () => {
  let offers: TestApp<PlatformConfig>;
  let payments: TestApp<PlatformConfig>;

  beforeAll(async () => {
    offers = await startTestApp(offersService as unknown as ServiceDefinition<PlatformConfig>);
    payments = await startTestApp(paymentsService as unknown as ServiceDefinition<PlatformConfig>, {}, { db: offers.db });
  });
  afterAll(async () => {
    await payments?.close();
    await offers?.close();
  });

  it('payments: GET /v2/payments?limit=1 and /v2/events?type=payment.*&limit=2 → 200; ?limit=1&bogus=1 → 400 naming bogus', async () => {
    const s = await consoleSession(payments.app, 'payments', await newConsoleTenant(payments.app, 'payments'));
    for (const url of ['/v2/payments?limit=1', '/v2/events?type=payment.*&limit=2', '/v2/customers?limit=3']) {
      const res = await payments.app.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
      expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
    }
    const res = await payments.app.inject({ method: 'GET', url: '/v2/payments?limit=1&bogus=1', headers: { cookie: s.cookie } });
    expect(refusalOf(res)).toBe('400 parameter_unknown bogus');
  });

  it('offers: GET /api/v1/offers?limit=1 → 200', async () => {
    const s = await consoleSession(offers.app, 'offers', await newConsoleTenant(offers.app, 'offers'));
    const res = await offers.app.inject({ method: 'GET', url: '/api/v1/offers?limit=1', headers: { cookie: s.cookie } });
    expect(res.statusCode).toBe(200);
  });
});

/** What a name must not hold, each with the code point the message names. */
const HOSTILE: Array<[string, string]> = [
  ['\u202egnp.exe', 'U+202E'],
  ['a\u0007b', 'U+0007'],
  ['line\nbreak', 'U+000A'],
  ['tab\there', 'U+0009'],
  ['del\u007f', 'U+007F'],
  ['c1\u0085', 'U+0085'],
  ['\u2066isolate\u2069', 'U+2066'],
  ['mark\u200f', 'U+200F'],
  ['arabic\u061cmark', 'U+061C'],
  ['zero\u200bwidth', 'U+200B'],
  ['\ufeffbom', 'U+FEFF'],
];
/** Names that stay allowed: other scripts, emoji with a zero-width joiner, punctuation. */
const FRIENDLY = ['Café — 東京', 'مرحبا بالعالم', '👩‍💻 reporting', 'backend (prod) #2'];

interface NameCase {
  readonly label: string;
  readonly url: string;
  readonly field: string;
  readonly body: (value: string) => Record<string, unknown>;
  readonly admin: boolean;
}

const NAME_CASES: Record<ConsoleService, NameCase[]> = {
  offers: [
    { label: 'partner name', url: '/admin/v1/partners', field: 'name', body: (v) => ({ name: v, tier: 'growth' }), admin: true },
    { label: 'OAuth client name', url: '/api/v1/clients', field: 'name', body: (v) => ({ name: v }), admin: false },
    {
      label: 'webhook endpoint description',
      url: '/api/v1/webhook-endpoints',
      field: 'description',
      body: (v) => ({ url: 'https://hooks.example.com/in', events: ['*'], description: v }),
      admin: false,
    },
  ],
  vector: [
    { label: 'project name', url: '/admin/v1/projects', field: 'name', body: (v) => ({ name: v }), admin: true },
    { label: 'vector token name', url: '/v1/tokens', field: 'name', body: (v) => ({ name: v }), admin: false },
  ],
  payments: [
    { label: 'account name', url: '/admin/v1/accounts', field: 'name', body: (v) => ({ name: v }), admin: true },
    {
      label: 'API key name',
      url: '/v2/api-keys',
      field: 'name',
      body: (v) => ({ mode: 'test', name: v, permissions: { customers: 'read' } }),
      admin: false,
    },
  ],
};

describe.each(SERVICES)('names without control or bidi characters: %s', (service, definition, env) => {
  let t: TestApp<PlatformConfig>;
  let session: Awaited<ReturnType<typeof consoleSession>>;

  beforeAll(async () => {
    t = await startTestApp(definition, env);
    session = await consoleSession(t.app, service, await newConsoleTenant(t.app, service));
  });
  afterAll(() => t?.close());

  const create = (c: NameCase, value: string): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url: c.url,
      headers: { 'idempotency-key': `n-${Math.random()}`, ...(c.admin ? ADMIN : session.headers) },
      payload: c.body(value),
    });

  it.each(NAME_CASES[service].map((c) => [c.label, c] as const))(
    '%s: 400 parameter_invalid naming the field and the character',
    async (_label, c) => {
      const answers: string[] = [];
      for (const [value, codePoint] of HOSTILE) {
        const res = await create(c, value);
        const body = res.json<ErrorBody>();
        answers.push(
          `${JSON.stringify(value)}: ${res.statusCode} ${body.error?.code} ${body.error?.param} ${body.error?.message?.includes(codePoint)}`,
        );
      }
      expect(answers).toEqual(HOSTILE.map(([value]) => `${JSON.stringify(value)}: 400 parameter_invalid ${c.field} true`));
    },
  );

  it('accepts names in other scripts, with emoji and punctuation', async () => {
    const c = NAME_CASES[service].find((n) => n.field === 'name');
    if (!c) throw new Error('no name case');
    for (const value of FRIENDLY) {
      const res = await create(c, value);
      expect({ value, status: res.statusCode, body: res.statusCode === 201 ? 'ok' : res.body }).toEqual({
        value,
        status: 201,
        body: 'ok',
      });
      expect(res.json<{ name: string }>().name).toBe(value);
    }
  });
});
