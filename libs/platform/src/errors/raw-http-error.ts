/**
 * A response whose body another standard fixes, rendered verbatim by the global filter
 * instead of the platform error body: the OAuth 2.0 token endpoint (RFC 6749 §5.2).
 */
export class RawHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Readonly<Record<string, unknown>>,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(typeof body['error'] === 'string' ? body['error'] : `HTTP ${status}`);
    this.name = 'RawHttpError';
  }
}
