import { Inject, Injectable } from '@nestjs/common';
import { Clock, type Closing, newId, type TraceCarrier } from '@app/platform';
import { WebhookOutboxRepository } from './webhook-outbox.repository';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from './webhooks.tokens';
import type { WebhookEventInput } from './webhooks.types';

/**
 * The transactional outbox's write side. Call `emit` with the Closing of the transaction
 * that makes the change the event reports: the event's row is written with that
 * transaction's last statement, so it exists if and only if the change committed, and the
 * dispatcher is notified at commit.
 *
 *     await transactions.run(async (tx, closing) => {
 *       const row = await repo.create(tx, ...);
 *       webhooks.emit(closing, { ownerType, ownerId, event: 'thing.created', data: view(row) }, currentTraceCarrier());
 *     });
 */
@Injectable()
export class WebhookEmitter {
  constructor(
    private readonly outbox: WebhookOutboxRepository,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly clock: Clock,
  ) {}

  /**
   * Returns the event id (`evt_…`, the envelope's `id` and the `webhook-id` header).
   * `trace`: the trace context the event's dispatch and deliveries continue — the caller's
   * `currentTraceCarrier()`, captured where the change is made (undefined: none).
   */
  emit(closing: Closing, input: WebhookEventInput, trace: TraceCarrier | undefined): string {
    if (input.ownerType !== this.options.ownerType) {
      throw new Error(`WebhookEmitter of ${this.options.ownerType} cannot emit for owner type ${input.ownerType}`);
    }
    if (input.event !== null && !this.options.eventTypes.includes(input.event)) {
      throw new Error(`Unknown webhook event type ${input.event}; add it to WebhooksModule.forRoot({ events })`);
    }
    if (input.dialect !== undefined && !(this.options.dialect?.eventTypes.includes(input.dialect.event) ?? false)) {
      throw new Error(`Unknown dialect event type ${input.dialect.event}; add it to WebhooksModule.forRoot({ dialect })`);
    }
    const id = newId('evt');
    closing.write(this.outbox.eventRow(id, input, this.clock.now(), trace));
    return id;
  }
}
