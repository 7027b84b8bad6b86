/* eslint-disable @typescript-eslint/require-await -- async like the methods it fakes: a failure is a rejection, not a throw */
import type { Tx } from '@app/platform';
import type { AllocationRecord, ReceivedIndication } from '../../../apps/offers-api/src/allocations/allocation.types';
import type {
  AllocationPageFilter,
  AllocationsRepository,
} from '../../../apps/offers-api/src/allocations/allocations.repository';
import { byDateThenId, type InMemoryOffersDb } from './in-memory-offers-db';
import type { FakeTransactionRunner } from '../fake-transaction-runner';
import type { Surface } from '../typed-fake';

/** AllocationsRepository over the in-memory tables. */
export class FakeAllocationsRepository implements Surface<AllocationsRepository> {
  constructor(
    private readonly db: InMemoryOffersDb,
    private readonly transactions: FakeTransactionRunner,
  ) {}

  async claimRun(tx: Tx, offerId: string, at: Date): Promise<boolean> {
    this.transactions.assertOpen(tx);
    const offer = this.db.offers.get(offerId);
    if (!offer || offer.status !== 'closed' || offer.allocatedAt !== null) return false;
    this.db.updateOffer(offerId, { allocatedAt: at });
    return true;
  }

  async receivedIndications(tx: Tx, offerId: string): Promise<ReceivedIndication[]> {
    this.transactions.assertOpen(tx);
    return [...this.db.indications.values()]
      .filter((i) => i.offerId === offerId && i.status === 'received')
      .sort(byDateThenId((i) => i.createdAt))
      .map((i) => ({ id: i.id, partnerId: i.partnerId, investorId: i.investorId, amount: i.amount, createdAt: i.createdAt }));
  }

  async insert(tx: Tx, rows: readonly AllocationRecord[]): Promise<void> {
    this.transactions.assertOpen(tx);
    // allocations.indication_id is unique: one allocation per indication.
    for (const row of rows) {
      if (this.db.allocations.some((a) => a.indicationId === row.indicationId)) {
        throw new Error(`unique violation: allocation of ${row.indicationId}`);
      }
      this.db.allocations.push({ ...row });
    }
  }

  async listForPartner(partnerId: string, offerId: string): Promise<AllocationRecord[]> {
    return this.db.allocations
      .filter((a) => a.partnerId === partnerId && a.offerId === offerId)
      .sort(byDateThenId((a) => a.createdAt));
  }

  async findOwn(partnerId: string, id: string): Promise<{ createdAt: Date; id: string } | undefined> {
    const row = this.db.allocations.find((a) => a.id === id && a.partnerId === partnerId);
    return row === undefined ? undefined : { createdAt: row.createdAt, id: row.id };
  }

  async pageForPartner(partnerId: string, filter: AllocationPageFilter): Promise<AllocationRecord[]> {
    const after = filter.after;
    return this.db.allocations
      .filter((a) => a.partnerId === partnerId)
      .filter((a) => filter.offerId === undefined || a.offerId === filter.offerId)
      .filter((a) => filter.investorId === undefined || a.investorId === filter.investorId)
      .filter(
        (a) =>
          after === undefined ||
          a.createdAt < after.createdAt ||
          (a.createdAt.getTime() === after.createdAt.getTime() && a.id < after.id),
      )
      .sort(byDateThenId((a) => a.createdAt))
      .reverse()
      .slice(0, filter.limit);
  }
}
