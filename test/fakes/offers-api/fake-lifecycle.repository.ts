/* eslint-disable @typescript-eslint/require-await -- async like the methods it fakes: a failure is a rejection, not a throw */
import type { Tx } from '@app/platform';
import type { LifecycleRepository } from '../../../apps/offers-api/src/lifecycle/lifecycle.repository';
import type { OfferRecord } from '../../../apps/offers-api/src/offers/offer.types';
import { byDateThenId, type InMemoryOffersDb } from './in-memory-offers-db';
import type { FakeTransactionRunner } from '../fake-transaction-runner';
import type { Surface } from '../typed-fake';

/** Offers whose opening or close is due at `at` and not applied (the repository's openOrCloseDue). */
const openOrCloseDue = (o: OfferRecord, at: Date): boolean =>
  (o.status === 'upcoming' && o.opensAt <= at) || (o.status === 'live' && o.closesAt <= at);

/** LifecycleRepository over the in-memory tables: each transition is the same conditional update. */
export class FakeLifecycleRepository implements Surface<LifecycleRepository> {
  constructor(
    private readonly db: InMemoryOffersDb,
    private readonly transactions: FakeTransactionRunner,
  ) {}

  async find(tx: Tx, offerId: string): Promise<OfferRecord | undefined> {
    this.transactions.assertOpen(tx);
    return this.db.offers.get(offerId);
  }

  async markOpened(tx: Tx, offerId: string, now: Date): Promise<boolean> {
    return this.update(tx, offerId, (o) => o.status === 'upcoming' && o.opensAt <= now, { status: 'live' });
  }

  async markClosingSoon(tx: Tx, offerId: string, now: Date, dueBefore: Date): Promise<boolean> {
    return this.update(
      tx,
      offerId,
      (o) => o.status === 'live' && o.closingSoonNotifiedAt === null && o.closesAt > now && o.closesAt <= dueBefore,
      { closingSoonNotifiedAt: now },
    );
  }

  async markClosed(tx: Tx, offerId: string, now: Date): Promise<boolean> {
    return this.update(tx, offerId, (o) => o.status === 'live' && o.closesAt <= now, { status: 'closed' });
  }

  async agreementPartners(tx: Tx, offerId: string): Promise<string[]> {
    this.transactions.assertOpen(tx);
    return this.db.agreements
      .filter((a) => a.offerId === offerId)
      .map((a) => a.partnerId)
      .sort();
  }

  async dueOfferIds(now: Date, closingSoonBefore: Date, limit: number): Promise<string[]> {
    return [...this.db.offers.values()]
      .filter(
        (o) =>
          openOrCloseDue(o, now) || (o.status === 'live' && o.closingSoonNotifiedAt === null && o.closesAt <= closingSoonBefore),
      )
      .sort(byDateThenId((o) => o.opensAt))
      .slice(0, limit)
      .map((o) => o.id);
  }

  async overdueCount(before: Date): Promise<number> {
    return [...this.db.offers.values()].filter((o) => openOrCloseDue(o, before)).length;
  }

  async openOffers(limit: number): Promise<OfferRecord[]> {
    return [...this.db.offers.values()]
      .filter((o) => o.status === 'upcoming' || o.status === 'live')
      .sort(byDateThenId((o) => o.closesAt))
      .slice(0, limit);
  }

  private async update(
    tx: Tx,
    offerId: string,
    where: (offer: OfferRecord) => boolean,
    data: Partial<OfferRecord>,
  ): Promise<boolean> {
    this.transactions.assertOpen(tx);
    const offer = this.db.offers.get(offerId);
    if (!offer || !where(offer)) return false;
    this.db.updateOffer(offerId, data);
    return true;
  }
}
