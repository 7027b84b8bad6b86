import type { Currency } from '../common/money';

/** Offer domain types (offers-distribution.md "Offer"). */
export const OFFER_TYPES = ['ipo', 'placing', 'retail_offer'] as const;
export type OfferType = (typeof OFFER_TYPES)[number];

export const OFFER_STATUSES = ['live', 'upcoming', 'closed'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];

export const OFFER_DOCUMENT_TYPES = ['prospectus', 'factsheet', 'key_information', 'terms', 'other'] as const;
export type OfferDocumentType = (typeof OFFER_DOCUMENT_TYPES)[number];

/** A document about an offer that partners show their investors (platform contract: Offers, more). */
export interface OfferDocument {
  readonly type: OfferDocumentType;
  readonly title: string;
  readonly url: string;
}

/** What an admin sets on an offer. Decimals are exact strings in major units. */
export interface OfferFields {
  readonly company: string;
  readonly ticker: string;
  readonly type: OfferType;
  readonly pricePerShare: string;
  readonly currency: Currency;
  readonly minimumInvestment: string;
  /** Decimal string in major units, or null for no maximum. */
  readonly maximumInvestment: string | null;
  readonly documents: readonly OfferDocument[];
  readonly sharesOffered: number;
  readonly opensAt: Date;
  readonly closesAt: Date;
}

/** An offer as the domain sees it: its fields plus what the platform keeps. */
export interface OfferRecord extends OfferFields {
  readonly id: string;
  readonly status: OfferStatus;
  readonly closingSoonNotifiedAt: Date | null;
  readonly allocatedAt: Date | null;
  readonly createdAt: Date;
  /** Moved by the database on every change (incremental sync). */
  readonly updatedAt: Date;
}
