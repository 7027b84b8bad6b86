import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService, type Db, type Tx } from '@app/platform';
import { type OfferRow, toOfferRecord } from './offer-row';
import type { OfferFields, OfferRecord, OfferStatus, OfferType } from './offer.types';

/** OfferFields as Prisma columns (documents is a JSONB array). */
function toData<F extends Partial<OfferFields>>(fields: F): Omit<F, 'documents'> & { documents?: Prisma.InputJsonValue } {
  const { documents, ...rest } = fields;
  return { ...rest, ...(documents === undefined ? {} : { documents: documents.map((d) => ({ ...d })) }) };
}

export interface OfferListFilter {
  readonly statuses: readonly OfferStatus[];
  readonly type?: OfferType;
  /** Only offers whose updated_at is later than this, oldest change first. */
  readonly modifiedAfter?: Date;
  readonly skip: number;
  readonly take: number;
}

/**
 * The rule "this offer is visible to this partner": it is in the partner's distribution
 * agreement. Written here once, as the SQL condition on an offers row aliased `o`; every
 * partner-facing read of offers (here, and the indications' hot path) uses it.
 */
export function visibleTo(partnerId: string): Prisma.Sql {
  return Prisma.sql`EXISTS (SELECT 1 FROM offer_agreements a WHERE a.partner_id = ${partnerId} AND a.offer_id = o.id)`;
}

/** An offers row (alias `o`) under OfferRow's names, so toOfferRecord maps it. */
const OFFER_COLUMNS = Prisma.sql`
  o.id, o.company, o.ticker, o.type::text AS type, o.status::text AS status,
  trim_scale(o.price_per_share)::text AS "pricePerShare", o.currency::text AS currency,
  trim_scale(o.minimum_investment)::text AS "minimumInvestment",
  trim_scale(o.maximum_investment)::text AS "maximumInvestment", o.documents,
  o.shares_offered AS "sharesOffered",
  o.opens_at AS "opensAt", o.closes_at AS "closesAt", o.closing_soon_notified_at AS "closingSoonNotifiedAt",
  o.allocated_at AS "allocatedAt", o.created_at AS "createdAt", o.updated_at AS "updatedAt"`;

/**
 * Offers and distribution agreements. Partner-facing reads take the partner and only see
 * offers in its agreement; admin methods say so in their name.
 */
@Injectable()
export class OffersRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * One page of the partner's offers and the total, in one statement (`count(*) OVER ()` is
   * taken before LIMIT/OFFSET): the list was BEGIN, SELECT, COUNT, COMMIT — four round trips
   * (docs/benchmarks.md, HTTP load). A page past the end has no row to carry the total, so
   * only then is it counted apart. With `modifiedAfter` (incremental sync) the rows are those
   * changed after that instant, oldest change first, read along offers_updated_at_id_idx
   * (docs/decisions.md, 107).
   */
  async listVisible(partnerId: string, filter: OfferListFilter): Promise<{ offers: OfferRecord[]; total: number }> {
    const type = filter.type ?? null;
    const modifiedAfter = filter.modifiedAfter ?? null;
    const order =
      filter.modifiedAfter === undefined
        ? Prisma.sql`ORDER BY o.closes_at ASC, o.id ASC`
        : Prisma.sql`ORDER BY o.updated_at ASC, o.id ASC`;
    // trim_scale(...)::text (OFFER_COLUMNS) prints a decimal as Prisma's Decimal does ("250.50" → "250.5").
    const where = Prisma.sql`
      WHERE ${visibleTo(partnerId)}
        AND o.status::text = ANY(${[...filter.statuses]}::text[])
        AND (${type}::text IS NULL OR o.type::text = ${type}::text)
        AND (${modifiedAfter}::timestamptz IS NULL OR o.updated_at > ${modifiedAfter}::timestamptz)`;
    const rows = await this.prisma.$queryRaw<Array<OfferRow & { readonly total: bigint | number }>>`
      SELECT ${OFFER_COLUMNS}, count(*) OVER () AS total
      FROM offers o ${where}
      ${order}
      LIMIT ${filter.take}::int OFFSET ${filter.skip}::int`;
    const offers = rows.map(toOfferRecord);
    if (rows[0] !== undefined) return { offers, total: Number(rows[0].total) };
    if (filter.skip === 0) return { offers, total: 0 };
    const counted = await this.prisma.$queryRaw<Array<{ total: number }>>`SELECT count(*)::int AS total FROM offers o ${where}`;
    return { offers, total: counted[0]?.total ?? 0 };
  }

  async findVisible(partnerId: string, offerId: string): Promise<OfferRecord | undefined> {
    const rows = await this.prisma.$queryRaw<OfferRow[]>`
      SELECT ${OFFER_COLUMNS} FROM offers o WHERE o.id = ${offerId} AND ${visibleTo(partnerId)}`;
    return rows[0] === undefined ? undefined : toOfferRecord(rows[0]);
  }

  async adminFind(offerId: string): Promise<OfferRecord | undefined> {
    return this.findById(this.prisma, offerId);
  }

  async adminCreate(tx: Tx, id: string, fields: OfferFields): Promise<OfferRecord> {
    const row = await tx.offer.create({ data: { id, ...toData(fields), status: 'upcoming' } });
    return toOfferRecord(row);
  }

  /**
   * Changes an offer that is not closed. When closes_at moves, a closing-soon notice already
   * sent for the old time is forgotten so the new time gets its own.
   */
  async adminUpdate(
    tx: Tx,
    offerId: string,
    fields: Partial<OfferFields>,
    resetClosingSoon: boolean,
  ): Promise<OfferRecord | undefined> {
    const { count } = await tx.offer.updateMany({
      where: { id: offerId, status: { not: 'closed' } },
      data: { ...toData(fields), ...(resetClosingSoon ? { closingSoonNotifiedAt: null } : {}) },
    });
    return count === 0 ? undefined : this.findById(tx, offerId);
  }

  async partnerExists(partnerId: string): Promise<boolean> {
    return (await this.prisma.partner.count({ where: { id: partnerId } })) > 0;
  }

  /** Adds the offer to the partner's agreement (idempotent); returns when it was added. */
  async adminAddToAgreement(tx: Tx, partnerId: string, offerId: string): Promise<Date> {
    const row = await tx.offerAgreement.upsert({
      where: { partnerId_offerId: { partnerId, offerId } },
      create: { partnerId, offerId },
      update: {},
    });
    return row.createdAt;
  }

  private async findById(db: Db, offerId: string): Promise<OfferRecord | undefined> {
    const row = await db.offer.findUnique({ where: { id: offerId } });
    return row === null ? undefined : toOfferRecord(row);
  }
}
