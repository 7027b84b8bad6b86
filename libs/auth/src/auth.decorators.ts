import { applyDecorators, createParamDecorator, type ExecutionContext, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTooManyRequestsResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AcceptBasicCredential, AcceptCredentialHeaders, AuthGuard, RefuseConsoleSession, RequireKind } from './auth.guard';
import type { Principal } from './principal';

/**
 * Requires a credential of `kind` (an authenticator the app registered) on a controller or
 * route, and applies its rate limit; also documents the security scheme (named `kind`) and
 * the 401/429 answers in OpenAPI.
 */
export function Authenticated(kind: string): MethodDecorator & ClassDecorator {
  return applyDecorators(
    RequireKind(kind),
    UseGuards(AuthGuard),
    ApiBearerAuth(kind),
    ApiUnauthorizedResponse({ description: 'Missing, invalid, expired or revoked credentials (WWW-Authenticate: Bearer)' }),
    ApiTooManyRequestsResponse({ description: 'Rate limit exceeded (Retry-After, RateLimit headers)' }),
  );
}

/**
 * On an @Authenticated route or controller: the credential may also come raw (no scheme) in
 * one of these headers when the request has no Authorization header (an API whose clients
 * send their key in their own header, e.g. `api-key`). The app documents the header as an
 * apiKey security scheme of its OpenAPI document.
 */
export function CredentialHeaders(...headers: string[]): MethodDecorator & ClassDecorator {
  return AcceptCredentialHeaders(headers);
}

/**
 * On an @Authenticated route or controller: the credential may also come as HTTP Basic, the
 * credential as user name and no password (`curl -u sk_test_…:`, as Stripe's API takes keys).
 */
export function BasicCredential(): MethodDecorator & ClassDecorator {
  return AcceptBasicCredential();
}

/**
 * On an @Authenticated route or controller: only credentials in headers authenticate, never
 * a console session cookie. For an API whose writes take form-encoded bodies, which a browser
 * sends cross-site without a preflight (the classic CSRF route): a cookie there is ignored,
 * so the request has no credentials (401).
 */
export function HeaderCredentialsOnly(): MethodDecorator & ClassDecorator {
  return RefuseConsoleSession();
}

/** The authenticated principal of the request (set by AuthGuard); type the parameter with the app's principal type. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
  if (!principal) throw new Error('@CurrentPrincipal() used on a route without @Authenticated()');
  return principal;
});
