import { ApiProperty } from '@nestjs/swagger';
import { WEBHOOK_DELIVERY_STATUSES, type WebhookDeliveryStatus } from '../webhooks.types';

/** The answers of the webhook-endpoint routes (webhooks.types.ts, webhooks.views.ts), as OpenAPI schemas. */

export class WebhookEndpointDto {
  @ApiProperty({ example: 'we_…' }) id!: string;
  @ApiProperty({ enum: ['webhook_endpoint'] }) object!: 'webhook_endpoint';
  @ApiProperty({ example: 'https://partner.example.com/webhooks' }) url!: string;
  @ApiProperty({ type: [String], description: 'Event kinds it receives; ["*"] = every kind', example: ['*'] }) events!: string[];
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Deliveries per second at most; null = no limit' })
  rate_limit_per_second!: number | null;
  @ApiProperty({ enum: ['enabled', 'disabled'] }) status!: 'enabled' | 'disabled';
  @ApiProperty({ type: String, nullable: true, description: 'Why it was disabled (e.g. the receiver answered 410 Gone)' })
  disabled_reason!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Since when its deliveries fail' })
  failing_since!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Until when the rotated-out secret also signs; null outside a grace period',
  })
  previous_secret_expires_at!: string | null;
}

/** An endpoint with its signing secret: the answer of create and rotate-secret only. */
export class WebhookEndpointWithSecretDto extends WebhookEndpointDto {
  @ApiProperty({ example: 'whsec_…', description: 'The signing secret; shown only in this answer' }) secret!: string;
}

export class WebhookEndpointListDto {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [WebhookEndpointDto] }) data!: WebhookEndpointDto[];
  @ApiProperty() has_more!: boolean;
}

export class WebhookEndpointDeletedDto {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['webhook_endpoint'] }) object!: 'webhook_endpoint';
  @ApiProperty({ enum: [true] }) deleted!: true;
}

export class WebhookAttemptDto {
  @ApiProperty({ type: 'integer', nullable: true, description: "The receiver's status; null when it did not answer" })
  status_code!: number | null;
  @ApiProperty({ type: 'integer' }) duration_ms!: number;
  @ApiProperty({ type: String, nullable: true, description: 'Why the attempt failed without a status (timeout, refused, ...)' })
  error!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The start of the answer body' }) response_excerpt!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class WebhookDeliveryDto {
  @ApiProperty({ example: 'dlv_…' }) id!: string;
  @ApiProperty({ enum: ['webhook_delivery'] }) object!: 'webhook_delivery';
  @ApiProperty() endpoint_id!: string;
  @ApiProperty({ example: 'evt_…' }) event_id!: string;
  @ApiProperty({ example: 'offer.opened' }) event!: string;
  @ApiProperty({ enum: WEBHOOK_DELIVERY_STATUSES }) status!: WebhookDeliveryStatus;
  @ApiProperty({ type: 'integer' }) attempt_count!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When a pending delivery is tried next' })
  next_attempt_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_attempt_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: [WebhookAttemptDto] }) attempts!: WebhookAttemptDto[];
}

export class WebhookDeliveryListDto {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [WebhookDeliveryDto] }) data!: WebhookDeliveryDto[];
  @ApiProperty() has_more!: boolean;
}

export class WebhookRecoveryDto {
  @ApiProperty({ enum: ['webhook_recovery'] }) object!: 'webhook_recovery';
  @ApiProperty() endpoint_id!: string;
  @ApiProperty({ format: 'date-time' }) since!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) until!: string | null;
  @ApiProperty({ type: 'integer', description: 'Failed deliveries queued again' }) requeued!: number;
}

export class WebhookEventTypeDto {
  @ApiProperty({ enum: ['webhook_event_type'] }) object!: 'webhook_event_type';
  @ApiProperty({ example: 'offer.opened' }) type!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: "JSON Schema (2020-12) of the event's `data`" })
  schema!: Record<string, unknown>;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'An example envelope: {id, event, timestamp, data}',
  })
  example!: Record<string, unknown>;
}

export class WebhookEventTypeListDto {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [WebhookEventTypeDto] }) data!: WebhookEventTypeDto[];
  @ApiProperty() has_more!: boolean;
}

/** An event of the events API: the webhook envelope plus `object`. */
export class EventDto {
  @ApiProperty({ example: 'evt_…' }) id!: string;
  @ApiProperty({ enum: ['event'] }) object!: 'event';
  @ApiProperty({ example: 'offer.opened' }) event!: string;
  @ApiProperty({ format: 'date-time' }) timestamp!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'As in the webhook (GET …/webhook-endpoints/event-types)',
  })
  data!: Record<string, unknown>;
}

export class EventListDto {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [EventDto], description: 'Newest first' }) data!: EventDto[];
  @ApiProperty() has_more!: boolean;
}

export class WebhookStatsBucketDto {
  @ApiProperty({ format: 'date-time', description: 'Start of the bucket (UTC hour or day)' }) start!: string;
  @ApiProperty({ type: 'integer', description: 'Attempts answered with a 2xx' }) succeeded!: number;
  @ApiProperty({ type: 'integer', description: 'Attempts that failed: another status, or no answer' }) failed!: number;
}

export class WebhookEndpointStatsDto {
  @ApiProperty({ enum: ['webhook_endpoint_stats'] }) object!: 'webhook_endpoint_stats';
  @ApiProperty() endpoint_id!: string;
  @ApiProperty({ enum: ['hour', 'day'] }) granularity!: 'hour' | 'day';
  @ApiProperty({ format: 'date-time', description: 'Start of the first bucket' }) since!: string;
  @ApiProperty({ format: 'date-time', description: 'End of the window (exclusive)' }) until!: string;
  @ApiProperty({ type: [WebhookStatsBucketDto], description: 'Every bucket of the window, oldest first (zeros included)' })
  buckets!: WebhookStatsBucketDto[];
}
