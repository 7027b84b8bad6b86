import { type DynamicModule, Module } from '@nestjs/common';
import { AllocationsModule } from './allocations/allocations.module';
import { OfferEventsModule } from './events/offer-events.module';
import { IndicationsModule } from './indications/indications.module';
import { LifecycleModule } from './lifecycle/lifecycle.module';
import { OffersModule } from './offers/offers.module';
import { TermsModule } from './terms/terms.module';

export interface OffersDomainOptions {
  /**
   * The app's `WebhooksModule.forRoot({ ownerType: 'partner', events: Object.values(OFFER_EVENT_KINDS), ... })`,
   * the same object the app imports: offers events go through its outbox.
   */
  readonly webhooks: DynamicModule;
}

/** Everything of offers-api's own domain: offers, terms, indications, allocations, lifecycle. */
@Module({})
export class OffersDomainModule {
  static forRoot(options: OffersDomainOptions): DynamicModule {
    return {
      module: OffersDomainModule,
      imports: [
        OfferEventsModule.forRoot(options.webhooks),
        LifecycleModule,
        OffersModule,
        TermsModule,
        IndicationsModule,
        AllocationsModule,
      ],
    };
  }
}
