import { type CanActivate, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken, DomainError } from '@app/platform';
import { type Authenticator, PartnerAuthenticator, PaymentsKeyAuthenticator, VectorTokenAuthenticator } from './authenticators';
import { type Principal, type PrincipalKind, principalKey } from './principal';
import { RateLimiter } from './rate-limit/rate-limiter.service';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by AuthGuard; read it through @CurrentPrincipal(). */
    principal?: Principal;
  }
}

export const AUTH_KIND = 'auth:kind';
export const RequireKind = (kind: PrincipalKind): MethodDecorator & ClassDecorator => SetMetadata(AUTH_KIND, kind);

const REALMS: Readonly<Record<PrincipalKind, string>> = {
  partner: 'offers-api',
  vector_token: 'vector-api',
  payments_key: 'payments-api',
};

/**
 * The one guard for all three credential kinds: reads `Authorization: Bearer`, asks the
 * authenticator of the route's kind for a principal (401 otherwise, RFC 6750), then counts
 * the request against the principal's rate limit (429 over it). Every authenticated
 * response carries the RateLimit headers.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly authenticators: { [K in PrincipalKind]: Authenticator<K> };

  constructor(
    private readonly reflector: Reflector,
    private readonly rateLimiter: RateLimiter,
    partner: PartnerAuthenticator,
    vector: VectorTokenAuthenticator,
    payments: PaymentsKeyAuthenticator,
  ) {
    this.authenticators = { partner, vector_token: vector, payments_key: payments };
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const kind = this.reflector.getAllAndOverride<PrincipalKind | undefined>(AUTH_KIND, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!kind) throw new Error('AuthGuard used without @Authenticated(kind)');
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();

    const credential = bearerToken(request.headers.authorization);
    if (credential === undefined) {
      throw new DomainError('authentication_required', 'No credentials provided. Send Authorization: Bearer <token>.', {
        headers: { 'WWW-Authenticate': `Bearer realm="${REALMS[kind]}"` },
      });
    }
    const principal = await this.authenticators[kind].authenticate(credential);
    request.principal = principal;
    request.principalKey = principalKey(principal);

    const decision = await this.rateLimiter.hit(principal);
    if (decision) {
      void reply.headers(decision.headers);
      if (!decision.allowed) throw RateLimiter.exceeded(decision);
    }
    return true;
  }
}
