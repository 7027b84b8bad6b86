/** Offer domain types (offers-distribution.md "Offer"). */
export const OFFER_TYPES = ['ipo', 'placing', 'retail_offer'] as const;
export type OfferType = (typeof OFFER_TYPES)[number];

export const OFFER_STATUSES = ['live', 'upcoming', 'closed'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];

export const CURRENCIES = ['gbp', 'eur'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** What an admin sets on an offer. Decimals are exact strings in major units. */
export interface OfferFields {
  readonly company: string;
  readonly ticker: string;
  readonly type: OfferType;
  readonly pricePerShare: string;
  readonly currency: Currency;
  readonly minimumInvestment: string;
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
}

/** The Offer JSON of the interface document, plus opens_at and shares_offered. */
export interface OfferView {
  readonly id: string;
  readonly company: string;
  readonly ticker: string;
  readonly type: OfferType;
  readonly status: OfferStatus;
  readonly price_per_share: number;
  readonly currency: Currency;
  readonly minimum_investment: number;
  readonly opens_at: string;
  readonly closes_at: string;
  readonly shares_offered: number;
}

export function offerView(o: OfferRecord): OfferView {
  return {
    id: o.id,
    company: o.company,
    ticker: o.ticker,
    type: o.type,
    status: o.status,
    price_per_share: Number(o.pricePerShare),
    currency: o.currency,
    minimum_investment: Number(o.minimumInvestment),
    opens_at: o.opensAt.toISOString(),
    closes_at: o.closesAt.toISOString(),
    shares_offered: o.sharesOffered,
  };
}
