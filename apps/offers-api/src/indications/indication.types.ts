import type { Currency } from '../common/money';
import type { OfferStatus } from '../offers/offer.types';

export const INDICATION_STATUSES = ['received', 'cancelled'] as const;
export type IndicationStatus = (typeof INDICATION_STATUSES)[number];

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
  /** Decimal string in major units, or null for no maximum. */
  readonly maximumInvestment: string | null;
  readonly closesAt: Date;
  /** The current terms version; undefined when none has been published. */
  readonly currentTerms: string | undefined;
}
