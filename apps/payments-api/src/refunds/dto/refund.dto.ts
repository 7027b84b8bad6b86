import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ListQuery } from '../../common/list';
import { IsMetadata, METADATA_SCHEMA, METADATA_UPDATE_SCHEMA, type Metadata, type MetadataUpdate } from '../../common/metadata';
import { MAX_AMOUNT } from '../../common/money';

export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;

export class RefundCreateDto {
  @ApiProperty({ example: 'pay_3MtwBw...' })
  @IsString()
  @MaxLength(64)
  payment_id!: string;

  @ApiPropertyOptional({ description: 'Minor units; defaults to what is left to refund', minimum: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_AMOUNT)
  amount?: number;

  @ApiPropertyOptional({ enum: REFUND_REASONS })
  @IsOptional()
  @IsIn(REFUND_REASONS)
  reason?: (typeof REFUND_REASONS)[number];

  @ApiPropertyOptional(METADATA_SCHEMA)
  @IsOptional()
  @IsMetadata()
  metadata?: Metadata;
}

/** `POST /v2/refunds/{id}`: only metadata can change (Stripe), merged as on payments. */
export class RefundUpdateDto {
  @ApiPropertyOptional(METADATA_UPDATE_SCHEMA)
  @IsOptional()
  @IsMetadata({ update: true })
  metadata?: MetadataUpdate | null;
}

export class RefundListQuery extends ListQuery {
  @ApiPropertyOptional({ description: 'Only refunds of this payment' })
  @IsOptional()
  @IsString()
  payment_id?: string;
}
