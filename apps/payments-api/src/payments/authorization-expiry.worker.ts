import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { QueueRegistry, RedisService } from '@app/platform';
import {
  AUTHORIZATION_CONCURRENCY,
  AUTHORIZATION_QUEUE,
  AUTHORIZATION_SWEEP_INTERVAL_MS,
  AUTHORIZATION_SWEEP_SCHEDULER_ID,
  AuthorizationJob,
} from './authorization-expiry.jobs';
import { AuthorizationsService } from './authorizations.service';

/**
 * Thin adapter from BullMQ to AuthorizationsService (as offers' LifecycleWorker). Starts only
 * where workers run (ROLE≠api): registers the repeatable sweep and runs one at boot, so
 * authorizations that expired while no worker ran are canceled at once; both again when Redis
 * comes back (a Redis restarted empty has lost the scheduler and every delayed expiry).
 */
@Injectable()
export class AuthorizationExpiryWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('PaymentAuthorizations');

  constructor(
    private readonly queues: QueueRegistry,
    private readonly authorizations: AuthorizationsService,
    private readonly redis: RedisService,
  ) {}

  onApplicationBootstrap(): void {
    const worker = this.queues.worker(
      AUTHORIZATION_QUEUE,
      {
        [AuthorizationJob.Expire]: async (data) => ({ canceled: await this.authorizations.expire(data.paymentId) }),
        [AuthorizationJob.Sweep]: () => this.authorizations.sweep(),
      },
      { concurrency: AUTHORIZATION_CONCURRENCY },
    );
    if (!worker) return;
    // Not awaited: boot must not wait for Redis (readiness reports it; BullMQ reconnects).
    this.startSweeps('boot').catch((err: unknown) => this.logger.warn(`authorization sweep start failed: ${String(err)}`));
    this.redis.onReconnect(() => {
      this.startSweeps('redis reconnect').catch((err: unknown) =>
        this.logger.warn(`authorization sweep after Redis reconnect failed: ${String(err)}`),
      );
    });
  }

  private async startSweeps(trigger: 'boot' | 'redis reconnect'): Promise<void> {
    await this.queues
      .queue(AUTHORIZATION_QUEUE)
      .upsertJobScheduler(
        AUTHORIZATION_SWEEP_SCHEDULER_ID,
        { every: AUTHORIZATION_SWEEP_INTERVAL_MS },
        { name: AuthorizationJob.Sweep, data: {} },
      );
    const { expired, scheduled } = await this.authorizations.sweep();
    // After a Redis that came back without its data (a restart, a failover to a lagging
    // replica) this sweep is what re-creates the delayed expiries: say how much it did.
    // (Jobs Redis still held are kept: the count is of authorizations, not of new jobs.)
    if (expired + scheduled > 0) {
      this.logger.log(
        `authorization sweep on ${trigger}: canceled ${expired} expired authorization(s), re-enqueued the expiry of ${scheduled} pending one(s)`,
      );
    }
  }
}
