/* eslint-disable @typescript-eslint/require-await -- async like the methods it fakes: a failure is a rejection, not a throw */
import type { Tx } from '@app/platform';
import type {
  IndicationRecord,
  IndicationTarget,
  NewIndication,
} from '../../../apps/offers-api/src/indications/indication.types';
import type { IndicationsRepository } from '../../../apps/offers-api/src/indications/indications.repository';
import { byDateThenId, type IndicationRow, type InMemoryOffersDb } from './in-memory-offers-db';
import type { FakeTransactionRunner } from '../fake-transaction-runner';
import type { Surface } from '../typed-fake';

const toRecord = ({ cancelledAt: _, ...record }: IndicationRow): IndicationRecord => record;

/** IndicationsRepository over the in-memory tables. */
export class FakeIndicationsRepository implements Surface<IndicationsRepository> {
  /** The offers read under the shared row lock, in order. */
  readonly locked: string[] = [];

  constructor(
    private readonly db: InMemoryOffersDb,
    private readonly transactions: FakeTransactionRunner,
  ) {}

  async lockVisibleOffer(tx: Tx, partnerId: string, offerId: string): Promise<IndicationTarget | undefined> {
    this.transactions.assertOpen(tx);
    const offer = this.db.offers.get(offerId);
    if (!offer || !this.db.isVisible(partnerId, offerId)) return undefined;
    this.locked.push(offerId);
    return {
      id: offer.id,
      status: offer.status,
      currency: offer.currency,
      minimumInvestment: offer.minimumInvestment,
      maximumInvestment: offer.maximumInvestment,
      closesAt: offer.closesAt,
      currentTerms: this.db.currentTerms()?.version,
    };
  }

  async create(tx: Tx, partnerId: string, indication: NewIndication): Promise<IndicationRecord> {
    this.transactions.assertOpen(tx);
    if (this.db.indications.has(indication.id)) throw new Error(`duplicate indication id ${indication.id}`);
    return toRecord(this.db.addIndication({ ...indication, partnerId, status: 'received', cancelledAt: null }));
  }

  async list(partnerId: string, offerId: string): Promise<IndicationRecord[]> {
    return [...this.db.indications.values()]
      .filter((i) => i.partnerId === partnerId && i.offerId === offerId)
      .sort(byDateThenId((i) => i.createdAt))
      .map(toRecord);
  }

  async find(tx: Tx, partnerId: string, offerId: string, id: string): Promise<IndicationRecord | undefined> {
    this.transactions.assertOpen(tx);
    const row = this.db.indications.get(id);
    return row && row.partnerId === partnerId && row.offerId === offerId ? toRecord(row) : undefined;
  }

  async findOwn(partnerId: string, id: string): Promise<IndicationRecord | undefined> {
    const row = this.db.indications.get(id);
    return row && row.partnerId === partnerId ? toRecord(row) : undefined;
  }

  async changeAmount(tx: Tx, partnerId: string, id: string, amount: number): Promise<IndicationRecord | undefined> {
    this.transactions.assertOpen(tx);
    const row = this.db.indications.get(id);
    if (!row || row.partnerId !== partnerId || row.status !== 'received') return undefined;
    const after = { ...row, amount };
    this.db.indications.set(id, after);
    return toRecord(after);
  }

  async cancel(tx: Tx, partnerId: string, id: string, at: Date): Promise<boolean> {
    this.transactions.assertOpen(tx);
    const row = this.db.indications.get(id);
    if (!row || row.partnerId !== partnerId || row.status !== 'received') return false;
    this.db.indications.set(id, { ...row, status: 'cancelled', cancelledAt: at });
    return true;
  }
}
