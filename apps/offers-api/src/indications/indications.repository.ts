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

/** The offer fields an indication is checked against, locked, plus the current terms version. */
export interface IndicationTarget {
  readonly id: string;
  readonly status: OfferStatus;
  readonly currency: Currency;
  /** Decimal string in major units, as OfferRecord.minimumInvestment. */
  readonly minimumInvestment: string;
  readonly closesAt: Date;
  /** The current terms version; undefined when none has been published. */
  readonly currentTerms: string | undefined;
}

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

  /**
   * Everything an indication is checked against, in one statement: the offer if it is in the
   * partner's agreement (undefined otherwise), read under the same shared row lock as
   * lockOffer, and the current terms version. Saves the separate visibility, terms and lock
   * round trips on the hot path (docs/benchmarks.md, HTTP load: Profile).
   */
  async lockVisibleOffer(tx: PrismaTx, partnerId: string, offerId: string): Promise<IndicationTarget | undefined> {
    const rows = await tx.$queryRaw<
      Array<{
        status: OfferStatus;
        currency: Currency;
        minimum_investment: string;
        closes_at: Date;
        current_terms: string | null;
      }>
    >`
      SELECT o.status::text AS status, o.currency::text AS currency, trim_scale(o.minimum_investment)::text AS minimum_investment,
             o.closes_at,
             (SELECT t.version FROM terms_versions t ORDER BY t.published_at DESC, t.version DESC LIMIT 1) AS current_terms
      FROM offers o
      WHERE o.id = ${offerId}
        AND EXISTS (SELECT 1 FROM offer_agreements a WHERE a.partner_id = ${partnerId} AND a.offer_id = o.id)
      FOR SHARE OF o`;
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      id: offerId,
      status: row.status,
      currency: row.currency,
      // trim_scale: as Prisma's Decimal prints it ("250.50" → "250.5"), so messages read the same as elsewhere.
      minimumInvestment: row.minimum_investment,
      closesAt: row.closes_at,
      currentTerms: row.current_terms ?? undefined,
    };
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
