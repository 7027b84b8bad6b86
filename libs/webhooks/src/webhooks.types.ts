/**
 * Who owns an endpoint (and the events sent to it): a name the app chooses and passes to
 * `WebhooksModule.forRoot({ ownerType })`. Opaque to this library, which only stores and
 * compares it (and names the app's delivery queue after it).
 */
export type WebhookOwnerType = string;

/**
 * An endpoint's owner: the app's owner type and an id the app derives from the caller
 * (e.g. a tenant id, or a tenant id and a mode so that test and live endpoints and events
 * never mix, as Stripe).
 */
export interface WebhookOwner {
  readonly ownerType: WebhookOwnerType;
  readonly ownerId: string;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';
export const WEBHOOK_DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = ['pending', 'succeeded', 'failed'];

/**
 * What a service passes to `WebhookEmitter.emit`. `data` must be JSON. One event, stored
 * once: `event`/`data` as the service's own API shows it, and, for an app that also speaks a
 * second dialect (`WebhooksModule.forRoot({ dialect })`), `dialect` as that one shows it.
 * Either side may be absent (an event one API has and the other has not), not both.
 */
export type WebhookEventInput = WebhookOwner &
  (
    | {
        readonly event: string;
        readonly data: Readonly<Record<string, unknown>>;
        readonly dialect?: WebhookDialectEvent;
      }
    | { readonly event: null; readonly data: null; readonly dialect: WebhookDialectEvent }
  );

/** The same event in the app's second dialect: its type there and its data (JSON). */
export interface WebhookDialectEvent {
  readonly event: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** One event as a dialect's endpoints receive it. */
export interface DialectEventRecord {
  readonly id: string;
  /** The owner's id (the dialect may read the mode from it, say). */
  readonly ownerId: string;
  readonly event: string;
  readonly data: unknown;
  readonly createdAt: Date;
}

/**
 * A second wire dialect of the app's webhooks (Stripe's, for an app that also speaks Stripe's
 * API): its endpoints (a `dialect` column) receive only the events that have a dialect side,
 * as `body` renders them and signed as `headers` says, with the same retries, fairness and
 * at-least-once guarantees as the service's own endpoints. Provided by the app: this library
 * knows no dialect.
 */
export interface WebhookDialect {
  /** Stored in webhook_endpoints.dialect (≤ 16 characters). */
  readonly name: string;
  /** Every dialect event type the app emits; endpoint filters may only name these (or `*`). */
  readonly eventTypes: readonly string[];
  /** The exact body of every attempt of an event (the same bytes each time). */
  body(event: DialectEventRecord): string;
  /**
   * The headers of one attempt (content type included): `secrets` is the endpoint's current
   * secret, then a rotated-out one still in its grace period.
   */
  headers(
    secrets: readonly [string, ...string[]],
    eventId: string,
    timestampSeconds: number,
    body: string,
  ): Record<string, string>;
}

/** The body POSTed to receivers (docs/webhooks.md). */
export interface WebhookEnvelope {
  readonly id: string;
  readonly event: string;
  readonly timestamp: string;
  readonly data: unknown;
  /** Only on test events (POST …/webhook-endpoints/{id}/test). */
  readonly test?: true;
}

/**
 * Which endpoints a read or write may see: the owner's, of one dialect. `dialect: null` = the
 * service's own API (its `/…/webhook-endpoints` routes), which never sees an endpoint of a
 * dialect, and a dialect's routes never see the own API's.
 */
export interface WebhookEndpointScope extends WebhookOwner {
  readonly dialect: string | null;
}

/** The own API's scope of an owner. */
export function ownScope(owner: WebhookOwner): WebhookEndpointScope {
  return { ownerType: owner.ownerType, ownerId: owner.ownerId, dialect: null };
}

/** Free-form string pairs of a dialect endpoint (the own API's routes neither show nor take them). */
export type WebhookEndpointMetadata = Readonly<Record<string, string>>;

export interface WebhookEndpointRecord extends WebhookOwner {
  readonly id: string;
  /** null: an endpoint of the service's own API; else the dialect whose events (and shape) it gets. */
  readonly dialect: string | null;
  readonly metadata: WebhookEndpointMetadata;
  readonly url: string;
  /** Event kinds delivered; `*` = all (also kinds added later). */
  readonly events: readonly string[];
  readonly description: string | null;
  /** Deliveries per second at most, shared by every worker; null = no limit. */
  readonly rateLimitPerSecond: number | null;
  readonly secret: string;
  readonly previousSecret: string | null;
  readonly previousSecretExpiresAt: Date | null;
  readonly disabledAt: Date | null;
  readonly disabledReason: string | null;
  readonly failingSince: Date | null;
  readonly createdAt: Date;
}

export interface WebhookAttemptRecord {
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly responseExcerpt: string | null;
  readonly createdAt: Date;
}

export interface WebhookDeliveryRecord {
  readonly id: string;
  readonly endpointId: string;
  readonly eventId: string;
  readonly event: string;
  readonly status: WebhookDeliveryStatus;
  readonly attemptCount: number;
  readonly nextAttemptAt: Date | null;
  readonly lastAttemptAt: Date | null;
  readonly createdAt: Date;
  readonly attempts: readonly WebhookAttemptRecord[];
}

/** API representation of an endpoint. `secret` only in the answers of create and rotate-secret. */
export interface WebhookEndpointView {
  readonly id: string;
  readonly object: 'webhook_endpoint';
  readonly url: string;
  readonly events: readonly string[];
  readonly description: string | null;
  readonly rate_limit_per_second: number | null;
  readonly status: 'enabled' | 'disabled';
  readonly disabled_reason: string | null;
  readonly failing_since: string | null;
  readonly created_at: string;
  readonly secret?: string;
  /** While a rotated-out secret still signs (rotate-secret answer and later reads). */
  readonly previous_secret_expires_at?: string | null;
}

export interface WebhookAttemptView {
  readonly status_code: number | null;
  readonly duration_ms: number;
  readonly error: string | null;
  readonly response_excerpt: string | null;
  readonly created_at: string;
}

export interface WebhookDeliveryView {
  readonly id: string;
  readonly object: 'webhook_delivery';
  readonly endpoint_id: string;
  readonly event_id: string;
  readonly event: string;
  readonly status: WebhookDeliveryStatus;
  readonly attempt_count: number;
  readonly next_attempt_at: string | null;
  readonly last_attempt_at: string | null;
  readonly created_at: string;
  readonly attempts: readonly WebhookAttemptView[];
}

export interface ListView<T> {
  readonly object: 'list';
  readonly data: readonly T[];
  readonly has_more: boolean;
}
