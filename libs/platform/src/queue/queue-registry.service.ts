import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationShutdown } from '@nestjs/common';
import { type Job, Queue, type QueueOptions, Worker, type WorkerOptions } from 'bullmq';
import { Gauge } from 'prom-client';
import { PlatformConfig } from '../config/platform-config';
import { MetricsService } from '../metrics/metrics.service';
import { RedisService } from './redis.service';
import { withTimeout } from '../timeout';

/** Job states reported by the `queue_jobs` gauge. */
const GAUGED_STATES = ['waiting', 'active', 'delayed', 'failed', 'prioritized', 'waiting-children'] as const;

/** How long shutdown waits for a worker or queue to close before forcing it (e.g. Redis unreachable). */
const CLOSE_GRACE_MS = 5_000;

async function closeWithin(
  closing: Promise<void>,
  ms: number,
  force: () => Promise<void>,
  what: string,
  logger: Logger,
): Promise<void> {
  if (await settlesWithin(closing, ms)) return;
  logger.warn(`${what} did not close within ${ms} ms; forcing it`);
  await settlesWithin(force(), 1_000);
}

/** True if `work` settled within `ms`; a closing connection to a dead Redis may never settle. */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  return withTimeout(settled, ms, 'timeout').then(
    () => true,
    () => false,
  );
}

/**
 * Creates BullMQ queues and workers with the service's connection and key prefix, and
 * closes them on shutdown: workers first (they finish their active jobs), queues last.
 * With ROLE=api no worker is started, so HTTP and queue work can be scaled apart.
 */
@Injectable()
export class QueueRegistry implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Queues');
  private readonly queues = new Map<string, Queue>();
  private readonly workers: Worker[] = [];
  private readonly lastWarning = new Map<string, number>();

  constructor(
    private readonly config: PlatformConfig,
    private readonly redis: RedisService,
    metrics: MetricsService,
  ) {
    const queues = this.queues;
    new Gauge({
      name: 'queue_jobs',
      help: 'BullMQ jobs by queue and state, read at scrape time (absent while Redis does not answer)',
      labelNames: ['queue', 'state'],
      registers: [metrics.registry],
      async collect() {
        this.reset();
        await Promise.all(
          [...queues.values()].map(async (q) => {
            const counts = await withTimeout(q.getJobCounts(...GAUGED_STATES), 1_000, 'queue_jobs').catch(() => undefined);
            for (const [state, n] of Object.entries(counts ?? {})) this.set({ queue: q.name, state }, n);
          }),
        );
      },
    });
  }

  queue<Data = unknown>(name: string, options: Partial<QueueOptions> = {}): Queue<Data> {
    const existing = this.queues.get(name);
    if (existing) return existing as unknown as Queue<Data>;
    const queue = new Queue<Data>(name, {
      connection: this.redis.bullConnection(),
      prefix: this.config.QUEUE_PREFIX,
      ...options,
    });
    queue.on('error', (err: Error) => this.logThrottled(`queue ${name}`, err));
    this.queues.set(name, queue);
    return queue;
  }

  /** Starts a worker unless this process is ROLE=api; returns undefined then. */
  worker<Data = unknown, Result = unknown>(
    name: string,
    processor: (job: Job<Data, Result>) => Promise<Result>,
    options: Partial<WorkerOptions> = {},
  ): Worker<Data, Result> | undefined {
    if (!this.config.runsWorkers) return undefined;
    const worker = new Worker<Data, Result>(name, processor, {
      connection: this.redis.bullConnection(),
      prefix: this.config.QUEUE_PREFIX,
      ...options,
    });
    worker.on('error', (err: Error) => this.logThrottled(`worker ${name}`, err));
    this.workers.push(worker);
    return worker;
  }

  /** Workers finish their active jobs first; if Redis is gone, they are closed by force after a grace period. */
  async beforeApplicationShutdown(): Promise<void> {
    this.redis.stopReconnecting();
    const grace = this.graceMs();
    await Promise.allSettled(
      this.workers.map((w) => closeWithin(w.close(), grace, () => w.close(true), `worker ${w.name}`, this.logger)),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    const grace = this.graceMs();
    await Promise.allSettled(
      [...this.queues.values()].map((q) => closeWithin(q.close(), grace, () => q.disconnect(), `queue ${q.name}`, this.logger)),
    );
  }

  /** With Redis unreachable nothing can finish cleanly: do not wait for it. */
  private graceMs(): number {
    return this.redis.commands.status === 'ready' ? CLOSE_GRACE_MS : 100;
  }

  private logThrottled(what: string, err: Error): void {
    const now = Date.now();
    if (now - (this.lastWarning.get(what) ?? 0) < 10_000) return;
    this.lastWarning.set(what, now);
    this.logger.warn(`${what}: ${err.message}`);
  }
}
