import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationShutdown } from '@nestjs/common';
import { type Job, Queue, type QueueOptions, Worker, type WorkerOptions } from 'bullmq';
import { PlatformConfig } from '../config/platform-config';
import { RedisService } from './redis.service';

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

  constructor(
    private readonly config: PlatformConfig,
    private readonly redis: RedisService,
  ) {}

  queue<Data = unknown>(name: string, options: Partial<QueueOptions> = {}): Queue<Data> {
    const existing = this.queues.get(name);
    if (existing) return existing as unknown as Queue<Data>;
    const queue = new Queue<Data>(name, {
      connection: this.redis.bullConnection(),
      prefix: this.config.QUEUE_PREFIX,
      ...options,
    });
    queue.on('error', (err: Error) => this.logger.warn(`queue ${name}: ${err.message}`));
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
    worker.on('error', (err: Error) => this.logger.warn(`worker ${name}: ${err.message}`));
    this.workers.push(worker);
    return worker;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled(this.workers.map((w) => w.close()));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
  }
}
