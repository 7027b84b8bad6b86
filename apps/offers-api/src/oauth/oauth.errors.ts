/**
 * The RFC 6749 §5.2 errors `POST /oauth/token` answers (`{ error, error_description }`, not
 * the platform body), with their status and docs: oauth-error.ts takes each status from
 * here, and docs/errors.md is generated from it (`npm run docs:errors`). Every answer
 * carries `Cache-Control: no-store`.
 */
export interface OAuthErrorSpec {
  readonly status: number;
  /** Other statuses the same `error` is answered with (the platform's request errors keep theirs). */
  readonly otherStatuses?: readonly number[];
  /** When it is answered, with the headers it adds. */
  readonly when: string;
  /** What the client does about it. */
  readonly fix: string;
}

export const OAUTH_TOKEN_ERRORS = {
  invalid_request: {
    status: 400,
    otherStatuses: [413, 415],
    when: "The request is not `application/x-www-form-urlencoded`, repeats a parameter, has a NUL character in one, lacks `grant_type`, sends the client both in HTTP Basic and in the form, or sends only one of `client_id` and `client_secret`. Also the platform's request errors on this route, with their status: a body that does not parse or has an unknown key such as `__proto__` (400), a body over the limit (413), a body of another media type (415).",
    fix: 'Send `grant_type=client_credentials`, form-encoded, each parameter once, with the client either in HTTP Basic or as `client_id` and `client_secret`.',
  },
  unsupported_grant_type: {
    status: 400,
    when: '`grant_type` is not `client_credentials`.',
    fix: 'Send `grant_type=client_credentials`: the only grant.',
  },
  invalid_client: {
    status: 401,
    when: 'Client authentication failed: none sent, malformed HTTP Basic credentials, an unknown client, a wrong secret (a secret replaced by `POST /api/v1/clients/{id}/rotate-secret` is wrong once its grace period, `expires_in_hours`, has ended) or a client disabled by the operator or deleted by its partner (not told apart); `WWW-Authenticate: Basic realm="offers-api", charset="UTF-8"`. Counts against the address\'s failed authentications.',
    fix: "Check the client id and secret. A lost secret is replaced with `POST /api/v1/clients/{id}/rotate-secret`, called with an access token of another of the partner's clients; the operator can also create a new client (`POST /admin/v1/partners/{id}/clients`).",
  },
  slow_down: {
    status: 429,
    when: 'The client address spent its failed authentications (`OAUTH_TOKEN_FAILURES_PER_MINUTE`, 60 a minute: then every token request from it until the window ends, with RateLimit headers), or already has `OAUTH_HASH_PER_ADDRESS` (4) token requests running or waiting for a secret verification; `Retry-After`.',
    fix: 'Wait `Retry-After` seconds; fix failing credentials; request one token per hour and reuse it, not one per call.',
  },
  temporarily_unavailable: {
    status: 429,
    when: "The instance's secret verification queue is full (`OAUTH_HASH_QUEUE`) or the wait for a slot timed out (`OAUTH_HASH_QUEUE_TIMEOUT_MS`); `Retry-After: 1`. Not a failed authentication.",
    fix: 'Retry after `Retry-After` seconds.',
  },
} as const satisfies Readonly<Record<string, OAuthErrorSpec>>;

export type OAuthErrorCode = keyof typeof OAUTH_TOKEN_ERRORS;

/** The codes answered with 429 (oauthTooManyRequests); the others go through oauthError. */
export type OAuthTooManyRequestsCode = {
  [C in OAuthErrorCode]: (typeof OAUTH_TOKEN_ERRORS)[C]['status'] extends 429 ? C : never;
}[OAuthErrorCode];
