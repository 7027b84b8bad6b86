import { type ErrorCode, type ErrorSpec, errorSpec } from './error-catalog';

export interface DomainErrorOptions {
  /** The request field the error is about, repeated as `param` in the body. */
  readonly param?: string;
  /** Extra response headers, e.g. `WWW-Authenticate` or `Retry-After`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Extra fields merged into the `error` object (e.g. `decline_code`, `payment_id`). */
  readonly details?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
  /**
   * Overrides the catalog's status within the same error type, e.g. Stripe's
   * `resource_missing` is 404 for the URL's object but 400 for a referenced one.
   */
  readonly status?: number;
}

/**
 * A failure the caller can act on. Thrown by services; mapped to status + body once, by
 * the global filter, through ERROR_CATALOG. Never use Nest's HttpException for these.
 */
export class DomainError extends Error {
  readonly spec: ErrorSpec;
  readonly param: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: DomainErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    const spec = errorSpec(code);
    this.spec = options.status === undefined ? spec : { ...spec, status: options.status };
    this.param = options.param;
    this.headers = options.headers ?? {};
    this.details = options.details ?? {};
  }

  get status(): number {
    return this.spec.status;
  }
}

export class NotFoundError extends DomainError {
  constructor(resource: string, id: string, param?: string) {
    super('resource_missing', `No such ${resource}: '${id}'`, param === undefined ? {} : { param });
  }
}
