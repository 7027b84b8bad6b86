/**
 * The fuzz harness shared by test/fuzz/*.e2e-spec.ts: every operation of a service's
 * OpenAPI document is hit with generated (fast-check, fixed seeds) and hand-picked hostile
 * requests through `app.inject`. Every response must be a 2xx or a 4xx within 10 s, and
 * every non-2xx must carry the platform contract's error body (RFC 6749 §5.2 on the
 * OAuth token endpoint) whose `request_id` is the `Request-Id` header.
 */
import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import {
  bodyMutations,
  Entries,
  formBody,
  HOSTILE_VALUES,
  jsonText,
  malformedJson,
  mutate,
  pathParam,
  POLLUTION_KEY,
  queryString,
  RawJson,
} from './arbitraries';

export const REQUEST_TIMEOUT_MS = 10_000;

/** One (method, path) of an OpenAPI document. */
export interface Operation {
  readonly key: string;
  readonly method: string;
  readonly path: string;
  readonly pathParams: readonly string[];
  readonly queryParams: readonly string[];
  /** Security scheme name (`admin`, `partner`, ...), undefined when unauthenticated. */
  readonly security: string | undefined;
  readonly bodyTypes: readonly string[];
  /** Its OpenAPI tags (`stripe`: Stripe's /v1 of payments-api, form-encoded bodies, Stripe's error body). */
  readonly tags?: readonly string[];
}

/** What the fuzzer needs to know to reach business logic: valid values. */
export interface OpTemplate {
  /** Valid values of each path parameter (one is chosen per request). */
  readonly params?: Readonly<Record<string, readonly string[]>>;
  /** A valid JSON body (called per request, so it may differ each time, e.g. a fresh name). */
  readonly body?: () => object;
  /** Valid values of query parameters, mixed in with hostile ones. */
  readonly query?: Readonly<Record<string, readonly string[]>>;
  /** application/x-www-form-urlencoded operation: valid values of its fields. */
  readonly form?: Readonly<Record<string, readonly string[]>>;
  /** Generated runs (default: the suite's); lower for operations whose success is costly. */
  readonly numRuns?: number;
  /** Path parameters of the hand-picked query-string cases (default: the valid ones). */
  readonly queryCaseParams?: Readonly<Record<string, string>>;
}

export interface FuzzRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly payload?: string | Buffer;
}

/** Contract `type` of the error body for each status (platform contract, "Errors"). */
const TYPES_BY_STATUS: Readonly<Record<number, readonly string[]>> = {
  400: ['invalid_request_error'],
  402: ['card_error'],
  401: ['authentication_error'],
  403: ['permission_error'],
  404: ['invalid_request_error'],
  409: ['invalid_request_error', 'idempotency_error'],
  413: ['invalid_request_error'],
  415: ['invalid_request_error'],
  422: ['invalid_request_error', 'idempotency_error'],
  429: ['rate_limit_error'],
};

const OAUTH_ERRORS = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'slow_down',
];

export function seedOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h | 0;
}

function short(text: string | Buffer | undefined, max = 300): string {
  if (text === undefined) return '(none)';
  const s = Buffer.isBuffer(text) ? `<${text.length} bytes>` : text;
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}

export function describeRequest(req: FuzzRequest): string {
  return `${req.method} ${short(req.url, 400)}\n  headers: ${short(JSON.stringify(req.headers))}\n  body: ${short(req.payload)}`;
}

/** Operations of an OpenAPI document. */
export function operationsOf(document: {
  paths: Record<
    string,
    Record<
      string,
      {
        security?: Array<Record<string, unknown>>;
        parameters?: Array<{ in: string; name: string }>;
        requestBody?: { content: Record<string, unknown> };
        tags?: string[];
      }
    >
  >;
}): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      ops.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        security: op.security?.[0] ? Object.keys(op.security[0])[0] : undefined,
        bodyTypes: Object.keys(op.requestBody?.content ?? {}),
        tags: op.tags ?? [],
      });
    }
  }
  return ops;
}

/** Routes every service serves without auth and outside the OpenAPI operations we fuzz by template. */
export const UNAUTHENTICATED = ['GET /health/live', 'GET /health/ready', 'GET /metrics', 'GET /docs', 'GET /openapi.json'];

export interface Stats {
  total: number;
  byClass: Record<string, number>;
  byKind: Record<string, number>;
  byStatus: Record<string, number>;
  byOperation: Record<string, number>;
}

export interface FuzzerOptions {
  readonly service: string;
  readonly app: NestFastifyApplication;
  /** Valid credentials per security scheme (headers). */
  readonly auth: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Wrong credentials tried on authenticated operations (headers). */
  readonly junkAuth: ReadonlyArray<Readonly<Record<string, string>>>;
  /** Ids of every kind of fixture, used as "valid-looking ids of other types" in paths. */
  readonly otherIds: readonly string[];
  /** BODY_LIMIT_BYTES of the service. */
  readonly bodyLimit: number;
  /** Routes with their own body limit (`@BodyLimit`), by operation key (`POST /v1/tables/{table}/insert`). */
  readonly routeBodyLimits?: Readonly<Record<string, number>>;
  /** Paths whose errors follow RFC 6749 §5.2 instead of the platform body. */
  readonly oauthPaths?: readonly string[];
  /**
   * Whether an operation (its OpenAPI path) answered at the path the service saw (after
   * `..` segments are resolved) answers its errors in Qdrant's body, `{status: {error}, time}`
   * (vector-api's Qdrant-compatible routes, docs/qdrant.md), instead of the platform body.
   */
  readonly qdrantBody?: (opPath: string, seenPath: string) => boolean;
  /**
   * Whether an operation answered at the path the service saw answers its errors in Stripe's
   * body, `{error: {type, message, code?, param?}}` with `Stripe-Should-Retry` (payments-api's
   * /v1, docs/stripe.md), instead of the platform body.
   */
  readonly stripeBody?: (opPath: string, seenPath: string) => boolean;
  readonly numRuns?: number;
  /** The app's parsed log lines: on a 5xx the error logged for that request is quoted. */
  readonly logs?: ReadonlyArray<Record<string, unknown>>;
}

