/**
 * The one place where a domain error code becomes an HTTP status and an error `type`
 * (platform contract, "Errors"). The platform owns the codes every service shares (request
 * shape, routing, authentication, limits, idempotency, server side); each app and lib
 * registers its own with `registerErrorCodes` (the app through its ServiceDefinition).
 * Services throw `new DomainError(code, message)` (or the app's subclass, which types the
 * app's codes); the global filter looks the code up here. Each code carries its docs (when
 * it happens, how to fix it), from which `npm run docs:errors` writes docs/errors.md.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'idempotency_error'
  | 'card_error'
  | 'api_error';

/** What a caller reads about a code: docs/errors.md is generated from these (`npm run docs:errors`). */
export interface ErrorDocs {
  /** When the code is answered: the route or condition, the `param`, the headers. True of the code that raises it. */
  readonly when: string;
  /** What the caller does about it. */
  readonly fix: string;
  /** Fields the code adds to `error` besides type, code, message, param and request_id. */
  readonly fields?: readonly string[];
}

export interface ErrorSpec extends ErrorDocs {
  readonly status: number;
  readonly type: ErrorType;
}

/** A set of codes with their specs, as an app or lib declares them. */
export type ErrorCatalog = Readonly<Record<string, ErrorSpec>>;

/**
 * How an app raises some of the platform's codes on its own routes (which route, which
 * `param`, extra `error` fields, a status override): documentation only, rendered in the
 * app's table of docs/errors.md; the status and type stay the platform's unless `status`
 * names the override the app passes to DomainError.
 */
export type PlatformErrorNotes = { readonly [C in PlatformErrorCode]?: ErrorDocs & { readonly status?: number } };

/** `invalid_request_error` with a status (400, 404, 409, 422) and its docs. */
export const invalidRequest = (status: number, docs: ErrorDocs): ErrorSpec => ({
  status,
  type: 'invalid_request_error',
  ...docs,
});

