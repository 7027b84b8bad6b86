import type { Metadata } from '../../../common/metadata';
import type { RefundRow } from '../../../refunds/refunds.repository';

/** A refund as `/v1` shows it (Stripe's Refund; `charge` is the refunded payment's id, as latest_charge is). */
export interface StripeRefundObject {
  [field: string]: unknown;
  id: string;
  object: 'refund';
  amount: number;
  balance_transaction: null;
  charge: string;
  created: number;
  currency: string;
  metadata: Metadata;
  payment_intent: string;
  reason: string | null;
  receipt_number: null;
  status: 'succeeded';
}

/** The refund of a payment that confirmed `paymentIntentId` (only those are `/v1` refunds). */
export function stripeRefund(row: RefundRow, paymentIntentId: string): StripeRefundObject {
  return {
    id: row.id,
    object: 'refund',
    amount: row.amount,
    balance_transaction: null,
    charge: row.paymentId,
    created: Math.floor(row.createdAt.getTime() / 1000),
    currency: row.currency,
    metadata: row.metadata as Metadata,
    payment_intent: paymentIntentId,
    reason: row.reason,
    receipt_number: null,
    status: 'succeeded',
  };
}
