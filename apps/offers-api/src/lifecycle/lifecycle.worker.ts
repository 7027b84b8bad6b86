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
    this.startSweeps('boot').catch((err: unknown) => this.logger.warn(`lifecycle sweep start failed: ${String(err)}`));
    this.redis.onReconnect(() => {
      this.startSweeps('redis reconnect').catch((err: unknown) =>
        this.logger.warn(`lifecycle sweep after Redis reconnect failed: ${String(err)}`),
      );
    });
  }

  private async startSweeps(trigger: 'boot' | 'redis reconnect'): Promise<void> {
    await this.queues
      .queue(LIFECYCLE_QUEUE)
      .upsertJobScheduler(SWEEP_SCHEDULER_ID, { every: SWEEP_INTERVAL_MS }, { name: LifecycleJob.Sweep, data: {} });
    const { advanced, scheduled } = await this.lifecycle.sweep();
    // After a Redis that came back without its data (a restart, a failover to a lagging
    // replica) this sweep is what re-creates the delayed transitions: say how much it did.
    // (Jobs Redis still held are kept: the count is of offers looked at, not of new jobs.)
    if (advanced + scheduled > 0) {
      this.logger.log(
        `lifecycle sweep on ${trigger}: advanced ${advanced} offer(s), re-enqueued the plans of ${scheduled} open offer(s)`,
      );
    }
  }

  private async transition(offerId: string): Promise<{ status: string }> {
    const offer = await this.lifecycle.advance(offerId);
    return { status: offer?.status ?? 'missing' };
  }
}