/** Sends requests, checks each response against the contract and counts them. */
export class Fuzzer {
  readonly stats: Stats = { total: 0, byClass: {}, byKind: {}, byStatus: {}, byOperation: {} };
  readonly failures: string[] = [];
  private readonly bigBody: Buffer;
  /** The suite's wrong credentials, plus none at all. */
  private readonly junkAuth: ReadonlyArray<Readonly<Record<string, string>>>;

  constructor(readonly options: FuzzerOptions) {
    this.junkAuth = [{}, ...options.junkAuth];
    // limit + 1 bytes of valid JSON (a string), so only the size is wrong.
    this.bigBody = Fuzzer.jsonStringOf(options.bodyLimit + 1);
  }

  /** `size` bytes of valid JSON (one string), so that only the size is wrong. */
  private static jsonStringOf(size: number): Buffer {
    const body = Buffer.alloc(size, 0x61);
    body[0] = 0x22;
    body[size - 1] = 0x22;
    return body;
  }

  /** One byte over the operation's body limit. */
  private oversized(op: Operation): Buffer {
    const own = this.options.routeBodyLimits?.[op.key];
    return own === undefined ? this.bigBody : Fuzzer.jsonStringOf(own + 1);
  }

  private count(record: Record<string, number>, key: string): void {
    record[key] = (record[key] ?? 0) + 1;
  }

