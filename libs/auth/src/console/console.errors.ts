import { DomainError, type ErrorCatalog, invalidRequest, type PlatformErrorCode } from '@app/platform';

/** Error codes of console sessions, registered by ConsoleSessions (docs/errors.md is generated from them). */
export const CONSOLE_ERRORS = {
  console_session_invalid: {
    status: 401,
    type: 'authentication_error',
    when: 'A request without `Authorization` whose console session cookie (`console_session_offers`, `…_vector` or `…_payments`) names no live console session: unknown, signed out, revoked, of another service, or idle for 12 hours.',
    fix: 'Open a new sign-in link (`POST /admin/v1/console-links`), or send the API credential instead of the cookie.',
  },
  console_link_invalid: invalidRequest(400, {
    when: '`POST /console/sign-in` with a link token that is unknown, already used (a link opens one session, once) or expired (`ttl_seconds`, at most 15 minutes); the message says which.',
    fix: 'Ask the operator for a new link (`POST /admin/v1/console-links`).',
  }),
  csrf_token_invalid: {
    status: 403,
    type: 'permission_error',
    when: 'A state-changing request (any method but GET, HEAD and OPTIONS) authenticated by a console session cookie without the `X-CSRF-Token` header of that session (`GET /console/session` returns it).',
    fix: "Send the session's `csrf_token` in `X-CSRF-Token`; the console does this itself.",
  },
} as const satisfies ErrorCatalog;

export type ConsoleErrorCode = keyof typeof CONSOLE_ERRORS;

export class ConsoleError extends DomainError<ConsoleErrorCode | PlatformErrorCode> {}

/**
 * 401 `console_session_invalid`. Like every 401 it carries a challenge (RFC 9110 §15.5.2):
 * the Bearer one of the service, whose API credential is the other way in.
 */
export function consoleSessionInvalid(message: string, realm: string): ConsoleError {
  return new ConsoleError('console_session_invalid', message, { headers: { 'WWW-Authenticate': `Bearer realm="${realm}"` } });
}
