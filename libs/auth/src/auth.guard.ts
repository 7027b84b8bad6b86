import { type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BeforeBodyGuard, bearerToken, CredentialKinds, isDomainError, noteRateLimit } from '@app/platform';
import { authenticationRequired } from './authenticator';
import { AuthenticatorRegistry } from './authenticator-registry';
import { ConsoleSessions } from './console/console-sessions';
import type { Principal } from './principal';
import { RateLimiter } from './rate-limit/rate-limiter.service';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by AuthGuard; read it through @CurrentPrincipal(). */
    principal?: Principal;
  }
}

export const AUTH_KIND = 'auth:kind';
export const RequireKind = (kind: string): MethodDecorator & ClassDecorator => SetMetadata(AUTH_KIND, kind);

export const AUTH_CREDENTIAL_HEADERS = 'auth:credential-headers';

/**
 * Headers (lower case) that may carry the raw credential when `Authorization: Bearer` is
 * absent, on a route or controller whose clients send their key elsewhere (an API whose
 * official clients use their own header). See CredentialHeaders in auth.decorators.ts.
 */
export const AcceptCredentialHeaders = (headers: readonly string[]): MethodDecorator & ClassDecorator =>
  SetMetadata(
    AUTH_CREDENTIAL_HEADERS,
    headers.map((h) => h.toLowerCase()),
  );

export const AUTH_BASIC = 'auth:basic-credential';

/**
 * The credential may also come as HTTP Basic with the credential as the user name and an
 * empty password (`curl -u sk_test_…:`, as Stripe takes its keys). See BasicCredential.
 */
export const AcceptBasicCredential = (): MethodDecorator & ClassDecorator => SetMetadata(AUTH_BASIC, true);

export const AUTH_NO_CONSOLE = 'auth:no-console-session';

/**
 * A console session cookie does not stand for the tenant here: only the Authorization header
 * (or the route's credential headers) authenticates. See HeaderCredentialsOnly.
 */
export const RefuseConsoleSession = (): MethodDecorator & ClassDecorator => SetMetadata(AUTH_NO_CONSOLE, true);

/** The user name of `Authorization: Basic base64(user:)` when the password is empty, else undefined. */
export function basicUserCredential(header: string | undefined): string | undefined {
  const match = /^Basic[ ]+([A-Za-z0-9+/]+=*)\s*$/i.exec(header ?? '');
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon !== decoded.length - 1) return undefined;
  return decoded.slice(0, colon);
}

/** The credential in the first of `headers` the request carries (one value, no scheme), if any. */
function credentialHeader(request: FastifyRequest, headers: readonly string[]): string | undefined {
  for (const name of headers) {
    const value = request.headers[name];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/**
 * The one guard for every credential kind: reads `Authorization: Bearer` (or, without an
 * Authorization header, the route's own credential headers: @CredentialHeaders), asks the app's
 * authenticator of the route's kind for a principal (401 otherwise, RFC 6750), then counts
 * the request against the principal's rate limit (429 over it). Every authenticated
 * response carries the RateLimit headers. A refused credential of another kind than the
 * route takes (the admin key, another service's token) gets a 401 saying so
 * (CredentialKinds), with the authenticator's code and challenge.
 *
 * Without an Authorization header, a console session cookie (`console_session_<service>`) stands for
 * the tenant when the route's authenticator implements `fromConsole`; a state-changing
 * request then needs the session's `X-CSRF-Token` (403 otherwise).
 *
 * A BeforeBodyGuard: the platform runs it in the route's preParsing hook, so a request
 * without valid credentials (or over its limit) is refused before its body is read or
 * parsed; the principal is then on the request, and Nest's own run of the guard returns
 * at once.
 */
@Injectable()
export class AuthGuard extends BeforeBodyGuard {
  constructor(
    private readonly reflector: Reflector,
    private readonly rateLimiter: RateLimiter,
    private readonly authenticators: AuthenticatorRegistry,
    private readonly kinds: CredentialKinds,
    private readonly sessions: ConsoleSessions,
  ) {
    super();
  }

  protected async check(context: ExecutionContext): Promise<void> {
    const kind = this.reflector.getAllAndOverride<string | undefined>(AUTH_KIND, [context.getHandler(), context.getClass()]);
    if (!kind) throw new Error('AuthGuard used without @Authenticated(kind)');
    const authenticator = this.authenticators.get(kind);
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();

    const extra =
      this.reflector.getAllAndOverride<readonly string[] | undefined>(AUTH_CREDENTIAL_HEADERS, [
        context.getHandler(),
        context.getClass(),
      ]) ?? [];
    const flag = (key: string): boolean =>
      this.reflector.getAllAndOverride<boolean | undefined>(key, [context.getHandler(), context.getClass()]) === true;
    // Authorization first; the route's own credential headers only when it is absent.
    const fromHeader = request.headers.authorization === undefined ? credentialHeader(request, extra) : undefined;
    const credential =
      bearerToken(request.headers.authorization) ??
      (flag(AUTH_BASIC) ? basicUserCredential(request.headers.authorization) : undefined) ??
      fromHeader;
    let principal: Principal;
    const cookie =
      request.headers.authorization === undefined && fromHeader === undefined && !flag(AUTH_NO_CONSOLE)
        ? this.sessions.cookieOf(request.headers.cookie)
        : undefined;
    if (credential === undefined && cookie !== undefined && authenticator.fromConsole) {
      // The console: a session cookie of this tenant (no Authorization header at all);
      // every state-changing request must carry the session's CSRF token.
      const session = await this.sessions.authenticateRequest(cookie, request);
      principal = await authenticator.fromConsole(session, request.headers);
    } else {
      if (credential === undefined)
        throw authenticationRequired(authenticator.realm, authenticator.wants, request.headers.authorization);
      try {
        principal = await authenticator.authenticate(credential);
      } catch (err) {
        if (!isDomainError(err) || err.status !== 401) throw err;
        throw this.kinds.explainRefusal(err, credential, { wants: authenticator.wants, kind: authenticator.kind });
      }
    }
    const key = authenticator.keyOf(principal);
    request.principal = principal;
    request.idempotencyScope = authenticator.idempotencyScopeOf(principal);

    const decision = await this.rateLimiter.hit(principal, key);
    if (decision) {
      void reply.headers(decision.headers);
      if (!decision.allowed) {
        noteRateLimit('principal');
        throw RateLimiter.exceeded(decision);
      }
    }
    authenticator.authorize?.(principal, {
      method: request.method,
      handler: context.getHandler(),
      controller: context.getClass(),
    });
  }
}
