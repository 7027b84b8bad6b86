import { RawHttpError } from '@app/platform';
import { OAUTH_TOKEN_ERRORS, type OAuthErrorCode, type OAuthTooManyRequestsCode } from './oauth.errors';

export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/**
 * RFC 6749 §5.2 error response: `{ error, error_description }` with the status of
 * OAUTH_TOKEN_ERRORS (400, or 401 for `invalid_client`, with a `WWW-Authenticate` challenge
 * naming the scheme we accept: Basic).
 */
export function oauthError(
  error: Exclude<OAuthErrorCode, OAuthTooManyRequestsCode>,
  description: string,
  realm: string,
): RawHttpError {
  const status = OAUTH_TOKEN_ERRORS[error].status;
  if (error === 'invalid_client') {
    return new RawHttpError(
      status,
      { error, error_description: description },
      { ...NO_STORE, 'WWW-Authenticate': `Basic realm="${realm}", charset="UTF-8"` },
    );
  }
  return new RawHttpError(status, { error, error_description: description }, NO_STORE);
}

/**
 * The platform's own errors on the token endpoint (body parsing, size, media type) as RFC
 * 6749 §5.2 `invalid_request`, keeping their status (400, 413, 415); see RenderErrorsWith.
 */
export function oauthRouteError(error: { status: number; code: string; message: string }): RawHttpError | undefined {
  if (error.status >= 500) return undefined;
  const description =
    error.code === 'unsupported_media_type' ? 'The token request must be application/x-www-form-urlencoded.' : error.message;
  const code: OAuthErrorCode = 'invalid_request';
  return new RawHttpError(error.status, { error: code, error_description: description }, NO_STORE);
}

/**
 * 429 in the RFC 6749 §5.2 shape: `slow_down` (RFC 8628's registered "too fast") when the
 * client's address is over its budget or share, `temporarily_unavailable` (RFC 6749 §4.1.2.1)
 * when the process's verification queue is full; always with Retry-After and no-store.
 */
export function oauthTooManyRequests(
  error: OAuthTooManyRequestsCode,
  description: string,
  retryAfterSeconds: number,
  headers: Readonly<Record<string, string>> = {},
): RawHttpError {
  return new RawHttpError(
    OAUTH_TOKEN_ERRORS[error].status,
    { error, error_description: description },
    { ...NO_STORE, ...headers, 'Retry-After': String(retryAfterSeconds) },
  );
}
