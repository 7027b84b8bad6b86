import type { Type } from '@nestjs/common';
import { jsonSchemaOf, type JsonSchema } from '@app/platform';

/**
 * One kind of event an app emits, as its catalogue (`GET …/webhook-endpoints/event-types`)
 * shows it. `data` is the response class whose `@ApiProperty` fields document the event's
 * `data` (its JSON Schema is derived from them, jsonSchemaOf); `example` builds an example
 * `data` with the same view function the emitting code calls, so that neither the schema
 * nor the example can drift from what is sent. Tests validate every example, and every
 * event the flows emit, against the schema.
 */
export interface WebhookEventKind<T extends object = object> {
  readonly type: string;
  readonly description: string;
  readonly data: Type<T>;
  readonly example: () => T;
}

/** Declares an event kind; `T` ties the example to the data class. */
export function eventKind<T extends object>(kind: WebhookEventKind<T>): WebhookEventKind<T> {
  return kind;
}

/** An event type: a dotted lowercase name such as `offer.opened`. */
export const EVENT_TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/** What the catalogue answers per kind. */
export interface WebhookEventTypeView {
  readonly object: 'webhook_event_type';
  readonly type: string;
  readonly description: string;
  /** JSON Schema (2020-12) of the envelope's `data`. */
  readonly schema: JsonSchema;
  /** A whole example envelope, as a receiver would get it. */
  readonly example: { readonly id: string; readonly event: string; readonly timestamp: string; readonly data: object };
}

/** Example envelopes carry this id and time (an example is not a real event). */
export const EXAMPLE_EVENT_ID = 'evt_example000000000000000000';
export const EXAMPLE_TIMESTAMP = '2026-01-15T09:30:00.000Z';

/** The catalogue of an app's kinds, built once at boot (a class its schema cannot express fails the boot). */
export function eventTypeViews(kinds: readonly WebhookEventKind[]): WebhookEventTypeView[] {
  return kinds.map((k) => {
    if (!EVENT_TYPE.test(k.type))
      throw new Error(`Webhook event type ${JSON.stringify(k.type)} must match ${String(EVENT_TYPE)}`);
    return {
      object: 'webhook_event_type',
      type: k.type,
      description: k.description,
      schema: jsonSchemaOf(k.data),
      example: { id: EXAMPLE_EVENT_ID, event: k.type, timestamp: EXAMPLE_TIMESTAMP, data: k.example() },
    };
  });
}