  /** Problems with one response (empty when it honours the contract). */
  check(op: Operation, res: LightMyRequestResponse | 'timeout', expectStatus?: number): string[] {
    if (res === 'timeout') return [`no response within ${REQUEST_TIMEOUT_MS} ms`];
    const problems: string[] = [];
    const status = res.statusCode;
    const requestId = res.headers['request-id'];
    if (typeof requestId !== 'string' || requestId === '') problems.push('no Request-Id header');
    if (status >= 500) problems.push(`status ${status}`);
    else if (status < 200 || (status >= 300 && status < 400)) problems.push(`unexpected status ${status}`);
    if (expectStatus !== undefined && status !== expectStatus) problems.push(`expected status ${expectStatus}, got ${status}`);
    if (status >= 200 && status < 300) return problems;

    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      problems.push('error body is not JSON');
      return problems;
    }
    const oauth = this.options.oauthPaths?.includes(op.path) ?? false;
    if (oauth) {
      const b = body as { error?: unknown; error_description?: unknown };
      if (typeof b.error !== 'string' || !OAUTH_ERRORS.includes(b.error))
        problems.push('OAuth error body: error is not an RFC 6749 code');
      if (typeof b.error_description !== 'string') problems.push('OAuth error body: error_description missing');
      if (status === 401 && !res.headers['www-authenticate']) problems.push('401 without WWW-Authenticate');
      if (status === 429 && !res.headers['retry-after']) problems.push('429 without Retry-After');
      if (![400, 401, 413, 415, 429].includes(status)) problems.push(`OAuth status ${status}`);
      return problems;
    }
    // by the path the service saw too (`/collections/../points` is `/points`, outside them)
    const seen = (res.raw.req.url ?? '').split('?')[0] ?? '';
    if (this.options.qdrantBody?.(op.path, seen) === true) {
      const b = body as { status?: { error?: unknown }; time?: unknown };
      if (typeof b.status?.error !== 'string' || b.status.error === '') problems.push('Qdrant error body: status.error missing');
      if (typeof b.time !== 'number') problems.push('Qdrant error body: time missing');
      if (Object.keys(b).some((k) => k !== 'status' && k !== 'time')) problems.push('Qdrant error body: other fields');
      if (status === 401 && !res.headers['www-authenticate']) problems.push('401 without WWW-Authenticate');
      if (status === 429 && !res.headers['retry-after']) problems.push('429 without Retry-After');
      if (![400, 401, 403, 404, 409, 413, 415, 429].includes(status)) problems.push(`Qdrant status ${status}`);
      return problems;
    }
    if (this.options.stripeBody?.(op.path, seen) === true) return [...problems, ...stripeBodyProblems(res, body)];
    const e = (body as { error?: Record<string, unknown> }).error;
    if (typeof e !== 'object' || e === null) {
      problems.push('error body has no error object');
      return problems;
    }
    if (typeof e.type !== 'string') problems.push('error.type missing');
    else if (!(TYPES_BY_STATUS[status] ?? []).includes(e.type))
      problems.push(`error.type ${e.type} does not fit status ${status}`);
    if (typeof e.code !== 'string' || !/^[a-z][a-z0-9_]*$/.test(e.code)) problems.push('error.code is not snake_case');
    if (typeof e.message !== 'string' || e.message === '') problems.push('error.message missing');
    if (e.param !== undefined && typeof e.param !== 'string') problems.push('error.param is not a string');
    if (e.request_id !== requestId)
      problems.push(`error.request_id ${String(e.request_id)} is not the Request-Id header ${String(requestId)}`);
    if (status === 401 && !String(res.headers['www-authenticate'] ?? '').startsWith('Bearer'))
      problems.push('401 without WWW-Authenticate: Bearer');
    if (status === 429 && !res.headers['retry-after']) problems.push('429 without Retry-After');
    return problems;
  }

  /** Sends one request (10 s timeout), counts it, returns the problems found. */
  async send(
    op: Operation,
    kind: string,
    req: FuzzRequest,
    expectStatus?: number,
  ): Promise<{ problems: string[]; res?: LightMyRequestResponse }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), REQUEST_TIMEOUT_MS);
    });
    const res = await Promise.race([
      this.options.app.inject({
        method: req.method as 'GET',
        url: req.url,
        headers: req.headers,
        ...(req.payload === undefined ? {} : { payload: req.payload }),
      }),
      timeout,
    ]).finally(() => clearTimeout(timer));
    this.stats.total++;
    this.count(this.stats.byKind, kind);
    this.count(this.stats.byOperation, op.key);
    if (res === 'timeout') {
      this.count(this.stats.byClass, 'hang');
    } else {
      this.count(this.stats.byClass, `${Math.floor(res.statusCode / 100)}xx`);
      this.count(this.stats.byStatus, String(res.statusCode));
    }
    const problems = this.check(op, res, expectStatus);
    if (res !== 'timeout' && res.statusCode >= 500) problems.push(...this.loggedErrors(String(res.headers['request-id'])));
    return { problems, ...(res === 'timeout' ? {} : { res }) };
  }

  private loggedErrors(requestId: string): string[] {
    return (this.options.logs ?? [])
      .filter((l) => l['reqId'] === requestId && typeof l['err'] === 'object')
      .map((l) => {
        const err = l['err'] as { type?: string; message?: string; stack?: string };
        return `logged: ${short(err.stack ?? `${err.type}: ${err.message}`, 1200)}`;
      });
  }

  /** `send`, recording a failure (for the hand-picked cases, which all run before asserting). */
  async probe(op: Operation, kind: string, req: FuzzRequest, expectStatus?: number): Promise<void> {
    const { problems, res } = await this.send(op, kind, req, expectStatus);
    if (problems.length > 0) {
      this.failures.push(
        `${this.options.service} ${op.key} [${kind}]: ${problems.join('; ')}\n  ${describeRequest(req)}\n  response: ${res?.statusCode ?? '-'} ${short(res?.body)}`,
      );
    }
  }

  // -------------------------------------------------------------------------------------

  url(op: Operation, params: Readonly<Record<string, string>>, query = ''): string {
    const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => params[name] ?? 'missing');
    return query === '' ? path : `${path}?${query}`;
  }

  validParams(op: Operation, template: OpTemplate): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of op.pathParams) out[name] = template.params?.[name]?.[0] ?? 'none';
    return out;
  }

  validAuth(op: Operation): Record<string, string> {
    return op.security === undefined ? {} : { ...(this.options.auth[op.security] ?? {}) };
  }

  isForm(op: Operation, template: OpTemplate): boolean {
    return (
      template.form !== undefined ||
      op.bodyTypes.includes('application/x-www-form-urlencoded') ||
      (isStripe(op) && op.method === 'POST')
    );
  }

  hasJsonBody(op: Operation, template: OpTemplate): boolean {
    return template.body !== undefined || op.bodyTypes.includes('application/json');
  }

  /** The generated property: hostile auth, path, query and body, in combination. */
  async property(op: Operation, template: OpTemplate, numRuns: number): Promise<void> {
    const seed = seedOf(`${this.options.service} ${op.key}`);
    const validBody = template.body?.() ?? {};
    const validText = jsonText(validBody);
    const authArb: fc.Arbitrary<Record<string, string>> =
      op.security === undefined
        ? fc.constant({})
        : fc.oneof(
            { weight: 8, arbitrary: fc.constant(this.validAuth(op)) },
            { weight: 2, arbitrary: fc.constantFrom(...this.junkAuth.map((h) => ({ ...h }))) },
          );
    const paramArbs: Record<string, fc.Arbitrary<string>> = {};
    for (const name of op.pathParams) paramArbs[name] = pathParam(template.params?.[name] ?? [], this.options.otherIds);
    const knownQuery = [...op.queryParams, ...Object.keys(template.query ?? {})];
    const queryArb = fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: 2, arbitrary: queryString(knownQuery) });

    type Body = { kind: string; payload?: string; contentType?: string };
    let bodyArb: fc.Arbitrary<Body>;
    if (op.method === 'GET') {
      bodyArb = fc.constant({ kind: 'none' });
    } else if (this.isForm(op, template)) {
      bodyArb = fc.oneof(
        {
          weight: 6,
          arbitrary: formBody(template.form ?? (isStripe(op) ? STRIPE_GENERIC_FORM : { grant_type: ['client_credentials'] })).map(
            (payload) => ({
              kind: 'form',
              payload,
              contentType: 'application/x-www-form-urlencoded',
            }),
          ),
        },
        {
          weight: 1,
          arbitrary: fc
            .jsonValue()
            .map((v) => ({ kind: 'json-any', payload: JSON.stringify(v), contentType: 'application/json' })),
        },
        {
          weight: 1,
          arbitrary: malformedJson('{"grant_type":"client_credentials"}').map((r) => ({
            kind: 'json-malformed',
            payload: r.text,
            contentType: 'application/json',
          })),
        },
      );
    } else if (this.hasJsonBody(op, template)) {
      bodyArb = fc.oneof(
        {
          weight: 3,
          arbitrary: fc
            .constant(null)
            .map(() => ({ kind: 'json-valid', payload: jsonText(template.body?.() ?? {}), contentType: 'application/json' })),
        },
        {
          weight: 6,
          arbitrary: bodyMutations(validBody).map((m) => ({
            kind: 'json-mutation',
            payload: jsonText(mutate(template.body?.() ?? {}, m)),
            contentType: 'application/json',
          })),
        },
        {
          weight: 2,
          arbitrary: fc
            .jsonValue()
            .map((v) => ({ kind: 'json-any', payload: JSON.stringify(v), contentType: 'application/json' })),
        },
        {
          weight: 2,
          arbitrary: malformedJson(validText).map((r) => ({
            kind: 'json-malformed',
            payload: r.text,
            contentType: 'application/json',
          })),
        },
        { weight: 1, arbitrary: fc.constant({ kind: 'json-empty', contentType: 'application/json' }) },
      );
    } else {
      bodyArb = fc.oneof(
        { weight: 4, arbitrary: fc.constant({ kind: 'none' }) },
        {
          weight: 1,
          arbitrary: fc
            .jsonValue()
            .map((v) => ({ kind: 'json-any', payload: JSON.stringify(v), contentType: 'application/json' })),
        },
        {
          weight: 1,
          arbitrary: malformedJson('{}').map((r) => ({
            kind: 'json-malformed',
            payload: r.text,
            contentType: 'application/json',
          })),
        },
      );
    }
    const idempotencyArb =
      op.method === 'POST' ? fc.option(fc.stringMatching(/^[\x21-\x7e]{1,300}$/), { freq: 3 }) : fc.constant(null);
    const validParams = this.validParams(op, template);
    const paramsArb = op.pathParams.length === 0 ? fc.constant({}) : fc.oneof(fc.constant(validParams), fc.record(paramArbs));

    const property = fc.asyncProperty(
      fc.record({ auth: authArb, params: paramsArb, query: queryArb, body: bodyArb, idempotencyKey: idempotencyArb }),
      async (input) => {
        const headers: Record<string, string> = { ...input.auth };
        if (input.body.contentType) headers['content-type'] = input.body.contentType;
        if (input.idempotencyKey !== null) headers['idempotency-key'] = input.idempotencyKey;
        const kind = input.query !== '' ? `query+${input.body.kind}` : input.body.kind;
        const req: FuzzRequest = {
          method: op.method,
          url: this.url(op, input.params, input.query),
          headers,
          ...(input.body.payload === undefined ? {} : { payload: input.body.payload }),
        };
        const { problems, res } = await this.send(op, kind, req);
        if (problems.length > 0) {
          throw new Error(
            `${problems.join('; ')}\n  ${describeRequest(req)}\n  response: ${res?.statusCode ?? '-'} ${short(res?.body)}`,
          );
        }
      },
    );
    try {
      await fc.assert(property, { seed, numRuns, endOnFailure: true, includeErrorInReport: true });
    } catch (err) {
      throw new Error(
        `fuzz ${this.options.service} ${op.key} failed (seed ${seed}); rerun with { seed: ${seed}, path } from below.\n${(err as Error).message}`,
        { cause: err },
      );
    }
  }

  /** The hand-picked hostile cases of one operation. */
  async hostile(op: Operation, template: OpTemplate): Promise<void> {
    const params = this.validParams(op, template);
    const auth = this.validAuth(op);
    const url = this.url(op, params);
    const queryUrl = this.url(op, { ...params, ...(template.queryCaseParams ?? {}) });
    const oauth = this.options.oauthPaths?.includes(op.path) ?? false;
    const jsonRoute = this.hasJsonBody(op, template) && !this.isForm(op, template);
    const hasBody = op.method !== 'GET';
    const json = { ...auth, 'content-type': 'application/json' };
    const validBody = (): string => jsonText(template.body?.() ?? {});

    // Query strings.
    for (const q of [
      'a=1&'.repeat(3000),
      `q=${'x'.repeat(100_000)}`,
      'limit=1&limit=2&limit=3',
      'limit=-1&page=0',
      'limit=1e308&page=9007199254740993',
      'limit=NaN&page=Infinity',
      'limit=1.5',
      'created[gte]=1e400&created[lte]=-1',
      'created%5Bgte%5D=abc',
      'a[b][c]=1&a[b][c]=2',
      `__proto__[${POLLUTION_KEY}]=yes&constructor[prototype][${POLLUTION_KEY}]=yes`,
      '__proto__=x&__proto__=y',
      `__proto__.${POLLUTION_KEY}=yes`,
      'constructor=x&toString=y&hasOwnProperty=z',
      '%',
      '%zz=%zz',
      '=&=&',
      'status=%F0%9F%98%80&type=%00',
      `${encodeURIComponent('ключ')}=${encodeURIComponent('значение')}`,
      ...op.queryParams.flatMap((p) => [
        `${encodeURIComponent(p)}=`,
        `${encodeURIComponent(p)}=${'9'.repeat(400)}`,
        `${encodeURIComponent(p)}=a&${encodeURIComponent(p)}=b`,
      ]),
    ]) {
      await this.probe(op, 'query', {
        method: op.method,
        url: `${queryUrl}?${q}`,
        headers: auth,
        ...(hasBody && jsonRoute ? { payload: validBody(), headers: json } : {}),
      });
    }

    // Stripe's bracketed parameters (payments-api's /v1): as the query string, and as a form body.
    if (isStripe(op)) {
      for (const form of STRIPE_HOSTILE_FORMS) {
        await this.probe(op, 'stripe-query', { method: op.method, url: `${queryUrl}?${form}`, headers: auth });
        if (op.method === 'POST') {
          await this.probe(op, 'stripe-form', {
            method: op.method,
            url,
            headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
            payload: form,
          });
        }
      }
      if (op.method === 'POST') {
        for (const text of STRIPE_HOSTILE_JSON) {
          await this.probe(op, 'stripe-json', { method: op.method, url, headers: json, payload: text });
        }
        // the same parameters in a form sent as raw bytes that are not UTF-8
        await this.probe(op, 'stripe-form', {
          method: op.method,
          url,
          headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
          payload: Buffer.from([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x3d, 0xff, 0xfe, 0xc3, 0x28, 0x26, 0x80, 0x3d, 0x81]),
        });
      }
    }

    // Path parameters, one at a time, the others valid.
    for (const name of op.pathParams) {
      for (const value of [
        '..',
        '.',
        '%2e%2e',
        '%00',
        '%',
        '%ff',
        'x'.repeat(101),
        'x'.repeat(5_000),
        encodeURIComponent('üñî©ødé😀'),
        ...this.options.otherIds,
      ]) {
        await this.probe(op, 'path', {
          method: op.method,
          url: this.url(op, { ...params, [name]: value }),
          headers: hasBody && jsonRoute ? json : auth,
          ...(hasBody && jsonRoute ? { payload: validBody() } : {}),
        });
      }
    }

    // Junk credentials.
    if (op.security !== undefined) {
      for (const junk of this.junkAuth) {
        const headers = { ...junk, ...(hasBody && jsonRoute ? { 'content-type': 'application/json' } : {}) };
        await this.probe(op, 'auth', {
          method: op.method,
          url,
          headers,
          ...(hasBody && jsonRoute ? { payload: validBody() } : {}),
        });
      }
    }
    if (!hasBody) return;

    // Oversized body → 413; wrong content types → 415 (RFC 6749 body on the token endpoint).
    await this.probe(op, 'oversized', { method: op.method, url, headers: json, payload: this.oversized(op) }, 413);
    const payload = oauth ? 'grant_type=client_credentials' : validBody();
    for (const contentType of [
      'text/plain',
      'text/plain; charset=utf-8',
      'application/xml',
      'text/xml',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      'image/png',
    ]) {
      await this.probe(
        op,
        'content-type',
        { method: op.method, url, headers: { ...auth, 'content-type': contentType }, payload },
        415,
      );
    }
    await this.probe(op, 'content-type', { method: op.method, url, headers: auth, payload }, 415);
    for (const contentType of [
      'application/json; charset=utf-16',
      'application/jsonx',
      'application/json; charset=latin1',
      'APPLICATION/JSON',
      'application/json;;',
      'application/x-www-form-urlencoded',
      '*/*',
      ';',
    ]) {
      await this.probe(op, 'content-type', {
        method: op.method,
        url,
        headers: { ...auth, 'content-type': contentType },
        payload,
      });
    }
    // Empty bodies with a JSON content type.
    await this.probe(op, 'json-empty', { method: op.method, url, headers: json }, jsonRoute ? 400 : undefined);
    await this.probe(
      op,
      'json-empty',
      { method: op.method, url, headers: { ...json, 'content-length': '0' } },
      jsonRoute ? 400 : undefined,
    );

    if (this.isForm(op, template)) return;
    const body = template.body?.() ?? {};
    const bodyAt = (value: unknown): string => jsonText(value);
    // The whole body replaced by each hostile value, and each top-level field in turn.
    for (const value of HOSTILE_VALUES) {
      await this.probe(
        op,
        'json-hostile',
        { method: op.method, url, headers: json, payload: bodyAt(value) },
        jsonRoute && !(typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof RawJson))
          ? 400
          : undefined,
      );
    }
    const fields = Object.keys(body);
    const perField = PER_FIELD_VALUES;
    for (const field of fields) {
      for (const value of perField) {
        await this.probe(op, 'json-field', {
          method: op.method,
          url,
          headers: json,
          payload: bodyAt(mutate(template.body?.() ?? {}, [{ op: 'replace', path: [field], value }])),
        });
      }
      await this.probe(op, 'json-field', {
        method: op.method,
        url,
        headers: json,
        payload: bodyAt(mutate(template.body?.() ?? {}, [{ op: 'drop', path: [field] }])),
      });
    }
    // Prototype keys at the top and inside every field; unknown fields.
    for (const key of ['__proto__', 'constructor', 'prototype'] as const) {
      await this.probe(
        op,
        'json-proto',
        {
          method: op.method,
          url,
          headers: json,
          payload: bodyAt(mutate(template.body?.() ?? {}, [{ op: 'proto', path: [], key }])),
        },
        jsonRoute ? 400 : undefined,
      );
      for (const field of fields) {
        await this.probe(op, 'json-proto', {
          method: op.method,
          url,
          headers: json,
          payload: bodyAt(mutate(template.body?.() ?? {}, [{ op: 'proto', path: [field], key }])),
        });
      }
    }
    await this.probe(
      op,
      'json-extra',
      { method: op.method, url, headers: json, payload: bodyAt({ ...(template.body?.() ?? {}), unknown_field: 1 }) },
      jsonRoute ? 400 : undefined,
    );
    // Malformed JSON text.
    const text = validBody();
    for (const bad of [
      text.slice(0, Math.floor(text.length / 2)),
      text.replace(/}$/, ',}'),
      text.replace(/}$/, ',"n":NaN}'),
      `\uFEFF${text}`,
      `${text.replace(/}$/, '')}${fields.length > 0 ? ',' : ''}${fields.map((f) => `"${f}":null`).join(',')}}`,
      text.replace(/"/g, "'"),
      '{"a":1',
      '{"a":"\\ud800"}',
      `${text}x`,
    ]) {
      await this.probe(op, 'json-malformed', { method: op.method, url, headers: json, payload: bad });
    }
  }
}

