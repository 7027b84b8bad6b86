/* eslint-disable @typescript-eslint/require-await -- async like the methods it fakes: a failure is a rejection, not a throw */
import type { Tx } from '@app/platform';
import type { OfferFields, OfferRecord } from '../../../apps/offers-api/src/offers/offer.types';
import type { OfferListFilter, OffersRepository } from '../../../apps/offers-api/src/offers/offers.repository';
import { byDateThenId, type InMemoryOffersDb, normalize } from './in-memory-offers-db';
import type { FakeTransactionRunner } from '../fake-transaction-runner';
import type { Surface } from '../typed-fake';

/** OffersRepository over the in-memory tables. */
export class FakeOffersRepository implements Surface<OffersRepository> {
  constructor(
    private readonly db: InMemoryOffersDb,
    private readonly transactions: FakeTransactionRunner,
  ) {}

  async listVisible(partnerId: string, filter: OfferListFilter): Promise<{ offers: OfferRecord[]; total: number }> {
    const matching = [...this.db.offers.values()]
      .filter((o) => this.db.isVisible(partnerId, o.id))
      .filter((o) => filter.statuses.includes(o.status) && (filter.type === undefined || o.type === filter.type))
      .filter((o) => filter.modifiedAfter === undefined || o.updatedAt > filter.modifiedAfter)
      .sort(byDateThenId((o) => (filter.modifiedAfter === undefined ? o.closesAt : o.updatedAt)));
    return { offers: matching.slice(filter.skip, filter.skip + filter.take), total: matching.length };
  }

  async findVisible(partnerId: string, offerId: string): Promise<OfferRecord | undefined> {
    return this.db.isVisible(partnerId, offerId) ? this.db.offers.get(offerId) : undefined;
  }

  async adminFind(offerId: string): Promise<OfferRecord | undefined> {
    return this.db.offers.get(offerId);
  }

  async adminCreate(tx: Tx, id: string, fields: OfferFields): Promise<OfferRecord> {
    this.transactions.assertOpen(tx);
    if (this.db.offers.has(id)) throw new Error(`duplicate offer id ${id}`);
    const offer = normalize({
      ...fields,
      id,
      status: 'upcoming' as const,
      closingSoonNotifiedAt: null,
      allocatedAt: null,
      createdAt: this.db.now(),
      updatedAt: this.db.now(),
    });
    this.db.offers.set(id, offer);
    return offer;
  }

  async adminUpdate(
    tx: Tx,
    offerId: string,
    fields: Partial<OfferFields>,
    resetClosingSoon: boolean,
  ): Promise<OfferRecord | undefined> {
    this.transactions.assertOpen(tx);
    const offer = this.db.offers.get(offerId);
    if (!offer || offer.status === 'closed') return undefined;
    return this.db.updateOffer(offerId, { ...fields, ...(resetClosingSoon ? { closingSoonNotifiedAt: null } : {}) });
  }

  async partnerExists(partnerId: string): Promise<boolean> {
    return this.db.partners.has(partnerId);
  }

  async adminAddToAgreement(tx: Tx, partnerId: string, offerId: string): Promise<Date> {
    this.transactions.assertOpen(tx);
    // The foreign keys of offer_agreements.
    if (!this.db.partners.has(partnerId) || !this.db.offers.has(offerId)) throw new Error('foreign key violation');
    this.db.agree(partnerId, offerId);
    const row = this.db.agreements.find((a) => a.partnerId === partnerId && a.offerId === offerId);
    if (!row) throw new Error('agreement not stored');
    return row.createdAt;
  }
}
