/**
 * The events `/v1` shows, named as Stripe names them (docs/stripe.md). Each is stored once,
 * in the same row as its `/v2` kind where it has one (PaymentEvents): `/v1/events` and `/v1`
 * webhook endpoints see these names and `/v1` objects, `/v2` sees its own kinds. No Charge is
 * modelled, so there are no `charge.*` events.
 */
export const STRIPE_EVENT_TYPES = [
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'payment_intent.created',
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.amount_capturable_updated',
  'payment_intent.canceled',
  'refund.created',
  'refund.updated',
] as const;

export type StripeEventType = (typeof STRIPE_EVENT_TYPES)[number];

/**
 * One event as `/v1` shows it: its type and `data` (`object`: the `/v1` object as it is
 * after the change; `previous_attributes`: on `*.updated`, the changed fields' values before).
 */
export interface StripeEventInput {
  readonly type: StripeEventType;
  readonly object: Readonly<Record<string, unknown>>;
  readonly previousAttributes?: Readonly<Record<string, unknown>>;
}

/** The `data` stored for an event's `/v1` side (webhook_events.dialect_data). */
export function stripeEventData(input: StripeEventInput): Record<string, unknown> {
  return {
    object: input.object,
    ...(input.previousAttributes === undefined ? {} : { previous_attributes: input.previousAttributes }),
  };
}
