import { ApiProperty } from '@nestjs/swagger';
import { SUPPORTED_CURRENCIES } from '../../common/money';
import type { Metadata } from '../../common/metadata';
import type { PaymentRow } from '../payments.repository';

/** Response shapes (Stripe-like). Timestamps are ISO 8601 UTC; amounts integers in minor units. */
export class PaymentView {
  @ApiProperty({ example: 'pay_3MtwBw...' }) id!: string;
  @ApiProperty({ enum: ['payment'] }) object!: 'payment';
  @ApiProperty({ enum: ['succeeded', 'failed'] }) status!: 'succeeded' | 'failed';
  @ApiProperty({ type: 'integer', description: 'minor units' }) amount!: number;
  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'gbp' }) currency!: string;
  @ApiProperty() customer_id!: string;
  @ApiProperty({ nullable: true, type: String }) description!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty({ example: 'pm_card_visa' }) payment_method!: string;
  @ApiProperty({ type: 'integer', description: 'minor units refunded so far' }) amount_refunded!: number;
  @ApiProperty({ description: 'true once fully refunded' }) refunded!: boolean;
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
    amount_refunded: row.amountRefunded,
    refunded: row.amountRefunded === row.amount && row.status === 'succeeded',
    failure_code: row.failureCode,
    decline_code: row.declineCode,
    failure_message: row.failureMessage,
    livemode: row.mode === 'live',
    created: row.createdAt.toISOString(),
  };
}
