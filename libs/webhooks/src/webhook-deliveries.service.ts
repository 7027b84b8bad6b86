import { Injectable, Logger } from '@nestjs/common';
import { Clock, NotFoundError, TransactionRunner } from '@app/platform';
import { DeliveryQueue } from './delivery/delivery-queue';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import type { ListView, WebhookDeliveryStatus, WebhookDeliveryView, WebhookOwner } from './webhooks.types';
import { deliveryView } from './webhooks.views';
import { WebhooksError } from './webhooks.errors';

export interface ListDeliveriesInput {
  readonly status?: WebhookDeliveryStatus | undefined;
  readonly limit?: number | undefined;
  readonly startingAfter?: string | undefined;
}

export interface RecoveryView {
  readonly object: 'webhook_recovery';
  readonly endpoint_id: string;
  readonly since: string;
  readonly requeued: number;
}

/** The owner-facing delivery log: list, redeliver one, recover every failure since a time. */
@Injectable()
export class WebhookDeliveriesService {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly repository: WebhookDeliveriesRepository,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly transactions: TransactionRunner,
    private readonly queue: DeliveryQueue,
    private readonly clock: Clock,
  ) {}

  async list(owner: WebhookOwner, endpointId: string, input: ListDeliveriesInput = {}): Promise<ListView<WebhookDeliveryView>> {
    await this.endpointOf(owner, endpointId, false);
    const { data, hasMore } = await this.repository.listDeliveries(owner, endpointId, {
      limit: input.limit ?? 20,
      ...(input.status === undefined ? {} : { status: input.status }),
      ...(input.startingAfter === undefined ? {} : { startingAfter: input.startingAfter }),
    });
    return { object: 'list', data: data.map(deliveryView), has_more: hasMore };
  }

  async get(owner: WebhookOwner, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView> {
    const delivery = await this.repository.findDelivery(owner, endpointId, deliveryId);
    if (delivery === null) throw new NotFoundError('webhook delivery', deliveryId, 'delivery_id');
    return deliveryView(delivery);
  }

  /** Sends the delivery again now, with a fresh retry schedule (whatever its status). */
  async redeliver(owner: WebhookOwner, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView> {
    await this.endpointOf(owner, endpointId, true);
    const now = this.clock.now();
    const ids = await this.transactions.run((tx) => this.repository.requeue(tx, owner, endpointId, { deliveryId }, now));
    if (ids.length === 0) throw new NotFoundError('webhook delivery', deliveryId, 'delivery_id');
    await this.enqueue(ids);
    return this.get(owner, endpointId, deliveryId);
  }

  /** Redelivers every failed delivery of the endpoint created at or after `since`. */
  async recover(owner: WebhookOwner, endpointId: string, since: Date): Promise<RecoveryView> {
    await this.endpointOf(owner, endpointId, true);
    const now = this.clock.now();
    const ids = await this.transactions.run((tx) => this.repository.requeue(tx, owner, endpointId, { failedSince: since }, now));
    await this.enqueue(ids);
    return { object: 'webhook_recovery', endpoint_id: endpointId, since: since.toISOString(), requeued: ids.length };
  }

  private async endpointOf(owner: WebhookOwner, endpointId: string, mustBeEnabled: boolean): Promise<void> {
    const endpoint = await this.endpoints.findEndpoint(owner, endpointId);
    if (endpoint === null) throw new NotFoundError('webhook endpoint', endpointId, 'id');
    if (mustBeEnabled && endpoint.disabledAt !== null) {
      throw new WebhooksError(
        'webhook_endpoint_disabled',
        `Webhook endpoint ${endpointId} is disabled (${endpoint.disabledReason ?? 'disabled'}); enable it (POST .../enable) to receive events again.`,
        { param: 'id' },
      );
    }
  }

  /** The rows are already pending: if Redis is down now, the dispatcher's sweep enqueues them later. */
  private async enqueue(ids: readonly string[]): Promise<void> {
    try {
      await this.queue.enqueueNow(ids);
    } catch (err) {
      this.logger.warn(`redelivery enqueue deferred to the sweep: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
