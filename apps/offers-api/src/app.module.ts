import { AuthModule } from '@app/auth';
import { ConsoleModule } from '@app/console';
import { ConsoleLinksAdminController } from './console-links/console-links-admin.controller';
import { ConsoleSessionsAdminController } from './console-sessions/console-sessions-admin.controller';
import { PartnerConsoleTenants } from './partners/partner-console.tenants';
import { PlatformModule } from '@app/platform';
import { WebhooksModule } from '@app/webhooks';
import { type DynamicModule, Module } from '@nestjs/common';
import { ClientsModule } from './clients/clients.module';
import { OffersConfig } from './config';
import { OffersDomainModule } from './domain.module';
import { OFFER_EVENT_KINDS } from './events/offer-events';
import { EventsController } from './events/events.controller';
import { WebhookEndpointsController } from './webhook-endpoints/webhook-endpoints.controller';
import { PARTNER_WEBHOOK_OWNER } from './webhook-endpoints/webhook-owner';
import { OFFERS_CREDENTIAL_KINDS } from './oauth/credential-kinds';
import { OAuthModule } from './oauth/oauth.module';
import { PartnerAuthenticator } from './oauth/partner.authenticator';
import type { PartnerPrincipal } from './oauth/partner.principal';
import type { Tier } from './partners/partner-tier';
import { PartnersModule } from './partners/partners.module';

@Module({})
export class OffersAppModule {
  static forRoot(config: OffersConfig): DynamicModule {
    // One WebhooksModule instance: the app mounts its partner routes (/api/v1/webhook-endpoints)
    // and the offers domain emits through its outbox.
    const webhooks = WebhooksModule.forRoot({
      ownerType: PARTNER_WEBHOOK_OWNER,
      events: Object.values(OFFER_EVENT_KINDS),
      controllers: [WebhookEndpointsController, EventsController],
    });
    // Requests per minute per OAuth client, by partner tier (platform contract: Offers service decisions).
    const perMinute: Readonly<Record<Tier, number>> = {
      starter: config.RATE_LIMIT_STARTER,
      growth: config.RATE_LIMIT_GROWTH,
      enterprise: config.RATE_LIMIT_ENTERPRISE,
    };
    return {
      module: OffersAppModule,
      imports: [
        PlatformModule.forRoot({ service: 'offers-api', config, credentialKinds: OFFERS_CREDENTIAL_KINDS }),
        AuthModule.forRoot({
          authenticators: [PartnerAuthenticator],
          rateLimit: {
            namespace: 'offers',
            policyFor: (partner: PartnerPrincipal) => ({ name: partner.tier, limit: perMinute[partner.tier], windowSeconds: 60 }),
          },
        }),
        OAuthModule,
        PartnersModule,
        ClientsModule,
        webhooks,
        OffersDomainModule.forRoot({ webhooks }),
        ConsoleModule.forRoot({
          tenants: PartnerConsoleTenants,
          imports: [PartnersModule],
          controllers: [ConsoleLinksAdminController, ConsoleSessionsAdminController],
        }),
      ],
    };
  }
}