/** Whether an operation is one of Stripe's /v1 (tag `stripe`). */
const isStripe = (op: Operation): boolean => op.tags?.includes('stripe') === true;

/** Stripe's error types, and the statuses each may come with (docs/stripe.md). */
const STRIPE_TYPES_BY_STATUS: Readonly<Record<number, readonly string[]>> = {
  400: ['invalid_request_error', 'idempotency_error'],
  401: ['invalid_request_error'],
  402: ['card_error'],
  403: ['invalid_request_error'],
  404: ['invalid_request_error'],
  409: ['idempotency_error'],
  413: ['invalid_request_error'],
  415: ['invalid_request_error'],
  429: ['invalid_request_error'],
};

/** Problems with an error answer in Stripe's body. */
function stripeBodyProblems(res: LightMyRequestResponse, body: unknown): string[] {
  const problems: string[] = [];
  const e = (body as { error?: Record<string, unknown> } | null)?.error;
  if (typeof e !== 'object' || e === null) return ["Stripe's error body has no error object"];
  if (Object.keys(body as object).some((k) => k !== 'error')) problems.push("Stripe's error body: fields besides error");
  if (typeof e.type !== 'string') problems.push('error.type missing');
  else if (!(STRIPE_TYPES_BY_STATUS[res.statusCode] ?? []).includes(e.type))
    problems.push(`Stripe status ${res.statusCode} with error.type ${e.type}`);
  if (typeof e.message !== 'string' || e.message === '') problems.push('error.message missing');
  if (e.code !== undefined && (typeof e.code !== 'string' || !/^[a-z][a-z0-9_]*$/.test(e.code)))
    problems.push('error.code is not snake_case');
  if (e.param !== undefined && typeof e.param !== 'string') problems.push('error.param is not a string');
  if ('request_id' in e) problems.push("the platform's request_id in Stripe's body");
  const retry = res.headers['stripe-should-retry'];
  if (retry !== (res.statusCode === 409 || res.statusCode === 429 ? 'true' : 'false'))
    problems.push(`Stripe-Should-Retry ${String(retry)} on a ${res.statusCode}`);
  if (res.statusCode === 429 && !res.headers['retry-after']) problems.push('429 without Retry-After');
  return problems;
}

