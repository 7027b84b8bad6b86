import { Injectable } from '@nestjs/common';
import { PrismaService, type PrismaTx } from '@app/platform';
import type { Currency, OfferStatus } from '../offers/offer.types';
import type { IndicationStatus } from './dto/indication.dto';

export interface IndicationRecord {
  readonly id: string;
  readonly offerId: string;
  readonly partnerId: string;
  readonly investorId: string;
  readonly amount: number;
  readonly currency: Currency;
  readonly termsVersion: string;
  readonly status: IndicationStatus;
  readonly createdAt: Date;
}

export type NewIndication = Omit<IndicationRecord, 'partnerId' | 'status'>;

const toRecord = (row: Omit<IndicationRecord, 'currency'> & { currency: string }): IndicationRecord => ({
  id: row.id,
  offerId: row.offerId,
  partnerId: row.partnerId,
  investorId: row.investorId,
  amount: row.amount,
  currency: row.currency as Currency,
  termsVersion: row.termsVersion,
  status: row.status,
  createdAt: row.createdAt,
});

/** Indications, always of one partner. */
@Injectable()
export class IndicationsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The offer's status and close time under a shared row lock: the close transition
   * (an UPDATE of that row) waits for this transaction, so no indication is accepted
   * after an offer has closed.
   */
  async lockOffer(tx: PrismaTx, offerId: string): Promise<{ status: OfferStatus; closesAt: Date } | undefined> {
    const rows = await tx.$queryRaw<Array<{ status: OfferStatus; closes_at: Date }>>`
      SELECT status::text AS status, closes_at FROM offers WHERE id = ${offerId} FOR SHARE`;
    const row = rows[0];
    return row === undefined ? undefined : { status: row.status, closesAt: row.closes_at };
  }

  async create(tx: PrismaTx, partnerId: string, indication: NewIndication): Promise<IndicationRecord> {
    return toRecord(await tx.indication.create({ data: { ...indication, partnerId, status: 'received' } }));
  }

  async list(partnerId: string, offerId: string): Promise<IndicationRecord[]> {
    const rows = await this.prisma.indication.findMany({
      where: { partnerId, offerId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return rows.map(toRecord);
  }

  async find(partnerId: string, offerId: string, id: string, tx: PrismaTx = this.prisma): Promise<IndicationRecord | undefined> {
    const row = await tx.indication.findFirst({ where: { id, partnerId, offerId } });
    return row === null ? undefined : toRecord(row);
  }

  /** received → cancelled; false when it was not `received` any more. */
  async cancel(tx: PrismaTx, partnerId: string, id: string, at: Date): Promise<boolean> {
    const { count } = await tx.indication.updateMany({
      where: { id, partnerId, status: 'received' },
      data: { status: 'cancelled', cancelledAt: at },
    });
    return count === 1;
  }
}
