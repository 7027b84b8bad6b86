import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { defineQueue } from '../queue/queue-definition';
import { QueueRegistry } from '../queue/queue-registry.service';
import { IdempotencyService } from './idempotency.service';

/** The repeatable purge of idempotency records past their retention. */
export const IDEMPOTENCY_PURGE_QUEUE = defineQueue<{ purge: Record<string, never> }>('idempotency-purge');
const EVERY_MS = 15 * 60_000;

/** A BullMQ repeatable job that deletes idempotency records past their retention. */
@Injectable()
export class IdempotencyPurgeJob implements OnApplicationBootstrap {
  private readonly logger = new Logger('IdempotencyPurge');

  constructor(
    private readonly queues: QueueRegistry,
    private readonly idempotency: IdempotencyService,
  ) {}

  onApplicationBootstrap(): void {
    const worker = this.queues.worker(IDEMPOTENCY_PURGE_QUEUE, {
      purge: async () => {
        const purged = await this.idempotency.purgeExpired();
        if (purged > 0) this.logger.log(`purged ${purged} expired idempotency records`);
        return purged;
      },
    });
    if (!worker) return;
    // Not awaited: with Redis down, BullMQ would wait for it and hold up the boot.
    void this.queues
      .queue(IDEMPOTENCY_PURGE_QUEUE)
      .upsertJobScheduler(
        'purge',
        { every: EVERY_MS },
        { name: 'purge', data: {}, opts: { removeOnComplete: 10, removeOnFail: 10 } },
      )
      .catch((err: unknown) => this.logger.warn(`could not schedule the purge job: ${(err as Error).message}`));
  }
}
