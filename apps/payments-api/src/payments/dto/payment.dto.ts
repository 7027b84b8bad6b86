import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { EmptyBodyAllowed, IsTimestamp } from '@app/platform';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ListQuery } from '../../common/list';
import { IsMetadata, METADATA_SCHEMA, METADATA_UPDATE_SCHEMA, type Metadata, type MetadataUpdate } from '../../common/metadata';
import { type Currency, MAX_AMOUNT, SUPPORTED_CURRENCIES } from '../../common/money';
import {
  CAPTURE_METHODS,
  type CaptureMethod,
  PAYMENT_STATUSES,
  type PaymentStatus,
  REQUESTED_CANCELLATION_REASONS,
} from './payment.view';

export class PaymentCreateDto {
  @ApiProperty({ description: 'Minor currency units (pence, cents)', minimum: 1, maximum: MAX_AMOUNT, example: 2000 })
  @IsInt()
  @Min(1)
  @Max(MAX_AMOUNT)
  amount!: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'gbp', description: 'Lowercase ISO 4217' })
  @IsString()
  @IsIn(SUPPORTED_CURRENCIES, { message: `currency must be one of (lowercase): ${SUPPORTED_CURRENCIES.join(', ')}` })
  currency!: Currency;

  @ApiProperty({ example: 'cus_Nv0rWm6Qx2...' })
  @IsString()
  @MaxLength(64)
  customer_id!: string;

  @ApiPropertyOptional({ maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  @ApiPropertyOptional(METADATA_SCHEMA)
  @IsOptional()
  @IsMetadata()
  metadata?: Metadata;

  @ApiPropertyOptional({ example: 'pm_card_visa', description: 'Test mode: see docs/payments.md. Default pm_card_visa.' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  payment_method?: string;

  @ApiPropertyOptional({
    enum: CAPTURE_METHODS,
    default: 'automatic',
    description: 'manual: only authorize (status requires_capture); capture or cancel later (docs/payments.md)',
  })
  @IsOptional()
  @IsIn(CAPTURE_METHODS)
  capture_method?: CaptureMethod;
}

/** `POST /v2/payments/{id}`: Stripe's update; metadata merges (a key set to "" or null is removed; `metadata: null` clears all). */
@EmptyBodyAllowed()
export class PaymentUpdateDto {
  @ApiPropertyOptional({ maxLength: 1000, nullable: true, type: String, description: 'null or "" clears it' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;

  @ApiPropertyOptional(METADATA_UPDATE_SCHEMA)
  @IsOptional()
  @IsMetadata({ update: true })
  metadata?: MetadataUpdate | null;
}

@EmptyBodyAllowed()
export class PaymentCaptureDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_AMOUNT,
    description: 'Minor units to capture, at most amount_capturable (default: all of it); the rest is released',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_AMOUNT)
  amount_to_capture?: number;
}

@EmptyBodyAllowed()
export class PaymentCancelDto {
  @ApiPropertyOptional({ enum: REQUESTED_CANCELLATION_REASONS })
  @IsOptional()
  @IsIn(REQUESTED_CANCELLATION_REASONS)
  cancellation_reason?: (typeof REQUESTED_CANCELLATION_REASONS)[number];
}

/** `created[gte]` / `created[lte]`: Unix seconds too (parsed with the same options in PaymentsService). */
export const CREATED_FILTER = { unixSeconds: true } as const;

export class PaymentListQuery extends ListQuery {
  @ApiPropertyOptional({ description: 'Only payments of this customer' })
  @IsOptional()
  @IsString()
  customer_id?: string;

  @ApiPropertyOptional({ enum: PAYMENT_STATUSES, description: 'Only payments with this status' })
  @IsOptional()
  @IsIn(PAYMENT_STATUSES)
  status?: PaymentStatus;

  @ApiPropertyOptional({ name: 'created[gte]', description: 'ISO 8601 timestamp or Unix seconds' })
  @IsOptional()
  @IsTimestamp(CREATED_FILTER)
  'created[gte]'?: string;

  @ApiPropertyOptional({ name: 'created[lte]', description: 'ISO 8601 timestamp or Unix seconds' })
  @IsOptional()
  @IsTimestamp(CREATED_FILTER)
  'created[lte]'?: string;
}

/** The longest window GET /v2/payments/volume answers (days, ending today, UTC). */
export const MAX_VOLUME_DAYS = 90;

export class PaymentVolumeQuery {
  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_VOLUME_DAYS,
    default: 30,
    description: 'How many UTC days, ending with today, to report',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_VOLUME_DAYS)
  days?: number;

  @ApiPropertyOptional({ enum: SUPPORTED_CURRENCIES, description: 'Only this currency' })
  @IsOptional()
  @IsIn(SUPPORTED_CURRENCIES, { message: `currency must be one of (lowercase): ${SUPPORTED_CURRENCIES.join(', ')}` })
  currency?: Currency;
}