export const PLATFORM_ERRORS = {
  // request shape
  parameter_invalid: invalidRequest(400, {
    when: 'A field of the body, the query, the path or a header breaks its rule: wrong type, out of range, not one of the allowed values, a timestamp off the calendar or outside 1970-01-01 – 9999-12-31, a NUL character or a lone UTF-16 surrogate in a value, key or path parameter, a control, bidirectional or invisible formatting character in a name (`\\u202e`, a newline; the message names its code point), nesting deeper than 32 levels, a malformed percent-encoding in the path, an `Idempotency-Key` longer than 255 characters. `param` names the field where there is one (nested fields as `rows[3].embedding`).',
    fix: 'Correct the field `param` names as the message says and send the request again.',
  }),
  parameter_missing: invalidRequest(400, {
    when: 'A required field of the body or query is absent; `param` names it.',
    fix: 'Send the field `param` names.',
  }),
  parameter_unknown: invalidRequest(400, {
    when: 'The body or query has a field the route does not accept (every route refuses a query parameter it does not declare, routes without query parameters any), including `__proto__`, `constructor`, `prototype` and the other `Object.prototype` names (`toString`, ...) anywhere in it; `param` names its path.',
    fix: "Remove the field, or correct its spelling against the route's schema (`GET /docs`).",
  }),
  parameter_duplicate: invalidRequest(400, {
    when: 'A JSON object in the body names a key twice (`{"amount": 1, "amount": 2}`; keys are compared decoded, so `"a"` and `"\\u0061"` are the same key); `param` names it (`metadata.a`, `rows[3].id`). The same key in sibling objects is fine.',
    fix: 'Send each key once per object.',
  }),
  body_invalid: invalidRequest(400, {
    when: 'The body is not a JSON object (an array, a string, a number, `null`), or its length does not match `Content-Length`.',
    fix: 'Send one JSON object as the body.',
  }),
  invalid_json: invalidRequest(400, {
    when: '`Content-Type: application/json` but the body does not parse as JSON, or is empty.',
    fix: 'Send a valid, non-empty JSON body.',
  }),
  body_too_large: invalidRequest(413, {
    when: "The body is larger than the route accepts: `BODY_LIMIT_BYTES` (1 MiB by default) or the route's own limit. Answered from `Content-Length`, when sent, before the body is read.",
    fix: 'Send a smaller body; split a batch into several requests.',
  }),
  unsupported_media_type: invalidRequest(415, {
    when: 'A body that is not JSON on a route that takes JSON: a form (`application/x-www-form-urlencoded`, what `curl -d` sends without a JSON `Content-Type`), `text/plain`, XML, multipart, `+json` types, or no `Content-Type`; the message names the type sent. (`POST /oauth/token` takes its form, RFC 6749.)',
    fix: 'Send the body as `application/json` with `Content-Type: application/json`.',
  }),
  // HTTP framing, answered before any route (bootstrap.ts clientError)
  request_malformed: invalidRequest(400, {
    when: 'Not valid HTTP/1.1, refused before any route runs: a method Node does not know, a malformed request line or header, conflicting `Content-Length`s, no `Host` header. The connection is closed.',
    fix: 'Send well-formed HTTP/1.1 (any HTTP client library does).',
  }),
  request_timeout: invalidRequest(408, {
    when: "The request was not received completely within the server's request timeout, where one is set. The connection is closed.",
    fix: 'Send the whole request at once; retry on a new connection.',
  }),
  headers_too_large: invalidRequest(431, {
    when: "The request headers exceed Node's limit (16 KiB). The connection is closed.",
    fix: 'Send smaller headers.',
  }),
  // routing and resources
  route_not_found: invalidRequest(404, {
    when: 'No route serves this method and path (message `Unrecognized request URL (GET: /x).`), including methods no route serves (`PROPFIND`, `CONNECT`); a process started with `ROLE=worker` answers it to everything but health and metrics.',
    fix: 'Check the method, the path and its version prefix against `GET /docs`; send API requests to a process with `ROLE` `api` or `all`.',
  }),
  resource_missing: invalidRequest(404, {
    when: "The object the path names does not exist or is another tenant's (the two are not told apart); also a path parameter longer than 100 characters. `param` names the path parameter where the route says which. Services that answer it with 400 for an id in the body or query say so in their tables below.",
    fix: 'Check the id, and that the credentials are those of the tenant that owns it; list the objects to find it.',
  }),
  resource_already_exists: invalidRequest(409, {
    when: 'Creating an object whose identity (a name, a version, an id) is taken; `param` names it.',
    fix: 'Use another identity, or fetch the existing object.',
  }),
  // authentication and authorization (RFC 6750)
  authentication_required: {
    status: 401,
    type: 'authentication_error',
    when: 'No credentials: no `Authorization` header, another scheme than Bearer, or a Bearer value that is not a token (RFC 6750 characters). `WWW-Authenticate: Bearer realm="..."` names the realm. Checked before the body is read.',
    fix: "Send `Authorization: Bearer <credential>` with the route's kind of credential (`GET /docs` shows it).",
  },
  invalid_api_key: {
    status: 401,
    type: 'authentication_error',
    when: 'The Bearer credential is not a valid key: malformed, unknown or revoked, or not the admin key on an `/admin/v1` route; `WWW-Authenticate: Bearer realm="...", error="invalid_token"`.',
    fix: 'Use a current key for this service and route; a revoked key cannot be restored, create a new one.',
  },
  invalid_token: {
    status: 401,
    type: 'authentication_error',
    when: 'The Bearer access token is malformed, not validly signed, expired or otherwise refused; `WWW-Authenticate: Bearer realm="...", error="invalid_token", error_description="..."` repeats the message.',
    fix: 'Get a new access token and send the request again.',
  },
  permission_denied: {
    status: 403,
    type: 'permission_error',
    when: 'Authenticated, but not allowed to do this. No route raises it itself; a 403 from the framework is answered with it.',
    fix: 'Use credentials that are allowed to do this.',
  },
  credential_in_grace: {
    status: 403,
    type: 'permission_error',
    when: 'A credential in its grace period (a rolled API key, a rotated client secret, or an access token minted from a secret that has since been rotated) tried to create, roll, rotate or delete credentials.',
    fix: "Manage credentials with the newest credential (the one the roll or rotation returned); a credential in grace can still call the service's other routes until it expires.",
  },
  // limits
  rate_limit_exceeded: {
    status: 429,
    type: 'rate_limit_error',
    when: "Over a rate limit: the credential's requests per window (the `RateLimit` and `RateLimit-Policy` headers show its budget), or too many wrong admin keys from this address (`ADMIN_AUTH_FAILURES_PER_MINUTE`, 20 a minute; then every admin request from it, the right key too, until the window ends), or too many failed console sign-ins from this address (`CONSOLE_SIGN_IN_FAILURES_PER_MINUTE`, 20 a minute; then every `POST /console/sign-in` from it, a good link too, until the window ends). `Retry-After` says when to retry.",
    fix: 'Wait `Retry-After` seconds, then retry; spread requests over the window.',
  },
  // idempotency (platform contract: Idempotency-Key on every POST)
  idempotency_key_reused: {
    status: 422,
    type: 'idempotency_error',
    when: 'An `Idempotency-Key` reused by the same credential with another method, path or body than its first use, within its retention (`IDEMPOTENCY_RETENTION_HOURS`, 24 h); `param: Idempotency-Key`.',
    fix: 'Use a new key for a new request; to get the first answer again, resend the first body.',
  },
  idempotency_key_in_use: {
    status: 409,
    type: 'idempotency_error',
    when: 'The first request with this `Idempotency-Key` is still being processed (or another took the key at the same moment); `Retry-After` (1–5 s); `param: Idempotency-Key`.',
    fix: "Retry with the same key and body after `Retry-After` seconds: the answer is the first request's.",
  },
  // server side
  internal_error: {
    status: 500,
    type: 'api_error',
    when: 'An unexpected failure (a bug): nothing about it is in the body; the log has it under the request id.',
    fix: 'Retry later (a write with the same `Idempotency-Key`); if it persists, report it quoting `request_id`.',
  },
  service_unavailable: {
    status: 503,
    type: 'api_error',
    when: "A dependency (PostgreSQL, Redis) cannot be reached, or the instance is shutting down; `Retry-After` says when to retry. `GET /health/ready` answers it with `checks: {postgres, redis}` when a check fails, and while the instance still does the work it needs before taking traffic (loading its data) with that work's progress under its own field (`loading`: counters that keep moving until it is done).",
    fix: 'Retry after `Retry-After` seconds (a write with the same `Idempotency-Key`).',
    fields: ['checks', 'loading'],
  },
} as const satisfies ErrorCatalog;

export type PlatformErrorCode = keyof typeof PLATFORM_ERRORS;

const registered = new Map<string, ErrorSpec>(Object.entries(PLATFORM_ERRORS));

/**
 * Adds an app's or a lib's codes to the catalogue. Registering the same code again with the
 * same spec is a no-op (two apps in one test process); with another spec it throws, so two
 * owners can never give one code two meanings.
 */
export function registerErrorCodes(catalog: ErrorCatalog): void {
  for (const [code, spec] of Object.entries(catalog)) {
    const existing = registered.get(code);
    if (existing && (existing.status !== spec.status || existing.type !== spec.type)) {
      throw new Error(`error code ${code} is already registered as ${existing.status} ${existing.type}`);
    }
    registered.set(code, spec);
  }
}

/** The spec of a registered code, or undefined. */
export function errorSpec(code: string): ErrorSpec | undefined {
  return registered.get(code);
}

/** Every registered code (docs and tests). */
export function registeredErrorCodes(): ReadonlyMap<string, ErrorSpec> {
  return registered;
}
