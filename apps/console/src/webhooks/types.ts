/** The webhook routes' answers (libs/webhooks, docs/webhooks.md), as the console reads them. */

export interface WebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  events: string[];
  description: string | null;
  rate_limit_per_second: number | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
  previous_secret_expires_at: string | null;
  /** Only in the answers of create and rotate-secret. */
  secret?: string;
}

export interface WebhookAttempt {
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
  created_at: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDelivery {
  id: string;
  object: 'webhook_delivery';
  endpoint_id: string;
  event_id: string;
  event: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  created_at: string;
  attempts: WebhookAttempt[];
}

export interface WebhookEventType {
  object: 'webhook_event_type';
  type: string;
  description: string;
  schema: Record<string, unknown>;
  example: Record<string, unknown>;
}

export interface WebhookRecovery {
  object: 'webhook_recovery';
  endpoint_id: string;
  since: string;
  until: string | null;
  requeued: number;
}

export type StatsGranularity = 'hour' | 'day';

export interface WebhookEndpointStats {
  object: 'webhook_endpoint_stats';
  endpoint_id: string;
  granularity: StatsGranularity;
  since: string;
  until: string;
  buckets: Array<{ start: string; succeeded: number; failed: number }>;
}

/** Where a console mounts the pages: the API's prefix and the console path. */
export interface WebhookPaths {
  readonly apiBase: '/api/v1' | '/v2';
  readonly pathBase: string;
}

export const endpointsApi = (p: WebhookPaths): string => `${p.apiBase}/webhook-endpoints`;
