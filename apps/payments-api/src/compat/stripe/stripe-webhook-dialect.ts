import { createHmac } from 'node:crypto';
import type { DialectEventRecord, WebhookDialect } from '@app/webhooks';
import { STRIPE_EVENT_TYPES } from './stripe-event-types';

/** The API version `/v1` answers as (the `stripe` SDK 23's pinned version); echoed when the caller sends another. */
export const STRIPE_API_VERSION = '2026-10-28.endive';

/** An event as Stripe's API shows it (`GET /v1/events/{id}` and the body of a `/v1` delivery). */
export function stripeEventObject(event: DialectEventRecord): Record<string, unknown> {
  return {
    id: event.id,
    object: 'event',
    api_version: STRIPE_API_VERSION,
    created: Math.floor(event.createdAt.getTime() / 1000),
    data: event.data,
    livemode: event.ownerId.endsWith(':live'),
    pending_webhooks: 0,
    request: { id: null, idempotency_key: null },
    type: event.event,
  };
}

/**
 * `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, keyed with the
 * endpoint's `whsec_…` secret as UTF-8 (as Stripe signs and `stripe.webhooks.constructEvent`
 * checks). During a secret rotation's grace the old secret's signature is a second `v1=`.
 */
export function stripeSignatureHeader(secrets: readonly string[], timestampSeconds: number, body: string): string {
  const signatures = secrets.map(
    (s) => `v1=${createHmac('sha256', s).update(`${timestampSeconds}.${body}`, 'utf8').digest('hex')}`,
  );
  return [`t=${timestampSeconds}`, ...signatures].join(',');
}

/** Stripe's webhook dialect: `/v1` endpoints get `/v1` events, in Stripe's event shape, signed Stripe's way. */
export const STRIPE_WEBHOOK_DIALECT: WebhookDialect = {
  name: 'stripe',
  eventTypes: STRIPE_EVENT_TYPES,
  body: (event) => JSON.stringify(stripeEventObject(event)),
  headers: (secrets, _eventId, timestampSeconds, body) => ({
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
    'stripe-signature': stripeSignatureHeader(secrets, timestampSeconds, body),
  }),
};
