import { ApiProperty } from '@nestjs/swagger';
import { SUPPORTED_CURRENCIES } from '../../common/money';
import type { Metadata } from '../../common/metadata';
import type { PaymentRow } from '../payments.repository';

export const PAYMENT_STATUSES = ['succeeded', 'requires_capture', 'canceled', 'failed'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export const CAPTURE_METHODS = ['automatic', 'manual'] as const;
export type CaptureMethod = (typeof CAPTURE_METHODS)[number];
/** Stripe's cancellation reasons a caller may give; `automatic` is the expiry's. */
export const REQUESTED_CANCELLATION_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const;
export const CANCELLATION_REASONS = [...REQUESTED_CANCELLATION_REASONS, 'automatic'] as const;
export type CancellationReason = (typeof CANCELLATION_REASONS)[number];

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** Response shapes (Stripe-like). Timestamps are ISO 8601 UTC; amounts integers in minor units. */
export class PaymentView {
  @ApiProperty({ example: 'pay_3MtwBw...' }) id!: string;
  @ApiProperty({ enum: ['payment'] }) object!: 'payment';
  @ApiProperty({
    enum: PAYMENT_STATUSES,
    description:
      'succeeded: captured; requires_capture: authorized (capture_method manual), waiting for capture or cancel; canceled: an authorization released; failed: declined',
  })
  status!: PaymentStatus;
  @ApiProperty({ type: 'integer', description: 'minor units' }) amount!: number;
  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'gbp' }) currency!: string;
  @ApiProperty({ type: String, nullable: true, description: 'null for a payment made through /v1 without a customer' })
  customer_id!: string | null;
  @ApiProperty({ nullable: true, type: String }) description!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty({ example: 'pm_card_visa' }) payment_method!: string;
  @ApiProperty({ enum: CAPTURE_METHODS, description: 'automatic: charged at once; manual: authorized, captured later' })
  capture_method!: CaptureMethod;
  @ApiProperty({ type: 'integer', description: 'minor units authorized and not yet captured (0 unless requires_capture)' })
  amount_capturable!: number;
  @ApiProperty({ type: 'integer', description: 'minor units captured: what refunds can give back' })
  amount_received!: number;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'requires_capture: the authorization is canceled (reason automatic) if not captured by then',
  })
  capture_before!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time', description: 'when the money was captured' })
  captured_at!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) canceled_at!: string | null;
  @ApiProperty({ nullable: true, enum: CANCELLATION_REASONS, description: 'automatic: the authorization expired' })
  cancellation_reason!: CancellationReason | null;
  @ApiProperty({ type: 'integer', description: 'minor units refunded so far' }) amount_refunded!: number;
  @ApiProperty({ description: 'true once everything received is refunded' }) refunded!: boolean;
  @ApiProperty({ nullable: true, type: String, example: 'card_declined' }) failure_code!: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'insufficient_funds' }) decline_code!: string | null;
  @ApiProperty({ nullable: true, type: String }) failure_message!: string | null;
  @ApiProperty() livemode!: boolean;
  @ApiProperty({ format: 'date-time' }) created!: string;
}

export class PaymentListView {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [PaymentView] }) data!: PaymentView[];
  @ApiProperty() has_more!: boolean;
  @ApiProperty({ example: '/v2/payments' }) url!: string;
}

export function paymentView(row: PaymentRow): PaymentView {
  return {
    id: row.id,
    object: 'payment',
    status: row.status as PaymentView['status'],
    amount: row.amount,
    currency: row.currency,
    customer_id: row.customerId,
    description: row.description,
    metadata: row.metadata as Metadata,
    payment_method: row.paymentMethod,
    capture_method: row.captureMethod as CaptureMethod,
    amount_capturable: row.amountCapturable,
    amount_received: row.amountReceived,
    capture_before: iso(row.captureBefore),
    captured_at: iso(row.capturedAt),
    canceled_at: iso(row.canceledAt),
    cancellation_reason: row.cancellationReason as CancellationReason | null,
    amount_refunded: row.amountRefunded,
    refunded: row.status === 'succeeded' && row.amountReceived > 0 && row.amountRefunded === row.amountReceived,
    failure_code: row.failureCode,
    decline_code: row.declineCode,
    failure_message: row.failureMessage,
    livemode: row.mode === 'live',
    created: row.createdAt.toISOString(),
  };
}

/** One UTC day's succeeded volume in one currency. */
export class PaymentVolumeDayView {
  @ApiProperty({ format: 'date', example: '2026-11-21', description: 'the UTC day the payments were created' })
  day!: string;
  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'gbp' }) currency!: string;
  @ApiProperty({ type: 'integer', description: 'minor units received (captured) by the succeeded payments of that day' })
  amount!: number;
  @ApiProperty({ type: 'integer', description: 'how many succeeded payments' }) count!: number;
}

/** GET /v2/payments/volume: succeeded volume per UTC day and currency; days without any are left out. */
export class PaymentVolumeView {
  @ApiProperty({ enum: ['payment_volume'] }) object!: 'payment_volume';
  @ApiProperty({ type: 'integer', example: 30 }) days!: number;
  @ApiProperty({ format: 'date', example: '2026-10-23', description: 'the first UTC day reported' }) since!: string;
  @ApiProperty({ format: 'date', example: '2026-11-21', description: 'the last UTC day reported (today)' }) until!: string;
  @ApiProperty({ nullable: true, enum: SUPPORTED_CURRENCIES, type: String, description: 'the currency filter, if any' })
  currency!: string | null;
  @ApiProperty({ type: [PaymentVolumeDayView], description: 'oldest day first, then by currency' })
  data!: PaymentVolumeDayView[];
}
