import type {
  WebhookAttemptRecord,
  WebhookAttemptView,
  WebhookDeliveryRecord,
  WebhookDeliveryView,
  WebhookEndpointRecord,
  WebhookEndpointView,
} from './webhooks.types';

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/** The API shape of an endpoint; the secret only when `withSecret` (create, rotate-secret). */
export function endpointView(e: WebhookEndpointRecord, now: Date, withSecret = false): WebhookEndpointView {
  const graceActive = e.previousSecretExpiresAt !== null && e.previousSecretExpiresAt > now;
  return {
    id: e.id,
    object: 'webhook_endpoint',
    url: e.url,
    events: e.events,
    description: e.description,
    rate_limit_per_second: e.rateLimitPerSecond,
    status: e.disabledAt === null ? 'enabled' : 'disabled',
    disabled_reason: e.disabledReason,
    failing_since: iso(e.failingSince),
    created_at: e.createdAt.toISOString(),
    previous_secret_expires_at: graceActive ? iso(e.previousSecretExpiresAt) : null,
    ...(withSecret ? { secret: e.secret } : {}),
  };
}

function attemptView(a: WebhookAttemptRecord): WebhookAttemptView {
  return {
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    error: a.error,
    response_excerpt: a.responseExcerpt,
    created_at: a.createdAt.toISOString(),
  };
}

export function deliveryView(d: WebhookDeliveryRecord): WebhookDeliveryView {
  return {
    id: d.id,
    object: 'webhook_delivery',
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event: d.event,
    status: d.status,
    attempt_count: d.attemptCount,
    next_attempt_at: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
    last_attempt_at: iso(d.lastAttemptAt),
    created_at: d.createdAt.toISOString(),
    attempts: d.attempts.map(attemptView),
  };
}
