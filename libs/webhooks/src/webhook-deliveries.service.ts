import { Injectable, Logger } from '@nestjs/common';
import { Clock, NotFoundError, TransactionRunner } from '@app/platform';
import { DeliveryQueue } from './delivery/delivery-queue';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookEventsRepository } from './webhook-events.repository';
import { WebhookEventsService } from './webhook-events.service';
import {
  ownScope,
  type ListView,
  type WebhookDeliveryStatus,
  type WebhookDeliveryView,
  type WebhookOwner,
} from './webhooks.types';
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
  readonly until: string | null;
  readonly requeued: number;
}

export type StatsGranularity = 'hour' | 'day';

export interface EndpointStatsView {
  readonly object: 'webhook_endpoint_stats';
  readonly endpoint_id: string;
  readonly granularity: StatsGranularity;
  readonly since: string;
  readonly until: string;
  readonly buckets: ReadonlyArray<{ readonly start: string; readonly succeeded: number; readonly failed: number }>;
}

const BUCKET_MS: Record<StatsGranularity, number> = { hour: 3_600_000, day: 86_400_000 };
/** Default window: a day of hours, a week of days. */
const DEFAULT_BUCKETS: Record<StatsGranularity, number> = { hour: 24, day: 7 };
/** Largest window: a month of hours, a year of days. */
const MAX_BUCKETS: Record<StatsGranularity, number> = { hour: 744, day: 366 };

/**
 * The owner-facing delivery log of the own API's endpoints: list, redeliver one, recover
 * every failure since a time. (A dialect's endpoints have no delivery log routes here; their
 * deliveries are recorded all the same.)
 */
@Injectable()
export class WebhookDeliveriesService {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly repository: WebhookDeliveriesRepository,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly transactions: TransactionRunner,
    private readonly queue: DeliveryQueue,
    private readonly clock: Clock,
    private readonly events: WebhookEventsService,
    private readonly testEvents: WebhookEventsRepository,
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

  /**
   * Delivery successes and failures over time (the console's chart): the endpoint's attempts
   * counted per UTC hour or day in [since rounded down to its bucket, until), every bucket
   * listed (zeros too). Counted in the database from the attempt log, not from a page of it.
   */
  async stats(
    owner: WebhookOwner,
    endpointId: string,
    input: { granularity?: StatsGranularity | undefined; since?: Date | undefined; until?: Date | undefined },
  ): Promise<EndpointStatsView> {
    const granularity = input.granularity ?? 'hour';
    const size = BUCKET_MS[granularity];
    const until = input.until ?? this.clock.now();
    // UTC hours and days are whole multiples of the bucket size since the epoch; the
    // default window is the bucket holding `until` and the ones before it
    const floor = (ms: number): number => Math.floor(ms / size) * size;
    const since = new Date(
      input.since === undefined
        ? floor(until.getTime() - 1) - (DEFAULT_BUCKETS[granularity] - 1) * size
        : floor(input.since.getTime()),
    );
    if (until <= since) throw new WebhooksError('parameter_invalid', 'until must be after since', { param: 'until' });
    const count = Math.ceil((until.getTime() - since.getTime()) / size);
    if (count > MAX_BUCKETS[granularity]) {
      throw new WebhooksError(
        'parameter_invalid',
        `The window holds ${count} ${granularity} buckets; at most ${MAX_BUCKETS[granularity]} (narrow since/until or use a larger granularity)`,
        { param: 'since' },
      );
    }
    await this.endpointOf(owner, endpointId, false);
    const rows = await this.repository.attemptCounts(owner, endpointId, granularity, since, until);
    const byStart = new Map(rows.map((r) => [r.start.getTime(), r]));
    const buckets = Array.from({ length: count }, (_, i) => {
      const start = since.getTime() + i * size;
      const row = byStart.get(start);
      return { start: new Date(start).toISOString(), succeeded: row?.succeeded ?? 0, failed: row?.failed ?? 0 };
    });
    return {
      object: 'webhook_endpoint_stats',
      endpoint_id: endpointId,
      granularity,
      since: since.toISOString(),
      until: until.toISOString(),
      buckets,
    };
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

  /** Redelivers every failed delivery of the endpoint created at or after `since` (and at or before `until`). */
  async recover(owner: WebhookOwner, endpointId: string, since: Date, until?: Date): Promise<RecoveryView> {
    if (until !== undefined && until < since) {
      throw new WebhooksError('parameter_invalid', 'until must not be before since', { param: 'until' });
    }
    await this.endpointOf(owner, endpointId, true);
    const now = this.clock.now();
    const ids = await this.transactions.run((tx) =>
      this.repository.requeue(tx, owner, endpointId, { failedSince: since, ...(until === undefined ? {} : { until }) }, now),
    );
    await this.enqueue(ids);
    return {
      object: 'webhook_recovery',
      endpoint_id: endpointId,
      since: since.toISOString(),
      until: until?.toISOString() ?? null,
      requeued: ids.length,
    };
  }

  /**
   * Sends an example event of `event` (default: the app's first kind) to this endpoint only,
   * marked `"test": true`, through the normal signed delivery path; it is logged as a
   * delivery of the endpoint (and not listed by the events API).
   */
  async sendTest(owner: WebhookOwner, endpointId: string, event: string | undefined): Promise<WebhookDeliveryView> {
    const catalogue = this.events.eventTypes().data;
    const kind = event === undefined ? catalogue[0] : this.events.eventType(event, 'event');
    if (kind === undefined) throw new WebhooksError('parameter_invalid', 'This service has no event kinds', { param: 'event' });
    await this.endpointOf(owner, endpointId, true);
    const now = this.clock.now();
    const deliveryId = await this.transactions.run((tx) =>
      this.testEvents.insertTestEvent(tx, owner, endpointId, { event: kind.type, data: kind.example.data }, now),
    );
    // The 202 shows the delivery as accepted (pending), read before a worker can take it:
    // read after the enqueue, a fast receiver made it `succeeded` now and then.
    const accepted = await this.get(owner, endpointId, deliveryId);
    await this.enqueue([deliveryId]);
    return accepted;
  }

  private async endpointOf(owner: WebhookOwner, endpointId: string, mustBeEnabled: boolean): Promise<void> {
    const endpoint = await this.endpoints.findEndpoint(ownScope(owner), endpointId);
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
