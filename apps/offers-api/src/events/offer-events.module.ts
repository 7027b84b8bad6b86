import { type DynamicModule, Global, Module } from '@nestjs/common';
import { OfferEvents } from './offer-events';

/**
 * Provides OfferEvents to every offers domain module. Takes the app's WebhooksModule
 * (the same dynamic module object the app imports, so Nest keeps one instance).
 */
@Global()
@Module({})
export class OfferEventsModule {
  static forRoot(webhooks: DynamicModule): DynamicModule {
    return {
      module: OfferEventsModule,
      imports: [webhooks],
      providers: [OfferEvents],
      exports: [OfferEvents],
    };
  }
}
