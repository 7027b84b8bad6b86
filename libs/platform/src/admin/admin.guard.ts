import { applyDecorators, type CanActivate, type ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { PlatformConfig } from '../config/platform-config';
import { DomainError } from '../errors/domain-error';
import { bearerToken, constantTimeEqual } from '../http/credentials';

const CHALLENGE = 'Bearer realm="admin"';

/** Guards every `/admin/v1` route with ADMIN_API_KEY (Bearer), compared in constant time. */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(private readonly config: PlatformConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const presented = bearerToken(request.headers.authorization);
    if (presented === undefined) {
      throw new DomainError('authentication_required', 'Admin routes need Authorization: Bearer <ADMIN_API_KEY>.', {
        headers: { 'WWW-Authenticate': CHALLENGE },
      });
    }
    if (!constantTimeEqual(presented, this.config.ADMIN_API_KEY)) {
      throw new DomainError('invalid_api_key', 'Invalid admin API key.', {
        headers: { 'WWW-Authenticate': `${CHALLENGE}, error="invalid_token"` },
      });
    }
    return true;
  }
}

/** Marks a controller or route as admin-only: guard + OpenAPI security. */
export function AdminOnly(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseGuards(AdminGuard),
    ApiBearerAuth('admin'),
    ApiUnauthorizedResponse({ description: 'Missing or wrong ADMIN_API_KEY' }),
  );
}
