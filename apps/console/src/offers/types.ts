/** The offers API's answers the partner dashboard reads (docs/offers.md; apps/offers-api DTOs). */

export const OFFER_STATUSES = ['live', 'upcoming', 'closed'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];

export const OFFER_TYPES = ['ipo', 'placing', 'retail_offer'] as const;
export type OfferType = (typeof OFFER_TYPES)[number];

export interface OfferDocument {
  readonly type: 'prospectus' | 'factsheet' | 'key_information' | 'terms' | 'other';
  readonly title: string;
  readonly url: string;
}

export interface Offer {
  readonly id: string;
  readonly company: string;
  readonly ticker: string;
  readonly type: OfferType;
  readonly status: OfferStatus;
  /** Decimal, major units. */
  readonly price_per_share: number;
  readonly currency: string;
  /** Decimal, major units. */
  readonly minimum_investment: number;
  /** Decimal, major units, or null (no maximum). */
  readonly maximum_investment: number | null;
  readonly opens_at: string;
  readonly closes_at: string;
  readonly shares_offered: number;
  readonly documents: readonly OfferDocument[];
  readonly updated_at: string;
}

/** GET /api/v1/offers: numbered pages (`page`, `limit`) with the total. */
export interface OfferList {
  readonly offers: Offer[];
  readonly total: number;
  readonly page: number;
}

export interface Indication {
  readonly id: string;
  readonly offer_id: string;
  readonly investor_id: string;
  /** Minor units. */
  readonly amount: number;
  readonly currency: string;
  readonly terms_version: string;
  readonly status: 'received' | 'cancelled';
  readonly created_at: string;
}

/** GET /api/v1/offers/{id}/indications: all of the partner's indications on the offer. */
export interface IndicationList {
  readonly indications: Indication[];
  readonly total: number;
}

export interface Allocation {
  readonly id: string;
  readonly indication_id: string;
  readonly investor_id: string;
  readonly offer_id: string;
  readonly shares_allocated: number;
  /** Decimal, major units. */
  readonly amount_allocated: number;
  readonly currency: string;
  readonly shares_requested: number;
  /** Minor units. */
  readonly amount_requested: number;
  /** Minor units. */
  readonly amount_refunded: number;
  readonly scaling_factor: number;
  readonly method: string;
  readonly outcome: 'confirmed' | 'scaled';
  readonly created_at: string;
}

export interface OAuthClient {
  readonly client_id: string;
  readonly name: string;
  readonly active: boolean;
  readonly created_at: string;
  readonly previous_secret_expires_at: string | null;
}

export interface OAuthClientCreated {
  readonly client_id: string;
  readonly client_secret: string;
  readonly name: string;
  readonly created_at: string;
}

export interface OAuthClientSecretRotated {
  readonly client_id: string;
  readonly client_secret: string;
  readonly previous_secret_expires_at: string | null;
}

/** The longest grace of a rotated-out secret the API accepts (hours). */
export const ROTATION_GRACE_MAX_HOURS = 168;
