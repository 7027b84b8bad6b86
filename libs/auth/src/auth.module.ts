import { type DynamicModule, Global, Module } from '@nestjs/common';
import { ApiKeyCaches } from './api-key-cache';
import { AuthGuard } from './auth.guard';
import { ConsoleSessions } from './console/console-sessions';
import { ConsoleSessionsRepository } from './console/console-sessions.repository';
import { ConsoleSessionsPruneJob } from './console/console-sessions-prune.job';
import type { AuthModuleOptions } from './auth.options';
import { AUTH_OPTIONS } from './auth.tokens';
import { AuthenticatorRegistry } from './authenticator-registry';
import type { Principal } from './principal';
import { RateLimiter } from './rate-limit/rate-limiter.service';
import { RevocationBus } from './revocation-bus';

/**
 * Bearer authentication and rate limits for one app. Import once in the app module with
 * the app's authenticators and rate-limit policy; then any controller can use
 * `@Authenticated(kind)` and `@CurrentPrincipal()`. Mounts no routes.
 */
@Global()
@Module({})
export class AuthModule {
  static forRoot<P extends Principal>(options: AuthModuleOptions<P>): DynamicModule {
    const providers = [
      AuthenticatorRegistry,
      RateLimiter,
      AuthGuard,
      ApiKeyCaches,
      RevocationBus,
      ConsoleSessions,
      ConsoleSessionsRepository,
    ];
    return {
      module: AuthModule,
      providers: [{ provide: AUTH_OPTIONS, useValue: options }, ...providers, ConsoleSessionsPruneJob],
      exports: providers,
    };
  }
}
