import { type DynamicModule, Global, Injectable, Module } from '@nestjs/common';
import type { PrismaTx } from '@app/platform';
import { WebhookEmitter } from '@app/webhooks';
import { type OfferEvent, OfferEvents, type OfferEventType } from './offer-events';

/** OfferEvents over the webhooks outbox: every event is owned by one partner. */
@Injectable()
export class WebhookOfferEvents extends OfferEvents {
  constructor(private readonly emitter: WebhookEmitter) {
    super();
  }

  async emit<K extends OfferEventType>(tx: PrismaTx, event: OfferEvent<K>): Promise<void> {
    await this.emitter.emit(tx, { ownerType: 'partner', ownerId: event.partnerId, event: event.event, data: { ...event.data } });
  }
}

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
      providers: [{ provide: OfferEvents, useClass: WebhookOfferEvents }],
      exports: [OfferEvents],
    };
  }
}
