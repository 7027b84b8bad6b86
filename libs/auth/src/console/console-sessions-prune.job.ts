import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { defineQueue, QueueRegistry } from '@app/platform';
import { ConsoleSessions } from './console-sessions';

/** The daily housekeeping of console sign-in links and sessions. */
export const CONSOLE_SESSIONS_PRUNE_QUEUE = defineQueue<{ prune: Record<string, never> }>('console-sessions-prune');
export const CONSOLE_SESSIONS_PRUNE_EVERY_MS = 24 * 60 * 60 * 1000;

/**
 * A BullMQ repeatable job (once a day, one scheduler per service however many instances run)
 * that deletes sign-in links expired and sessions idle or revoked more than a day ago
 * (ConsoleSessions.prune): the tables hold live sessions and a day of history, not every
 * sign-in ever made.
 */
@Injectable()
export class ConsoleSessionsPruneJob implements OnApplicationBootstrap {
  private readonly logger = new Logger('ConsoleSessionsPrune');

  constructor(
    private readonly queues: QueueRegistry,
    private readonly sessions: ConsoleSessions,
  ) {}

  onApplicationBootstrap(): void {
    const worker = this.queues.worker(CONSOLE_SESSIONS_PRUNE_QUEUE, {
      prune: async () => {
        const pruned = await this.sessions.prune();
        if (pruned.links + pruned.sessions > 0)
          this.logger.log(`pruned ${pruned.links} console sign-in links and ${pruned.sessions} console sessions`);
        return pruned;
      },
    });
    if (!worker) return;
    // Not awaited: with Redis down, BullMQ would wait for it and hold up the boot.
    void this.queues
      .queue(CONSOLE_SESSIONS_PRUNE_QUEUE)
      .upsertJobScheduler(
        'prune',
        { every: CONSOLE_SESSIONS_PRUNE_EVERY_MS },
        { name: 'prune', data: {}, opts: { removeOnComplete: 10, removeOnFail: 10 } },
      )
      .catch((err: unknown) => this.logger.warn(`could not schedule the console sessions prune job: ${(err as Error).message}`));
  }
}
