/**
 * The one place where a domain error code becomes an HTTP status and an error `type`
 * (platform contract, "Errors"). The platform owns the codes every service shares (request
 * shape, routing, authentication, limits, idempotency, server side); each app and lib
 * registers its own with `registerErrorCodes` (the app through its ServiceDefinition).
 * Services throw `new DomainError(code, message)` (or the app's subclass, which types the
 * app's codes); the global filter looks the code up here. Every code is in docs/errors.md.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'idempotency_error'
  | 'card_error'
  | 'api_error';

export interface ErrorSpec {
  readonly status: number;
  readonly type: ErrorType;
}

/** A set of codes with their specs, as an app or lib declares them. */
export type ErrorCatalog = Readonly<Record<string, ErrorSpec>>;

/** `invalid_request_error` with a status (400, 404, 409, 422). */
export const invalidRequest = (status: number): ErrorSpec => ({ status, type: 'invalid_request_error' });

export const PLATFORM_ERRORS = {
  // request shape
  parameter_invalid: invalidRequest(400),
  parameter_missing: invalidRequest(400),
  parameter_unknown: invalidRequest(400),
  parameter_duplicate: invalidRequest(400),
  body_invalid: invalidRequest(400),
  invalid_json: invalidRequest(400),
  body_too_large: invalidRequest(413),
  unsupported_media_type: invalidRequest(415),
  // HTTP framing, answered before any route (bootstrap.ts clientError)
  request_malformed: invalidRequest(400),
  request_timeout: invalidRequest(408),
  headers_too_large: invalidRequest(431),
  // routing and resources
  route_not_found: invalidRequest(404),
  resource_missing: invalidRequest(404),
  resource_already_exists: invalidRequest(409),
  // authentication and authorization (RFC 6750)
  authentication_required: { status: 401, type: 'authentication_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  invalid_token: { status: 401, type: 'authentication_error' },
  permission_denied: { status: 403, type: 'permission_error' },
  // limits
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error' },
  // idempotency (platform contract: Idempotency-Key on every POST)
  idempotency_key_reused: { status: 422, type: 'idempotency_error' },
  idempotency_key_in_use: { status: 409, type: 'idempotency_error' },
  // server side
  internal_error: { status: 500, type: 'api_error' },
  service_unavailable: { status: 503, type: 'api_error' },
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
