import { type ErrorSpec, errorSpec, PLATFORM_ERRORS, type PlatformErrorCode } from './error-catalog';

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
 * the global filter, through the error catalogue. Never use Nest's HttpException for these.
 *
 * `Code` is the set of codes the thrower may use: the platform's by default; an app
 * declares `class OffersError extends DomainError<OffersErrorCode | PlatformErrorCode> {}`
 * for its own (NoInfer: a code is checked against that set, never widened to any string).
 * A code nobody registered renders as a 500 internal_error (a bug, logged).
 */
export class DomainError<Code extends string = PlatformErrorCode> extends Error {
  readonly param: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly details: Readonly<Record<string, unknown>>;
  private readonly statusOverride: number | undefined;

  constructor(
    readonly code: NoInfer<Code>,
    message: string,
    options: DomainErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.param = options.param;
    this.headers = options.headers ?? {};
    this.details = options.details ?? {};
    this.statusOverride = options.status;
  }

  /** Status and type from the catalogue (looked up when rendered: apps register their codes at boot). */
  get spec(): ErrorSpec {
    const spec = errorSpec(this.code) ?? PLATFORM_ERRORS.internal_error;
    return this.statusOverride === undefined ? spec : { ...spec, status: this.statusOverride };
  }

  /** False for a code no app or lib registered (rendered as a 500). */
  get registered(): boolean {
    return errorSpec(this.code) !== undefined;
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

/** `instanceof DomainError` with the code typed as a string (instanceof alone gives `any`). */
export function isDomainError(error: unknown): error is DomainError<string> {
  return error instanceof DomainError;
}
