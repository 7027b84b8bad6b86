import { type DynamicModule, Global, Module, type Type } from '@nestjs/common';
import { CredentialsAdminService } from './admin/credentials-admin.service';
import {
  PartnersAdminController,
  PaymentAccountsAdminController,
  VectorTokensAdminController,
} from './admin/credentials-admin.controllers';
import { AuthGuard } from './auth.guard';
import type { AuthModuleOptions } from './auth.options';
import { AUTH_OPTIONS } from './auth.tokens';
import { PartnerAuthenticator, PaymentsKeyAuthenticator, VectorTokenAuthenticator } from './authenticators';
import { CredentialsRepository } from './credentials.repository';
import { AccessTokenService } from './oauth/access-token.service';
import { TokenController } from './oauth/token.controller';
import { TokenService } from './oauth/token.service';
import { RateLimiter } from './rate-limit/rate-limiter.service';
import { RevocationBus } from './revocation-bus';

const ADMIN_CONTROLLERS: Readonly<Record<AuthModuleOptions['service'], Type[]>> = {
  offers: [TokenController, PartnersAdminController],
  vector: [VectorTokensAdminController],
  payments: [PaymentAccountsAdminController],
};

/**
 * Credentials and rate limits for one service. Import once in the app module; then any
 * controller can use `@Authenticated(kind)` and `@CurrentPrincipal()`.
 */
@Global()
@Module({})
export class AuthModule {
  static forRoot(options: AuthModuleOptions): DynamicModule {
    const offers = options.service === 'offers';
    const providers = [
      { provide: AUTH_OPTIONS, useValue: options },
      CredentialsRepository,
      CredentialsAdminService,
      PartnerAuthenticator,
      VectorTokenAuthenticator,
      PaymentsKeyAuthenticator,
      RateLimiter,
      AuthGuard,
      ...(offers ? [AccessTokenService, TokenService] : []),
      ...(options.service === 'vector' ? [RevocationBus] : []),
    ];
    return {
      module: AuthModule,
      controllers: ADMIN_CONTROLLERS[options.service],
      providers,
      exports: providers.map((p) => ('provide' in p ? p.provide : p)),
    };
  }
}
