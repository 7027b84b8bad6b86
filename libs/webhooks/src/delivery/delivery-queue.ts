import { Inject, Injectable, Logger } from '@nestjs/common';
import { QueueRegistry, type TypedQueue, withTimeout } from '@app/platform';
import {
  type DeliveryJobData,
  deliveryQueue,
  type DeliveryJobs,
  type ResolvedWebhooksOptions,
  WEBHOOKS_OPTIONS,
} from '../webhooks.tokens';

/** How long an enqueue may wait for Redis before the dispatcher gives up (the sweep retries). */
export const ENQUEUE_TIMEOUT_MS = 5_000;

function withRedisTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return withTimeout(promise, ms, `${what}: Redis did not answer within ${ms} ms`);
}

/**
 * The BullMQ queue of deliveries. One job per delivery with `jobId` = delivery id, so
 * enqueuing the same delivery twice (dispatcher and sweep, two dispatchers) is a no-op.
 */
@Injectable()
export class DeliveryQueue {
  private readonly logger = new Logger('Webhooks');
  readonly queue: TypedQueue<DeliveryJobs>;

  constructor(queues: QueueRegistry, @Inject(WEBHOOKS_OPTIONS) options: ResolvedWebhooksOptions) {
    this.queue = queues.queue(deliveryQueue(options.ownerType));
  }

  /** Enqueues deliveries now: ids, or jobs with their route (endpoint and owner) when known. */
  async enqueue(deliveries: ReadonlyArray<string | DeliveryJobData>): Promise<void> {
    if (deliveries.length === 0) return;
    const jobs = deliveries.map((d) => (typeof d === 'string' ? { deliveryId: d } : d));
    await withRedisTimeout(
      this.queue.addBulk(jobs.map((data) => ({ name: 'deliver', data, opts: { jobId: data.deliveryId } }))),
      ENQUEUE_TIMEOUT_MS,
      'enqueue webhook deliveries',
    );
  }

  /**
   * Enqueues each delivery due at `at` (now if past). A delivery whose job Redis still holds
   * keeps that job (same job id): used to rebuild the jobs a Redis restarted empty lost.
   */
  async enqueueAt(deliveries: ReadonlyArray<{ id: string; at: Date | null }>, nowMs: number): Promise<void> {
    if (deliveries.length === 0) return;
    await withRedisTimeout(
      this.queue.addBulk(
        deliveries.map((d) => ({
          name: 'deliver',
          data: { deliveryId: d.id },
          opts: { jobId: d.id, delay: Math.max(0, (d.at?.getTime() ?? nowMs) - nowMs) },
        })),
      ),
      ENQUEUE_TIMEOUT_MS,
      'enqueue webhook deliveries',
    );
  }

  /** Enqueues now; a job already waiting for its retry delay is promoted instead. */
  async enqueueNow(deliveryIds: readonly string[]): Promise<void> {
    for (const id of deliveryIds) {
      const existing = await withRedisTimeout(this.queue.getJob(id), ENQUEUE_TIMEOUT_MS, 'read webhook job');
      if (existing !== undefined && (await existing.isDelayed())) {
        await existing.promote().catch((err: unknown) => this.logger.warn(`promote ${id}: ${String(err)}`));
      }
    }
    await this.enqueue(deliveryIds);
  }

  async depth(): Promise<Record<string, number>> {
    return withRedisTimeout(this.queue.raw.getJobCounts('waiting', 'delayed', 'active', 'prioritized'), 2_000, 'queue depth');
  }
}