/** Valid-looking parameters of any /v1 write (the generic form of an operation without a template). */
const STRIPE_GENERIC_FORM: Readonly<Record<string, readonly string[]>> = {
  'metadata[order]': ['1', ''],
  'expand[]': ['customer', 'data.customer'],
  description: ['fuzz'],
};

const DEEP_BRACKETS = `a${'[b]'.repeat(2_000)}=1`;

/**
 * Hand-picked hostile Stripe parameters (form body and query string alike): bracket keys
 * repeated, deep, sparse and huge; prototype keys at every level; a string where a hash is
 * expected and the reverse; percent-encodings that are not UTF-8 or not percent-encodings.
 */
const STRIPE_HOSTILE_FORMS: readonly string[] = [
  'metadata[a]=1&metadata[a]=2',
  'email=a@example.com&email=b@example.com',
  'limit=1&limit=2',
  'expand[]=customer&'.repeat(5_000),
  Array.from({ length: 2_000 }, (_, i) => `metadata[k${i}]=v`).join('&'),
  'expand[0]=a&expand[99999999]=b',
  'expand[-1]=a&expand[1e9]=b&expand[0x10]=c',
  'expand[0]=a&expand[0]=b',
  DEEP_BRACKETS,
  `metadata${'[x]'.repeat(64)}=1`,
  `expand${'[]'.repeat(64)}=1`,
  `__proto__[${POLLUTION_KEY}]=yes`,
  `metadata[__proto__][${POLLUTION_KEY}]=yes`,
  `constructor[prototype][${POLLUTION_KEY}]=yes`,
  `metadata[constructor][prototype][${POLLUTION_KEY}]=yes`,
  '__proto__=x&constructor=y&prototype=z',
  'metadata[__proto__]=x&metadata[constructor]=y&metadata[toString]=z&metadata[hasOwnProperty]=w',
  'expand[__proto__]=x&expand[length]=9',
  'created[__proto__][gte]=1&created[gte]=1&created[gte]=2',
  'email[]=a&name[x]=b',
  'metadata=x&metadata[a]=1',
  'metadata[]=a&metadata[][]=b',
  'metadata[a][b]=c',
  'created=1&created[gte]=x&created[lt][lt]=1',
  'limit[]=1&starting_after[x]=y',
  'email=%',
  'email=%zz&%zz=1',
  '%ff%fe=1&email=%C3%28',
  'email=%ED%A0%80&name=%F4%90%80%80',
  'email=%00&metadata[%00]=x&metadata[a]=%00',
  'metadata[%5B%5D]=x&metadata%5Ba%5D=y',
  '[]=1&[a]=1&=x&&&',
  'a]=1&a[=1&a[b=1&a]b[=1',
  `description=${'x'.repeat(100_000)}`,
  `metadata[${'k'.repeat(10_000)}]=v`,
  'metadata[a]=' + encodeURIComponent('😀👩‍👩‍👧'.repeat(200)),
];

