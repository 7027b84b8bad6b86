import { AuthModule } from '@app/auth';
import { PlatformModule } from '@app/platform';
import { PartnerWebhookEndpointsController, WebhooksModule } from '@app/webhooks';
import { type DynamicModule, Module } from '@nestjs/common';
import { OffersConfig } from './config';

@Module({})
export class OffersAppModule {
  static forRoot(config: OffersConfig): DynamicModule {
    return {
      module: OffersAppModule,
      imports: [
        PlatformModule.forRoot({ service: 'offers-api', config }),
        AuthModule.forRoot({
          service: 'offers',
          oauth: {
            issuer: 'offers-api',
            keys: config.jwtKeys,
            tokenTtlSeconds: 3600,
            clientCacheTtlMs: config.OAUTH_CLIENT_CACHE_TTL_MS,
          },
          rateLimit: {
            perPrincipal: {
              starter: config.RATE_LIMIT_STARTER,
              growth: config.RATE_LIMIT_GROWTH,
              enterprise: config.RATE_LIMIT_ENTERPRISE,
            },
            windowSeconds: 60,
          },
        }),
        WebhooksModule.forRoot({
          ownerType: 'partner',
          eventTypes: [
            'offer.opened',
            'offer.closing_soon',
            'offer.closed',
            'indication.received',
            'allocation.confirmed',
            'allocation.scaled',
          ],
          controllers: [PartnerWebhookEndpointsController],
        }),
      ],
    };
  }
}
