import type { WebhookEndpointRecord, WebhookEndpointScope } from '@app/webhooks';
import type { PaymentsKeyPrincipal } from '../../../accounts/payments-key.principal';
import { PAYMENTS_WEBHOOK_OWNER, paymentsOwnerId } from '../../../webhook-endpoints/webhook-owner';
import { STRIPE_API_VERSION, STRIPE_WEBHOOK_DIALECT } from '../stripe-webhook-dialect';

/** Stripe's WebhookEndpoint object (`secret` in the answer of create only). */
export interface StripeWebhookEndpoint {
  readonly id: string;
  readonly object: 'webhook_endpoint';
  readonly api_version: string;
  readonly application: null;
  readonly created: number;
  readonly description: string | null;
  readonly enabled_events: readonly string[];
  readonly livemode: boolean;
  readonly metadata: Readonly<Record<string, string>>;
  readonly secret?: string;
  readonly status: 'enabled' | 'disabled';
  readonly url: string;
}

/**
 * The key's `/v1` webhook endpoints: its account's in its mode, of Stripe's dialect (never a
 * `/v2` endpoint, which is the same owner's with dialect null).
 */
export function stripeEndpointScope(key: PaymentsKeyPrincipal): WebhookEndpointScope {
  return {
    ownerType: PAYMENTS_WEBHOOK_OWNER,
    ownerId: paymentsOwnerId(key.accountId, key.mode),
    dialect: STRIPE_WEBHOOK_DIALECT.name,
  };
}

/**
 * A `/v1` endpoint as Stripe shows it. `api_version` is the version its events are rendered in
 * (STRIPE_API_VERSION, the only one this server speaks), whatever the create asked for.
 */
export function stripeWebhookEndpoint(e: WebhookEndpointRecord, livemode: boolean, withSecret = false): StripeWebhookEndpoint {
  return {
    id: e.id,
    object: 'webhook_endpoint',
    api_version: STRIPE_API_VERSION,
    application: null,
    created: Math.floor(e.createdAt.getTime() / 1000),
    description: e.description,
    enabled_events: [...e.events],
    livemode,
    metadata: { ...e.metadata },
    ...(withSecret ? { secret: e.secret } : {}),
    status: e.disabledAt === null ? 'enabled' : 'disabled',
    url: e.url,
  };
}

/** The OpenAPI schema of a `/v1` webhook endpoint. */
export const STRIPE_WEBHOOK_ENDPOINT_SCHEMA = {
  type: 'object',
  required: ['id', 'object', 'api_version', 'created', 'enabled_events', 'livemode', 'metadata', 'status', 'url'],
  properties: {
    id: { type: 'string', example: 'we_5xZ3kYH8o2Ww9hTq1rN4' },
    object: { type: 'string', enum: ['webhook_endpoint'] },
    api_version: { type: 'string', description: 'The version its events are rendered in' },
    application: { type: 'string', nullable: true },
    created: { type: 'integer', description: 'Unix seconds' },
    description: { type: 'string', nullable: true },
    enabled_events: { type: 'array', items: { type: 'string' } },
    livemode: { type: 'boolean' },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
    secret: { type: 'string', description: 'whsec_…, in the answer of create only' },
    status: { type: 'string', enum: ['enabled', 'disabled'] },
    url: { type: 'string' },
  },
} as const;

/** The OpenAPI schema of a `/v1` event. */
export const STRIPE_EVENT_SCHEMA = {
  type: 'object',
  required: ['id', 'object', 'api_version', 'created', 'data', 'livemode', 'pending_webhooks', 'request', 'type'],
  properties: {
    id: { type: 'string' },
    object: { type: 'string', enum: ['event'] },
    api_version: { type: 'string' },
    created: { type: 'integer', description: 'Unix seconds' },
    data: {
      type: 'object',
      properties: { object: { type: 'object' }, previous_attributes: { type: 'object' } },
    },
    livemode: { type: 'boolean' },
    pending_webhooks: { type: 'integer' },
    request: {
      type: 'object',
      properties: { id: { type: 'string', nullable: true }, idempotency_key: { type: 'string', nullable: true } },
    },
    type: { type: 'string' },
  },
} as const;
