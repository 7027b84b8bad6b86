import { createHash } from 'node:crypto';
import type { Metadata } from '../../common/metadata';
import type { PaymentRow } from '../../payments/payments.repository';
import type { PaymentIntentRow } from '../payment-intents.repository';

/** Stripe's PaymentIntent statuses that payments-api reaches (no requires_action: no 3-D Secure in test mode). */
export const PAYMENT_INTENT_STATUSES = [
  'requires_payment_method',
  'requires_confirmation',
  'requires_capture',
  'succeeded',
  'canceled',
] as const;
export type PaymentIntentStatus = (typeof PAYMENT_INTENT_STATUSES)[number];

/** The statuses an intent keeps in its own row (no payment yet, or the latest one failed). */
export type OwnIntentStatus = 'requires_payment_method' | 'requires_confirmation' | 'canceled';

/** Stripe's capture methods; automatic_async is automatic here (test mode captures at once). */
export const INTENT_CAPTURE_METHODS = ['automatic', 'automatic_async', 'manual'] as const;
export type IntentCaptureMethod = (typeof INTENT_CAPTURE_METHODS)[number];

/** What an intent's status and amounts are read from: its latest payment (a /v2 Payment). */
export type LatestPayment = Pick<
  PaymentRow,
  'id' | 'status' | 'amountCapturable' | 'amountReceived' | 'canceledAt' | 'cancellationReason'
>;

/** Stripe's `last_payment_error` as stored (payment_intents.last_payment_error). */
export interface LastPaymentError {
  type: 'card_error';
  code: string;
  decline_code?: string;
  message: string;
  payment_method: { id: string; object: 'payment_method'; type: 'card' };
}

/**
 * The status `/v1` shows (issue 35's data model): the latest payment's while that payment is
 * not failed (succeeded, requires_capture, canceled), else the intent's own column
 * (requires_payment_method, requires_confirmation, or canceled before any payment).
 */
export function intentStatus(own: string, latest: Pick<LatestPayment, 'status'> | null): PaymentIntentStatus {
  if (latest && latest.status !== 'failed') {
    if (latest.status === 'succeeded' || latest.status === 'requires_capture' || latest.status === 'canceled') {
      return latest.status;
    }
    throw new Error(`payment status ${latest.status} has no PaymentIntent status`);
  }
  if (own === 'requires_payment_method' || own === 'requires_confirmation' || own === 'canceled') return own;
  throw new Error(`payment intent status column ${own} is not an intent's own status`);
}

/** Whether a confirmation may start from this status (Stripe: requires_payment_method or requires_confirmation). */
export const confirmable = (status: PaymentIntentStatus): status is 'requires_payment_method' | 'requires_confirmation' =>
  status === 'requires_payment_method' || status === 'requires_confirmation';

/**
 * Stripe's `client_secret`, `<id>_secret_<25 characters>`, derived from the id rather than
 * stored (docs/decisions.md 289): payments-api has no publishable-key routes, so it
 * authorizes nothing here; it is shown because Stripe clients read it.
 */
export function clientSecret(id: string): string {
  const digest = createHash('sha256').update(`payment_intent_client_secret:${id}`).digest('base64url');
  return `${id}_secret_${digest.replace(/[-_]/g, '').slice(0, 25)}`;
}

const unix = (d: Date | null): number | null => (d ? Math.floor(d.getTime() / 1000) : null);

/** A PaymentIntent as `/v1` shows it (Stripe's object; `customer` may be expanded by the adapter). */
export interface PaymentIntentView {
  [field: string]: unknown;
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_capturable: number;
  amount_received: number;
  automatic_payment_methods: null;
  canceled_at: number | null;
  cancellation_reason: string | null;
  capture_method: string;
  client_secret: string;
  confirmation_method: 'automatic';
  created: number;
  currency: string;
  customer: string | null;
  description: string | null;
  last_payment_error: LastPaymentError | null;
  /** The latest payment's id (a /v2 `pay_…`: Stripe's Charge is payments-api's Payment; docs/decisions.md 288). */
  latest_charge: string | null;
  livemode: boolean;
  metadata: Metadata;
  next_action: null;
  payment_method: string | null;
  payment_method_types: ['card'];
  receipt_email: null;
  setup_future_usage: null;
  statement_descriptor: null;
  status: PaymentIntentStatus;
}

/** The intent with its latest payment (null: never confirmed) as `/v1` shows it. */
export function paymentIntentView(intent: PaymentIntentRow, latest: LatestPayment | null): PaymentIntentView {
  const status = intentStatus(intent.status, latest);
  const paymentCanceled = latest !== null && latest.status === 'canceled';
  return {
    id: intent.id,
    object: 'payment_intent',
    amount: intent.amount,
    amount_capturable: status === 'requires_capture' && latest ? latest.amountCapturable : 0,
    amount_received: status === 'succeeded' && latest ? latest.amountReceived : 0,
    automatic_payment_methods: null,
    canceled_at: unix(paymentCanceled ? latest.canceledAt : intent.canceledAt),
    cancellation_reason: paymentCanceled ? latest.cancellationReason : intent.cancellationReason,
    capture_method: intent.captureMethod,
    client_secret: clientSecret(intent.id),
    confirmation_method: 'automatic',
    created: Math.floor(intent.createdAt.getTime() / 1000),
    currency: intent.currency,
    customer: intent.customerId,
    description: intent.description,
    last_payment_error: intent.lastPaymentError as LastPaymentError | null,
    latest_charge: latest?.id ?? null,
    livemode: intent.mode === 'live',
    metadata: intent.metadata as Metadata,
    next_action: null,
    payment_method: intent.paymentMethod,
    payment_method_types: ['card'],
    receipt_email: null,
    setup_future_usage: null,
    statement_descriptor: null,
    status,
  };
}
