import type { Type } from '@nestjs/common';
import { DomainError } from '@app/platform';
import type { ConsoleSession } from './console/console-sessions';
import type { Principal } from './principal';

/** The route a request reached: its controller class and handler (to read their metadata), and the request's method. */
export interface RouteTarget {
  readonly method: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- a route handler of any signature
  readonly handler: Function;
  readonly controller: Type;
}

/**
 * Turns a presented bearer credential into a principal of one kind, or throws a 401
 * DomainError. An app implements one per credential kind it accepts, provides it in one of
 * its own modules and lists its class in `AuthModule.forRoot({ authenticators })`.
 */
export interface Authenticator<P extends Principal = Principal> {
  /** The kind it accepts: the argument of `@Authenticated(kind)` and the OpenAPI security scheme name. */
  readonly kind: P['kind'];
  /** The realm of its `WWW-Authenticate` challenges (RFC 6750 §3). */
  readonly realm: string;
  /**
   * What its routes take, as a 401 says it when another kind of credential is presented
   * ("This route takes <wants>; …"): e.g. "an OAuth 2.0 access token from POST /oauth/token".
   */
  readonly wants: string;
  authenticate(credential: string): Promise<P>;
  /** A stable string naming the principal: the scope of its rate limit. */
  keyOf(principal: P): string;
  /**
   * The tenant and mode the principal acts for (`<kind>:<tenant id>[:<mode>]`): the scope of
   * its Idempotency-Keys (platform contract, third round, "Credentials and sessions"). Never a
   * credential's id: a retry sent with a newly rolled key must replay, and a console session
   * in another mode must not.
   */
  idempotencyScopeOf(principal: P): string;
  /**
   * What the principal may do on this route, checked on every request after authentication
   * and the rate limit: throws a 403 DomainError to refuse (e.g. a restricted key's
   * permissions). Without it every authenticated principal reaches every route of its kind.
   */
  authorize?(principal: P, route: RouteTarget): void;
  /**
   * The principal a console session of the tenant `session.tenantId` acts as (the console
   * calls the same routes as the API). Without it, this kind's routes refuse session cookies.
   * `headers` are the request's (e.g. a console-mode header the app defines).
   */
  fromConsole?(session: ConsoleSession, headers: Readonly<Record<string, string | string[] | undefined>>): Promise<P>;
}

/**
 * No Bearer credential (RFC 6750 §3.1: the challenge without an error code); `wants` says what
 * the route takes. `authorization` is the header as sent: when it uses another scheme (Basic,
 * as Stripe's clients send keys), the message names that scheme, never its value.
 */
export function authenticationRequired(realm: string, wants: string, authorization?: string): DomainError {
  const scheme = /^\s*([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]{0,31})(?:\s|$)/.exec(authorization ?? '')?.[1];
  const sent =
    scheme === undefined
      ? 'No credentials provided.'
      : /^bearer$/i.test(scheme)
        ? 'The Authorization header is not a valid Bearer credential.'
        : `The Authorization header uses the ${scheme} scheme.`;
  const message = `${sent} This route takes ${wants}: send it as Authorization: Bearer <token>.`;
  return new DomainError('authentication_required', message, {
    headers: { 'WWW-Authenticate': `Bearer realm="${realm}"` },
  });
}

/** An API key that is unknown, malformed or revoked. */
export function invalidApiKey(realm: string): DomainError {
  return new DomainError('invalid_api_key', 'Invalid API key provided.', {
    headers: { 'WWW-Authenticate': `Bearer realm="${realm}", error="invalid_token"` },
  });
}
