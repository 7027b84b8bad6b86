import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { QueueRegistry, RedisService } from '@app/platform';
import {
  LIFECYCLE_QUEUE,
  LifecycleJob,
  SWEEP_INTERVAL_MS,
  SWEEP_SCHEDULER_ID,
  LIFECYCLE_CONCURRENCY,
  type TransitionJobData,
} from './lifecycle.jobs';
import { LifecycleService } from './lifecycle.service';

/**
 * Thin adapter from BullMQ to LifecycleService. Starts only where workers run (ROLE≠api):
 * registers the repeatable sweep and runs one sweep at boot, so transitions missed while
 * no worker was running are applied straight away. Both again whenever Redis comes back:
 * a Redis restarted empty has lost the sweep's scheduler and every delayed transition.
 */
@Injectable()
export class LifecycleWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('OffersLifecycle');

  constructor(
    private readonly queues: QueueRegistry,
    private readonly lifecycle: LifecycleService,
    private readonly redis: RedisService,
  ) {}

  onApplicationBootstrap(): void {
    const transition = (data: TransitionJobData): Promise<{ status: string }> => this.transition(data.offerId);
    const worker = this.queues.worker(
      LIFECYCLE_QUEUE,
      {
        [LifecycleJob.Open]: transition,
        [LifecycleJob.ClosingSoon]: transition,
        [LifecycleJob.Close]: transition,
        [LifecycleJob.Sweep]: () => this.lifecycle.sweep(),
      },
      { concurrency: LIFECYCLE_CONCURRENCY },
    );
    if (!worker) return;
    // Not awaited: boot must not wait for Redis (readiness reports it; BullMQ reconnects).
    this.startSweeps().catch((err: unknown) => this.logger.warn(`lifecycle sweep start failed: ${String(err)}`));
    this.redis.onReconnect(() => {
      this.startSweeps().catch((err: unknown) =>
        this.logger.warn(`lifecycle sweep after Redis reconnect failed: ${String(err)}`),
      );
    });
  }

  private async startSweeps(): Promise<void> {
    await this.queues
      .queue(LIFECYCLE_QUEUE)
      .upsertJobScheduler(SWEEP_SCHEDULER_ID, { every: SWEEP_INTERVAL_MS }, { name: LifecycleJob.Sweep, data: {} });
    await this.lifecycle.sweep();
  }

  private async transition(offerId: string): Promise<{ status: string }> {
    const offer = await this.lifecycle.advance(offerId);
    return { status: offer?.status ?? 'missing' };
  }
}
