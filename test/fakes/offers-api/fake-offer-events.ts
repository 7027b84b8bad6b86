import type { Closing } from '@app/platform';
import type { OfferEventData, OfferEvents, OfferEventType } from '../../../apps/offers-api/src/events/offer-events';
import type { FakeTransactionRunner } from '../fake-transaction-runner';
import type { Surface } from '../typed-fake';
import type { InMemoryOffersDb, OutboxEvent } from './in-memory-offers-db';

/** OfferEvents writing to the in-memory outbox with the change's transaction (its Closing): rolled back with it. */
export class FakeOfferEvents implements Surface<OfferEvents> {
  private seq = 0;

  constructor(
    private readonly db: InMemoryOffersDb,
    private readonly transactions: FakeTransactionRunner,
  ) {}

  emit<K extends OfferEventType>(closing: Closing, partnerId: string, event: K, data: OfferEventData<K>): string {
    // The runner restores the outbox (a table of the snapshot) when the transaction rolls back.
    this.transactions.assertOpen(closing);
    // A copy of the data as JSON, as the outbox stores it.
    this.db.outbox.push({ partnerId, event, data: JSON.parse(JSON.stringify(data)) as OfferEventData<K> } as OutboxEvent);
    return `evt_fake_${++this.seq}`;
  }
}
