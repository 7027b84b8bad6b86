import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { RefundRow } from '../refunds.repository';

/** Response shapes (Stripe-like). Timestamps are ISO 8601 UTC; amounts integers in minor units. */
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

export class RefundListView {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [RefundView] }) data!: RefundView[];
  @ApiProperty() has_more!: boolean;
  @ApiProperty({ example: '/v2/refunds' }) url!: string;
}

export function refundView(row: RefundRow): RefundView {
  return {
    id: row.id,
    object: 'refund',
    payment_id: row.paymentId,
    amount: row.amount,
    currency: row.currency,
    status: 'succeeded',
    reason: row.reason,
    created: row.createdAt.toISOString(),
  };
}
