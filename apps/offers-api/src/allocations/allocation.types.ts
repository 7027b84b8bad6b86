import type { Currency } from '../common/money';
import type { AllocationPolicy } from './allocation';

/** One indication's allocation: what was asked, what was given, what is refunded. */
export interface AllocationRecord {
  readonly id: string;
  readonly indicationId: string;
  readonly offerId: string;
  readonly partnerId: string;
  readonly investorId: string;
  readonly sharesRequested: number;
  readonly sharesAllocated: number;
  readonly amountRequested: number;
  /** decimal string, major units */
  readonly amountAllocated: string;
  readonly amountRefunded: number;
  readonly currency: Currency;
  /** decimal string */
  readonly scalingFactor: string;
  readonly method: AllocationPolicy;
  readonly createdAt: Date;
}

/** An indication still `received`, as an allocation run reads it. */
export interface ReceivedIndication {
  readonly id: string;
  readonly partnerId: string;
  readonly investorId: string;
  readonly amount: number;
  readonly createdAt: Date;
}
