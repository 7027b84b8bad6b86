import { Injectable } from '@nestjs/common';
import { PrismaService, type SqlTx, type Tx } from '@app/platform';
import { visibleTo } from '../offers/offers.repository';
import { currentTermsVersion } from '../terms/terms.repository';
import type { Currency } from '../common/money';
import type { OfferStatus } from '../offers/offer.types';
import type { IndicationRecord, IndicationTarget, NewIndication } from './indication.types';

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
   * Everything an indication is checked against, in one statement: the offer if it is in the
   * partner's agreement (undefined otherwise), read under a shared row lock, and the current
   * terms version. The lock makes the close transition (an UPDATE of that row) wait for this
   * transaction, so no indication is accepted or cancelled after an offer has closed. One
   * statement saves the separate visibility, terms and lock round trips on the hot path
   * (docs/benchmarks.md, HTTP load: Profile).
   */
  async lockVisibleOffer(tx: SqlTx, partnerId: string, offerId: string): Promise<IndicationTarget | undefined> {
    const rows = await tx.$queryRaw<
      Array<{
        status: OfferStatus;
        currency: Currency;
        minimum_investment: string;
        maximum_investment: string | null;
        closes_at: Date;
        current_terms: string | null;
      }>
    >`
      SELECT o.status::text AS status, o.currency::text AS currency, trim_scale(o.minimum_investment)::text AS minimum_investment,
             trim_scale(o.maximum_investment)::text AS maximum_investment, o.closes_at,
             ${currentTermsVersion} AS current_terms
      FROM offers o
      WHERE o.id = ${offerId} AND ${visibleTo(partnerId)}
      FOR SHARE OF o`;
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      id: offerId,
      status: row.status,
      currency: row.currency,
      // trim_scale: as Prisma's Decimal prints it ("250.50" → "250.5"), so messages read the same as elsewhere.
      minimumInvestment: row.minimum_investment,
      maximumInvestment: row.maximum_investment,
      closesAt: row.closes_at,
      currentTerms: row.current_terms ?? undefined,
    };
  }

  /**
   * One raw INSERT: every column is known here (created_at comes from the clock), so nothing
   * is read back, and the hot path skips Prisma's query compilation (docs/decisions.md 112).
   */
  async create(tx: SqlTx, partnerId: string, indication: NewIndication): Promise<IndicationRecord> {
    const i = indication;
    await tx.$executeRaw`
      INSERT INTO indications (id, offer_id, partner_id, investor_id, amount, currency, terms_version, status, created_at)
      VALUES (${i.id}, ${i.offerId}, ${partnerId}, ${i.investorId}, ${i.amount}, ${i.currency}::offer_currency,
              ${i.termsVersion}, 'received'::indication_status, ${i.createdAt})`;
    return { ...i, partnerId, status: 'received' };
  }

  async list(partnerId: string, offerId: string): Promise<IndicationRecord[]> {
    const rows = await this.prisma.indication.findMany({
      where: { partnerId, offerId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return rows.map(toRecord);
  }

  async find(tx: Tx, partnerId: string, offerId: string, id: string): Promise<IndicationRecord | undefined> {
    const row = await tx.indication.findFirst({ where: { id, partnerId, offerId } });
    return row === null ? undefined : toRecord(row);
  }

  /** Any of the partner's indications by id (the offer is not part of the address). */
  async findOwn(partnerId: string, id: string): Promise<IndicationRecord | undefined> {
    const row = await this.prisma.indication.findFirst({ where: { id, partnerId } });
    return row === null ? undefined : toRecord(row);
  }

  /**
   * A received indication's new amount, in one conditional UPDATE; undefined when it was not
   * `received` any more (cancelled by a concurrent request).
   */
  async changeAmount(tx: Tx, partnerId: string, id: string, amount: number): Promise<IndicationRecord | undefined> {
    const { count } = await tx.indication.updateMany({ where: { id, partnerId, status: 'received' }, data: { amount } });
    if (count !== 1) return undefined;
    const row = await tx.indication.findFirst({ where: { id, partnerId } });
    return row === null ? undefined : toRecord(row);
  }

  /** received → cancelled; false when it was not `received` any more. */
  async cancel(tx: Tx, partnerId: string, id: string, at: Date): Promise<boolean> {
    const { count } = await tx.indication.updateMany({
      where: { id, partnerId, status: 'received' },
      data: { status: 'cancelled', cancelledAt: at },
    });
    return count === 1;
  }
}
