import { ApiProperty } from '@nestjs/swagger';
import type { Metadata } from '../../common/metadata';
import { SUPPORTED_CURRENCIES } from '../../common/money';
import { REFUND_REASONS } from './refund.dto';
import type { RefundRow } from '../refunds.repository';

/** Response shapes (Stripe-like). Timestamps are ISO 8601 UTC; amounts integers in minor units. */
export class RefundView {
  @ApiProperty({ example: 're_1Nispe...' }) id!: string;
  @ApiProperty({ enum: ['refund'] }) object!: 'refund';
  @ApiProperty() payment_id!: string;
  @ApiProperty({ type: 'integer', description: 'minor units' }) amount!: number;
  @ApiProperty({ enum: SUPPORTED_CURRENCIES }) currency!: string;
  @ApiProperty({ enum: ['succeeded'] }) status!: 'succeeded';
  @ApiProperty({ nullable: true, enum: REFUND_REASONS }) reason!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty({ format: 'date-time' }) created!: string;
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
    metadata: row.metadata as Metadata,
    created: row.createdAt.toISOString(),
  };
}
