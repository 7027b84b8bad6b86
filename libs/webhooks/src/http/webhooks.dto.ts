import { EmptyBodyAllowed, IsDisplayName, IsTimestamp, PageLimit } from '@app/platform';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { WEBHOOK_DELIVERY_STATUSES, type WebhookDeliveryStatus } from '../webhooks.types';
import type { StatsGranularity } from '../webhook-deliveries.service';

/** Highest `rate_limit_per_second` an endpoint may set. */
export const MAX_RATE_LIMIT = 10_000;
/** `created[gte]` / `created[lte]` take Unix seconds too (as Stripe's). */
export const CREATED_FILTER = { unixSeconds: true } as const;

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
    description:
      'Event kinds to receive (GET …/webhook-endpoints/event-types); "*" = every kind, also kinds added later. Omitted (or empty) = ["*"]',
    example: ['offer.opened'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  events?: string[];

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500, description: 'Free text for your own reference' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  @IsDisplayName()
  description?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: MAX_RATE_LIMIT,
    description: 'Deliveries per second at most to this endpoint; beyond it deliveries wait (never dropped). null = no limit',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_RATE_LIMIT)
  rate_limit_per_second?: number | null;
}

/** `PATCH …/webhook-endpoints/{id}`: any subset; null clears `description` and `rate_limit_per_second`. */
export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional({ format: 'uri', description: 'Checked as at creation (scheme, private addresses)' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ type: [String], description: 'Event kinds, or ["*"] for every kind (at least one)', example: ['*'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  events?: string[];

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  @IsDisplayName()
  description?: string | null;

  @ApiPropertyOptional({
    description: 'true disables the endpoint (nothing is sent; its deliveries fail); false enables it again',
  })
  @IsOptional()
  @IsBoolean()
  disabled?: boolean;

  @ApiPropertyOptional({ type: 'integer', nullable: true, minimum: 1, maximum: MAX_RATE_LIMIT, description: 'null = no limit' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_RATE_LIMIT)
  rate_limit_per_second?: number | null;
}

@EmptyBodyAllowed()
export class SendTestEventDto {
  @ApiPropertyOptional({
    description: 'The kind of example event to send (default: the first kind of the catalogue)',
    example: 'offer.opened',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  event?: string;
}

export class ListEventsQuery {
  @ApiPropertyOptional({
    description: "An event kind of this service's catalogue, every kind under a prefix (`<prefix>.*`), or `*`",
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  // The kinds and prefixes are the app's: WebhookEventsService checks them and names its own kinds.
  type?: string;

  @ApiPropertyOptional({ name: 'created[gte]', description: 'Only events created at or after this: ISO 8601 or Unix seconds' })
  @IsOptional()
  @IsTimestamp(CREATED_FILTER)
  'created[gte]'?: string;

  @ApiPropertyOptional({ name: 'created[lte]', description: 'Only events created at or before this: ISO 8601 or Unix seconds' })
  @IsOptional()
  @IsTimestamp(CREATED_FILTER)
  'created[lte]'?: string;

  @PageLimit(10)
  limit?: number;

  @ApiPropertyOptional({ description: 'An event id: the events created before it (the next page)' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  starting_after?: string;

  @ApiPropertyOptional({ description: 'An event id: the events created after it (the previous page)' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  ending_before?: string;
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

  @ApiPropertyOptional({ example: '2026-11-21T00:00:00Z', description: 'And created at or before this time (default: now)' })
  @IsOptional()
  @IsString()
  @IsTimestamp()
  until?: string;
}

const STATS_GRANULARITIES: readonly StatsGranularity[] = ['hour', 'day'];

export class WebhookEndpointStatsQuery {
  @ApiPropertyOptional({ enum: STATS_GRANULARITIES, default: 'hour', description: 'Bucket size (UTC hours or days)' })
  @IsOptional()
  @IsIn(STATS_GRANULARITIES)
  granularity?: StatsGranularity;

  @ApiPropertyOptional({
    example: '2026-11-25T00:00:00Z',
    description:
      'Start of the window, rounded down to its bucket (default: 24 hours before `until` by hour, 7 days by day); at most 744 hourly or 366 daily buckets',
  })
  @IsOptional()
  @IsTimestamp()
  since?: string;

  @ApiPropertyOptional({ example: '2026-11-26T00:00:00Z', description: 'End of the window, exclusive (default: now)' })
  @IsOptional()
  @IsTimestamp()
  until?: string;
}
