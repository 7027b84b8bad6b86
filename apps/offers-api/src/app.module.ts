import { AuthModule } from '@app/auth';
import { PlatformModule } from '@app/platform';
import { WebhooksModule } from '@app/webhooks';
import { type DynamicModule, Module } from '@nestjs/common';
import { OffersConfig } from './config';
import { OffersDomainModule } from './domain.module';
import { OFFER_EVENT_TYPES } from './events/offer-events';
import { WebhookEndpointsController } from './webhook-endpoints/webhook-endpoints.controller';
import { PARTNER_WEBHOOK_OWNER } from './webhook-endpoints/webhook-owner';

@Module({})
export class OffersAppModule {
  static forRoot(config: OffersConfig): DynamicModule {
    // One WebhooksModule instance: the app mounts its partner routes (/api/v1/webhook-endpoints)
    // and the offers domain emits through its outbox.
    const webhooks = WebhooksModule.forRoot({
      ownerType: PARTNER_WEBHOOK_OWNER,
      eventTypes: OFFER_EVENT_TYPES,
      controllers: [WebhookEndpointsController],
    });
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
            failedTokenRequestsPerMinute: config.OAUTH_TOKEN_FAILURES_PER_MINUTE,
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
        webhooks,
        OffersDomainModule.forRoot({ webhooks }),
      ],
    };
  }
}