/** JSON bodies (accepted beside forms on /v1) with values of the wrong kind. */
const STRIPE_HOSTILE_JSON: readonly string[] = [
  '{"email":1,"name":true,"description":null}',
  '{"metadata":[1,2],"expand":"customer"}',
  '{"metadata":{"a":{"b":1}},"expand":[{"x":1}]}',
  '{"metadata":{"__proto__":{"polluted":"yes"}}}',
  '{"amount":"1e400","limit":-0,"created":{"gte":"x"}}',
  `{"metadata":${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
  '[]',
  '"x"',
  'null',
];

/** The hostile values tried in place of every top-level field (a selection of HOSTILE_VALUES). */
const PER_FIELD_VALUES: readonly unknown[] = HOSTILE_VALUES.filter(
  (v) =>
    v === null ||
    v === '' ||
    v === '\u0000' ||
    v === '😀👩‍👩‍👧' ||
    (Array.isArray(v) && v.length === 0) ||
    (typeof v === 'object' &&
      v !== null &&
      !Array.isArray(v) &&
      Object.keys(v).length === 0 &&
      !(v instanceof RawJson) &&
      !(v instanceof Entries)) ||
    v instanceof Entries ||
    (v instanceof RawJson && ['-0', '1e308', '1e400', '9007199254740993', '5e-324'].includes(v.text)) ||
    (v instanceof RawJson && v.label !== undefined && /100000 chars|10k zeros|10k nested|5k keys/.test(v.label)),
);

/** Snapshot of the prototypes a pollution would change. */
export function prototypeSnapshot(): Record<string, string[]> {
  // Jest runs the app in a vm context; Buffer comes from the outer realm, so its chain ends
  // in that realm's Object.prototype (Node's own modules use it).
  const outerObject = Object.getPrototypeOf(Object.getPrototypeOf(Object.getPrototypeOf(Buffer.prototype))) as object;
  return {
    OuterObject: Object.getOwnPropertyNames(outerObject).sort(),
    Object: Object.getOwnPropertyNames(Object.prototype).sort(),
    Array: Object.getOwnPropertyNames(Array.prototype).sort(),
    Function: Object.getOwnPropertyNames(Function.prototype).sort(),
    String: Object.getOwnPropertyNames(String.prototype).sort(),
  };
}

export function pollutionProblems(before: Record<string, string[]>): string[] {
  const problems: string[] = [];
  const after = prototypeSnapshot();
  for (const [name, keys] of Object.entries(after)) {
    const added = keys.filter((k) => !(before[name] ?? []).includes(k));
    if (added.length > 0) problems.push(`${name}.prototype gained ${added.join(', ')}`);
  }
  const probe = {} as Record<string, unknown>;
  if (probe[POLLUTION_KEY] !== undefined) problems.push(`({}).${POLLUTION_KEY} is defined`);
  if ((Object.create(null) as Record<string, unknown>)[POLLUTION_KEY] !== undefined)
    problems.push('null-prototype object polluted');
  if (([] as unknown as Record<string, unknown>)[POLLUTION_KEY] !== undefined) problems.push(`[].${POLLUTION_KEY} is defined`);
  return problems;
}

/** Fewer requests than this and an operation counts as not fuzzed. */
const MIN_REQUESTS_PER_OPERATION = 20;

export function summary(service: string, stats: Stats): string {
  const classes = Object.entries(stats.byClass)
    .sort()
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const kinds = Object.entries(stats.byKind)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const statuses = Object.entries(stats.byStatus)
    .sort()
    .map(([k, v]) => `${k}:${v}`)
    .join(' ');
  return `fuzz: ${service} ${stats.total} requests, ${stats.byClass['5xx'] ?? 0} 5xx, ${stats.byClass['hang'] ?? 0} hangs (${classes}); statuses ${statuses}; by input: ${kinds}`;
}

export interface SuiteContext<F = unknown> {
  readonly app: NestFastifyApplication;
  readonly fixtures: F;
  readonly fuzzer: Fuzzer;
  readonly operations: readonly Operation[];
  readonly templates: Readonly<Record<string, OpTemplate>>;
}

export interface SuiteDefinition<F> {
  readonly service: string;
  /** Boots the service and creates the fixtures. */
  readonly start: () => Promise<{
    app: NestFastifyApplication;
    fixtures: F;
    logs: ReadonlyArray<Record<string, unknown>>;
    close: () => Promise<void>;
  }>;
  /** Fuzzer options from the fixtures (credentials, ids, limits). */
  readonly fuzzer: (app: NestFastifyApplication, fixtures: F, logs: ReadonlyArray<Record<string, unknown>>) => FuzzerOptions;
  /** Valid values per operation (`METHOD /path/{param}` as in the OpenAPI document). */
  readonly templates: Readonly<Record<string, (fixtures: F) => OpTemplate>>;
  readonly numRuns?: number;
  /** Extra tests with the running suite (e.g. the token endpoint's forms). */
  readonly extra?: (ctx: () => SuiteContext<F>) => void;
}

/**
 * Declares one service's fuzz suite: one test per templated operation, one for the
 * operations without a template (generic fuzzing), the unauthenticated routes, the
 * OpenAPI coverage check, and the after-run checks (no prototype pollution, still live).
 */
export function defineFuzzSuite<F>(definition: SuiteDefinition<F>): void {
  const numRuns = definition.numRuns ?? 40;
  let ctx: SuiteContext<F> | undefined;
  let close: (() => Promise<void>) | undefined;
  const before = prototypeSnapshot();
  const get = (): SuiteContext<F> => {
    if (!ctx) throw new Error('suite not started');
    return ctx;
  };

  /** Operations of `keys` that got fewer than 20 requests (too few to have fuzzed them). */
  const starved = (keys: readonly string[]): string[] =>
    keys.filter((k) => (get().fuzzer.stats.byOperation[k] ?? 0) < MIN_REQUESTS_PER_OPERATION);

  /** What must hold after any fuzzing, checked by each test on its own: no pollution, still answering. */
  const expectIntact = async (): Promise<void> => {
    const { app } = get();
    expect(pollutionProblems(before)).toEqual([]);
    expect((await app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
  };

  /** Fuzzes one operation; its failures include every 5xx and every hang. */
  const fuzzOne = async (key: string): Promise<void> => {
    const { fuzzer, operations, templates } = get();
    const op = operations.find((o) => o.key === key);
    if (!op) throw new Error(`${key} has a fuzz template but is not in ${definition.service}'s OpenAPI document`);
    const template = templates[key] ?? {};
    await fuzzer.property(op, template, template.numRuns ?? numRuns);
    await fuzzer.hostile(op, template);
    const failures = fuzzer.failures.splice(0);
    expect(failures).toEqual([]);
  };

  describe(`fuzz: ${definition.service}`, () => {
    beforeAll(async () => {
      const started = await definition.start();
      close = started.close;
      const doc = await started.app.inject({ method: 'GET', url: '/openapi.json' });
      expect(doc.statusCode).toBe(200);
      const operations = operationsOf(doc.json<Parameters<typeof operationsOf>[0]>());
      const templates: Record<string, OpTemplate> = {};
      for (const [key, make] of Object.entries(definition.templates)) templates[key] = make(started.fixtures);
      ctx = {
        app: started.app,
        fixtures: started.fixtures,
        fuzzer: new Fuzzer(definition.fuzzer(started.app, started.fixtures, started.logs)),
        operations,
        templates,
      };
    }, 120_000);

    afterAll(async () => {
      if (ctx) console.log(summary(definition.service, ctx.fuzzer.stats));
      await close?.();
    }, 60_000);

    // Each test fuzzes its operations and checks what it sent itself (no test reads what an
    // earlier one counted): the templated, the generic and the unauthenticated tests between
    // them cover every documented operation by construction.
    for (const key of Object.keys(definition.templates)) {
      test(
        key,
        async () => {
          await fuzzOne(key);
          expect(starved([key])).toEqual([]);
          await expectIntact();
        },
        120_000,
      );
    }

    test('operations without a template: generic fuzzing', async () => {
      const { operations } = get();
      const untemplated = operations.filter((o) => !(o.key in definition.templates) && !UNAUTHENTICATED.includes(o.key));
      if (untemplated.length > 0)
        console.log(`fuzz: ${definition.service}: no template for ${untemplated.map((o) => o.key).join(', ')} (generic fuzzing)`);
      for (const op of untemplated) await fuzzOne(op.key);
      expect(starved(untemplated.map((o) => o.key))).toEqual([]);
      await expectIntact();
    }, 120_000);

    test('unauthenticated routes (health, metrics, docs) with junk query strings', async () => {
      const { fuzzer, operations } = get();
      for (const key of UNAUTHENTICATED) {
        const [method, path] = key.split(' ') as [string, string];
        const op: Operation = { key, method, path, pathParams: [], queryParams: [], security: undefined, bodyTypes: [] };
        await fuzzer.property(op, {}, 15);
        await fuzzer.hostile(op, {});
      }
      expect(fuzzer.failures.splice(0)).toEqual([]);
      // the documented ones are held to the same minimum as the others
      expect(starved(UNAUTHENTICATED.filter((k) => operations.some((o) => o.key === k)))).toEqual([]);
      await expectIntact();
    }, 120_000);

    test('every fuzz template names an operation of the OpenAPI document (no stale template)', () => {
      const documented = get().operations.map((o) => o.key);
      expect(Object.keys(definition.templates).filter((k) => !documented.includes(k))).toEqual([]);
    });

    definition.extra?.(get);
  });
}

