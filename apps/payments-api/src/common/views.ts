import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Response shapes (Stripe-like). Timestamps are ISO 8601 UTC; amounts integers in minor units. */
export class CustomerView {
  @ApiProperty({ example: 'cus_Nv0rWm6Qx2...' }) id!: string;
  @ApiProperty({ enum: ['customer'] }) object!: 'customer';
  @ApiPropertyOptional({ nullable: true, type: String }) email!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) name!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) description!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty({ description: 'false for test mode' }) livemode!: boolean;
  @ApiProperty({ example: '2026-11-21T05:00:00.000Z' }) created!: string;
}

export class DeletedCustomerView {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['customer'] }) object!: 'customer';
  @ApiProperty({ enum: [true] }) deleted!: true;
}

export class PaymentView {
  @ApiProperty({ example: 'pay_3MtwBw...' }) id!: string;
  @ApiProperty({ enum: ['payment'] }) object!: 'payment';
  @ApiProperty({ enum: ['succeeded', 'failed'] }) status!: 'succeeded' | 'failed';
  @ApiProperty({ description: 'minor units' }) amount!: number;
  @ApiProperty({ example: 'gbp' }) currency!: string;
  @ApiProperty() customer_id!: string;
  @ApiPropertyOptional({ nullable: true, type: String }) description!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty({ example: 'pm_card_visa' }) payment_method!: string;
  @ApiProperty({ description: 'minor units refunded so far' }) amount_refunded!: number;
  @ApiProperty({ description: 'true once fully refunded' }) refunded!: boolean;
  @ApiPropertyOptional({ nullable: true, type: String, example: 'card_declined' }) failure_code!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: 'insufficient_funds' }) decline_code!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) failure_message!: string | null;
  @ApiProperty() livemode!: boolean;
  @ApiProperty() created!: string;
}

export class RefundView {
  @ApiProperty({ example: 're_1Nispe...' }) id!: string;
  @ApiProperty({ enum: ['refund'] }) object!: 'refund';
  @ApiProperty() payment_id!: string;
  @ApiProperty({ description: 'minor units' }) amount!: number;
  @ApiProperty() currency!: string;
  @ApiProperty({ enum: ['succeeded'] }) status!: 'succeeded';
  @ApiPropertyOptional({ nullable: true, enum: ['duplicate', 'fraudulent', 'requested_by_customer'] }) reason!: string | null;
  @ApiProperty() created!: string;
}

export class CustomerListView {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [CustomerView] }) data!: CustomerView[];
  @ApiProperty() has_more!: boolean;
  @ApiProperty({ example: '/v2/customers' }) url!: string;
}

export class PaymentListView {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [PaymentView] }) data!: PaymentView[];
  @ApiProperty() has_more!: boolean;
  @ApiProperty({ example: '/v2/payments' }) url!: string;
}

export class RefundListView {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [RefundView] }) data!: RefundView[];
  @ApiProperty() has_more!: boolean;
  @ApiProperty({ example: '/v2/refunds' }) url!: string;
}
