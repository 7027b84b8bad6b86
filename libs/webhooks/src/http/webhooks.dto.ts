import { IsTimestamp, PageLimit } from '@app/platform';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { WEBHOOK_DELIVERY_STATUSES, type WebhookDeliveryStatus } from '../webhooks.types';

export class CreateWebhookEndpointDto {
  @ApiProperty({
    format: 'uri',
    example: 'https://partner.example.com/webhooks',
    description: 'http or https (https required in production); not a private or metadata address',
  })
  @IsString()
  @MaxLength(2048)
  url!: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'Event types to receive; omitted or empty = all',
    example: ['offer.opened'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  events?: string[];
}

export class ListWebhookDeliveriesQuery {
  @ApiPropertyOptional({ enum: WEBHOOK_DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(WEBHOOK_DELIVERY_STATUSES)
  status?: WebhookDeliveryStatus;

  @PageLimit(20)
  limit?: number;

  @ApiPropertyOptional({ description: 'Cursor: a delivery id from the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  starting_after?: string;
}

export class RecoverWebhookDeliveriesDto {
  @ApiProperty({ example: '2026-11-20T00:00:00Z', description: 'Redeliver every failed delivery created at or after this time' })
  @IsString()
  @IsTimestamp()
  since!: string;
}