/** Asserts a platform error response: status, code, param, and request_id = Request-Id. */
export function expectError(res: LightMyRequestResponse, status: number, code: string, param?: string): void {
  const body = res.json<{ error: { code: string; param?: string; request_id: string } }>();
  expect({ status: res.statusCode, code: body.error.code, param: body.error.param }).toEqual({ status, code, param });
  expect(body.error.request_id).toBe(res.headers['request-id']);
}

/** 10,000 nested arrays: JSON text a recursive walk cannot survive. */
export const DEEP_ARRAY = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;

let endpointSerial = 0;

/**
 * The templates of the libs/webhooks endpoint routes mounted at `base` (e.g.
 * `/api/v1/webhook-endpoints`), the same in every service; `event` is one the service emits.
 * DELETE is left to the caller (it needs an endpoint of its own to delete).
 */
export function webhookEndpointTemplates<F extends { endpoint: string; delivery: string }>(
  base: string,
  event: string,
): Record<string, (fixtures: F) => OpTemplate> {
  return {
    [`POST ${base}`]: () => ({ body: () => ({ url: `http://127.0.0.1:9/h${endpointSerial++}`, events: [event] }) }),
    [`GET ${base}`]: () => ({}),
    [`GET ${base}/{id}`]: (fx) => ({ params: { id: [fx.endpoint] } }),
    [`POST ${base}/{id}/rotate-secret`]: (fx) => ({ params: { id: [fx.endpoint] } }),
    [`POST ${base}/{id}/enable`]: (fx) => ({ params: { id: [fx.endpoint] } }),
    [`GET ${base}/{id}/deliveries`]: (fx) => ({
      params: { id: [fx.endpoint] },
      query: { status: ['pending', 'failed', 'succeeded'], limit: ['1', '100'], starting_after: [fx.delivery] },
    }),
    [`POST ${base}/{id}/deliveries/{delivery_id}/retry`]: (fx) => ({
      params: { id: [fx.endpoint], delivery_id: [fx.delivery] },
    }),
    [`GET ${base}/{id}/stats`]: (fx) => ({
      params: { id: [fx.endpoint] },
      query: {
        granularity: ['hour', 'day'],
        since: ['2026-01-01T00:00:00Z'],
        until: ['2026-01-02T00:00:00Z'],
      },
    }),
    [`POST ${base}/{id}/recover`]: (fx) => ({
      params: { id: [fx.endpoint] },
      body: () => ({ since: '2026-01-01T00:00:00Z', until: '2026-06-01T00:00:00Z' }),
    }),
    [`PATCH ${base}/{id}`]: (fx) => ({
      params: { id: [fx.endpoint] },
      body: () => ({ events: [event], description: 'fuzz', rate_limit_per_second: 50 }),
    }),
    [`POST ${base}/{id}/test`]: (fx) => ({ params: { id: [fx.endpoint] }, body: () => ({ event }) }),
    [`GET ${base}/event-types`]: () => ({}),
  };
}

/**
 * The templates of the console's routes (libs/console), the same in every service:
 * `POST /admin/v1/console-links` names the tenant by `idField` (each success stores a link);
 * sign-in is fuzzed with well-formed tokens that were never issued (a real one works once);
 * the session routes have no credential in the document (the cookie), so the fuzzer's
 * requests carry none and meet the 401 path, hostile queries and bodies included.
 */
export function consoleTemplates<F>(
  idField: string,
  tenantOf: (fixtures: F) => string,
): Record<string, (fixtures: F) => OpTemplate> {
  const token = (): string => `cl_${randomBytes(32).toString('base64url').replace(/[-_]/g, 'A').slice(0, 43)}`;
  return {
    'POST /admin/v1/console-links': (fx) => ({ body: () => ({ [idField]: tenantOf(fx), ttl_seconds: 60 }) }),
    'POST /console/sign-in': () => ({ body: () => ({ token: token() }) }),
    'GET /console/session': () => ({}),
    'POST /console/sign-out': () => ({}),
  };
}
