import { applyDecorators, type ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTooManyRequestsResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { PlatformConfig } from '../config/platform-config';
import { DomainError } from '../errors/domain-error';
import { clientAddressKey } from '../http/client-address';
import { CredentialKinds } from '../http/credential-kinds';
import { bearerToken, constantTimeEqual } from '../http/credentials';
import { noteRateLimit } from '../http/request-context';
import { BeforeBodyGuard } from '../http/route-policies';
import { FixedWindowCounter } from '../rate-limit/fixed-window-counter';

const CHALLENGE = 'Bearer realm="admin"';
const WINDOW_SECONDS = 60;

/**
 * Guards every `/admin/v1` route with ADMIN_API_KEY (Bearer), compared in constant time,
 * before the body is read (BeforeBodyGuard). Wrong keys are counted per client address
 * (IPv6 per /64; `request.ip` honours TRUST_PROXY): past ADMIN_AUTH_FAILURES_PER_MINUTE in
 * a minute, every admin request from that address — the right key too, or guessing could
 * go on — is 429 until the window ends. Successes are never counted; without Redis the
 * limit fails open.
 */
@Injectable()
export class AdminGuard extends BeforeBodyGuard {
  constructor(
    private readonly config: PlatformConfig,
    private readonly failures: FixedWindowCounter,
    private readonly kinds: CredentialKinds,
  ) {
    super();
  }

  protected async check(context: ExecutionContext): Promise<void> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const presented = bearerToken(request.headers.authorization);
    if (presented === undefined) {
      throw new DomainError('authentication_required', 'Admin routes need Authorization: Bearer <ADMIN_API_KEY>.', {
        headers: { 'WWW-Authenticate': CHALLENGE },
      });
    }
    const valid = constantTimeEqual(presented, this.config.ADMIN_API_KEY);
    const limit = this.config.ADMIN_AUTH_FAILURES_PER_MINUTE;
    if (limit > 0) {
      // Shared by the services on one Redis with one QUEUE_PREFIX (one deployment).
      const key = `ratelimit:admin-auth:${this.config.QUEUE_PREFIX}:${clientAddressKey(request.ip)}`;
      const window = valid ? await this.failures.peek(key, WINDOW_SECONDS) : await this.failures.hit(key, WINDOW_SECONDS);
      if (window && (valid ? window.count >= limit : window.count > limit)) {
        noteRateLimit('admin_auth');
        throw new DomainError(
          'rate_limit_exceeded',
          `Too many failed admin authentications from this address. Retry after ${window.resetSeconds} seconds.`,
          { headers: { 'Retry-After': String(window.resetSeconds) } },
        );
      }
    }
    if (!valid) {
      // an API key or token of the app's declared kinds is named (by its shape, never echoed)
      throw new DomainError('invalid_api_key', this.kinds.wrongAdminKey(presented) ?? 'Invalid admin API key.', {
        headers: { 'WWW-Authenticate': `${CHALLENGE}, error="invalid_token"` },
      });
    }
  }
}

/** Marks a controller or route as admin-only: guard + OpenAPI security. */
export function AdminOnly(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseGuards(AdminGuard),
    ApiBearerAuth('admin'),
    ApiUnauthorizedResponse({ description: 'Missing or wrong ADMIN_API_KEY' }),
    ApiTooManyRequestsResponse({
      description: 'Too many wrong admin keys from this address (ADMIN_AUTH_FAILURES_PER_MINUTE; Retry-After)',
    }),
  );
}
