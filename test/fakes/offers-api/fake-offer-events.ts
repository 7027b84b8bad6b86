/* eslint-disable @typescript-eslint/require-await -- async like the methods it fakes: a failure is a rejection, not a throw */
import type { PrismaTx } from '@app/platform';
import { type OfferEvent, OfferEvents, type OfferEventType } from '../../../apps/offers-api/src/events/offer-events';
import type { InMemoryOffersDb } from './in-memory-offers-db';

/** OfferEvents writing to the in-memory outbox, inside the caller's transaction (rolled back with it). */
export class FakeOfferEvents extends OfferEvents {
  constructor(private readonly db: InMemoryOffersDb) {
    super();
  }

  async emit<K extends OfferEventType>(tx: PrismaTx, event: OfferEvent<K>): Promise<void> {
    this.db.requireOpen(tx);
    // A copy of the data as JSON, as the outbox stores it.
    this.db.outbox.push({
      partnerId: event.partnerId,
      event: event.event,
      data: JSON.parse(JSON.stringify(event.data)) as OfferEvent['data'],
    });
  }
}
