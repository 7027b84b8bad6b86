import type { Metadata, MetadataUpdate } from '../../common/metadata';
import type { Currency } from '../../common/money';
import type { REQUESTED_CANCELLATION_REASONS } from '../../payments/dto/payment.view';
import type { IntentCaptureMethod } from './payment-intent.view';

/** What the `/v1` adapter reads from Stripe's parameters (it checks their types and ranges). */
export interface PaymentIntentCreate {
  amount: number;
  currency: Currency;
  customer?: string;
  description?: string;
  metadata?: Metadata;
  payment_method?: string;
  capture_method?: IntentCaptureMethod;
  confirm?: boolean;
}

export interface PaymentIntentUpdate {
  amount?: number;
  currency?: Currency;
  /** "" in Stripe's form: null, no customer */
  customer?: string | null;
  payment_method?: string | null;
  capture_method?: IntentCaptureMethod;
  description?: string | null;
  metadata?: MetadataUpdate | null;
}

export interface PaymentIntentConfirm {
  payment_method?: string;
  capture_method?: IntentCaptureMethod;
}

export interface PaymentIntentCapture {
  amount_to_capture?: number;
}

export type IntentCancellationReason = (typeof REQUESTED_CANCELLATION_REASONS)[number];

export interface PaymentIntentCancel {
  cancellation_reason?: IntentCancellationReason;
}

export interface PaymentIntentListQuery {
  limit: number;
  starting_after?: string;
  ending_before?: string;
  customer?: string;
  created?: { gt?: Date; gte?: Date; lt?: Date; lte?: Date };
}
