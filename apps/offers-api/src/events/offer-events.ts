import type { PrismaTx } from '@app/platform';

/** Every webhook event offers-api emits (offers-distribution.md "Events"). */
export const OFFER_EVENT_TYPES = [
  'offer.opened',
  'offer.closing_soon',
  'offer.closed',
  'indication.received',
  'allocation.confirmed',
  'allocation.scaled',
] as const;
export type OfferEventType = (typeof OFFER_EVENT_TYPES)[number];

export interface OfferEvent {
  /** The partner the event is for (its webhook endpoints receive it). */
  readonly partnerId: string;
  readonly event: OfferEventType;
  /** A JSON object (a response view): the event's `data`. */
  readonly data: object;
}

/**
 * The port through which the domain reports events. `emit` must be called inside the
 * transaction that makes the change (transactional outbox): the event exists if and only
 * if the change committed. Implemented by libs/webhooks' WebhookEmitter.
 */
export abstract class OfferEvents {
  abstract emit(tx: PrismaTx, event: OfferEvent): Promise<void>;
}
