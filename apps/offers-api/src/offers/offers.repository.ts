import { Injectable } from '@nestjs/common';
import { PrismaService, type PrismaTx } from '@app/platform';
import type { Currency, OfferFields, OfferRecord, OfferStatus, OfferType } from './offer.types';

/** The columns of an offers row as Prisma returns them (Decimal columns print exactly). */
export interface OfferRow extends Omit<OfferRecord, 'pricePerShare' | 'minimumInvestment' | 'currency'> {
  readonly pricePerShare: { toString(): string };
  readonly minimumInvestment: { toString(): string };
  readonly currency: string;
}

export interface OfferListFilter {
  readonly statuses: readonly OfferStatus[];
  readonly type?: OfferType;
  readonly skip: number;
  readonly take: number;
}

export function toOfferRecord(row: OfferRow): OfferRecord {
  return {
    id: row.id,
    company: row.company,
    ticker: row.ticker,
    type: row.type,
    status: row.status,
    pricePerShare: row.pricePerShare.toString(),
    currency: row.currency as Currency,
    minimumInvestment: row.minimumInvestment.toString(),
    sharesOffered: row.sharesOffered,
    opensAt: row.opensAt,
    closesAt: row.closesAt,
    closingSoonNotifiedAt: row.closingSoonNotifiedAt,
    allocatedAt: row.allocatedAt,
    createdAt: row.createdAt,
  };
}

/**
 * Offers and distribution agreements. Partner-facing reads take the partner and only see
 * offers in its agreement; admin methods say so in their name.
 */
@Injectable()
export class OffersRepository {
  constructor(private readonly prisma: PrismaService) {}

  async listVisible(partnerId: string, filter: OfferListFilter): Promise<{ offers: OfferRecord[]; total: number }> {
    const where = {
      agreements: { some: { partnerId } },
      status: { in: [...filter.statuses] },
      ...(filter.type === undefined ? {} : { type: filter.type }),
    };
    const [rows, total] = await this.prisma.$transaction([
      this.prisma.offer.findMany({ where, orderBy: [{ closesAt: 'asc' }, { id: 'asc' }], skip: filter.skip, take: filter.take }),
      this.prisma.offer.count({ where }),
    ]);
    return { offers: rows.map(toOfferRecord), total };
  }

  async findVisible(partnerId: string, offerId: string, tx: PrismaTx = this.prisma): Promise<OfferRecord | undefined> {
    const row = await tx.offer.findFirst({ where: { id: offerId, agreements: { some: { partnerId } } } });
    return row === null ? undefined : toOfferRecord(row);
  }

  async adminFind(offerId: string, tx: PrismaTx = this.prisma): Promise<OfferRecord | undefined> {
    const row = await tx.offer.findUnique({ where: { id: offerId } });
    return row === null ? undefined : toOfferRecord(row);
  }

  async adminCreate(id: string, fields: OfferFields): Promise<OfferRecord> {
    const row = await this.prisma.offer.create({ data: { id, ...fields, status: 'upcoming' } });
    return toOfferRecord(row);
  }

  /**
   * Changes an offer that is not closed. When closes_at moves, a closing-soon notice already
   * sent for the old time is forgotten so the new time gets its own.
   */
  async adminUpdate(offerId: string, fields: Partial<OfferFields>, resetClosingSoon: boolean): Promise<OfferRecord | undefined> {
    const { count } = await this.prisma.offer.updateMany({
      where: { id: offerId, status: { not: 'closed' } },
      data: { ...fields, ...(resetClosingSoon ? { closingSoonNotifiedAt: null } : {}) },
    });
    return count === 0 ? undefined : this.adminFind(offerId);
  }

  async partnerExists(partnerId: string): Promise<boolean> {
    return (await this.prisma.partner.count({ where: { id: partnerId } })) > 0;
  }

  /** Adds the offer to the partner's agreement (idempotent); returns when it was added. */
  async adminAddToAgreement(partnerId: string, offerId: string): Promise<Date> {
    const row = await this.prisma.offerAgreement.upsert({
      where: { partnerId_offerId: { partnerId, offerId } },
      create: { partnerId, offerId },
      update: {},
    });
    return row.createdAt;
  }
}
