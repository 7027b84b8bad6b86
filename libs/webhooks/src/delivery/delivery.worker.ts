import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { QueueRegistry } from '@app/platform';
import { DelayedError, type Job, type Worker } from 'bullmq';
import { WebhooksConfig } from '../webhooks.config';
import { type DeliveryJobData, deliveryQueue, type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../webhooks.tokens';
import { DeliveryService } from './delivery.service';

/**
 * The BullMQ processor: a thin adapter over DeliveryService. A retry keeps the same job
 * (moveToDelayed + DelayedError), so its id stays the delivery id. A worker that dies
 * mid-delivery stops renewing its lock; after WEBHOOK_LOCK_DURATION_MS BullMQ's stalled
 * check hands the job to another worker (at-least-once).
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap {
  worker: Worker | undefined;

  constructor(
    private readonly queues: QueueRegistry,
    private readonly deliveries: DeliveryService,
    @Inject(WebhooksConfig) private readonly config: WebhooksConfig,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.options.runWorkers) return;
    this.worker = this.queues.worker(
      deliveryQueue(this.options.ownerType),
      { deliver: (data, job, token) => this.process(data, job, token) },
      {
        concurrency: this.config.WEBHOOK_WORKER_CONCURRENCY,
        lockDuration: this.config.WEBHOOK_LOCK_DURATION_MS,
        stalledInterval: this.config.WEBHOOK_LOCK_DURATION_MS,
        maxStalledCount: 5,
      },
    );
  }

  async process(data: DeliveryJobData, job: Job, token?: string): Promise<string> {
    const result = await this.deliveries.attempt(data.deliveryId);
    switch (result.kind) {
      case 'missing':
        return 'missing'; // its endpoint was deleted
      case 'finished':
        return result.status;
      case 'retry':
        await job.moveToDelayed(result.at.getTime(), token);
        throw new DelayedError();
    }
  }
}
