import type { Currency } from '../common/money';
import type { OfferDocument, OfferRecord } from './offer.types';

/**
 * The columns of an offers row as Prisma returns them (Decimal columns print exactly).
 * Read by the offers and the lifecycle repositories.
 */
export interface OfferRow extends Omit<
  OfferRecord,
  'pricePerShare' | 'minimumInvestment' | 'maximumInvestment' | 'documents' | 'currency'
> {
  readonly pricePerShare: { toString(): string };
  readonly minimumInvestment: { toString(): string };
  readonly maximumInvestment: { toString(): string } | null;
  /** JSONB written only from validated OfferFields.documents. */
  readonly documents: unknown;
  readonly currency: string;
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
    maximumInvestment: row.maximumInvestment === null ? null : row.maximumInvestment.toString(),
    documents: Array.isArray(row.documents) ? (row.documents as OfferDocument[]) : [],
    sharesOffered: row.sharesOffered,
    opensAt: row.opensAt,
    closesAt: row.closesAt,
    closingSoonNotifiedAt: row.closingSoonNotifiedAt,
    allocatedAt: row.allocatedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
