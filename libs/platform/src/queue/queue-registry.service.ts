import { performance } from 'node:perf_hooks';
import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationShutdown } from '@nestjs/common';
import {
  DelayedError,
  type Job,
  Queue,
  RateLimitError,
  WaitingChildrenError,
  WaitingError,
  Worker,
  type WorkerOptions,
} from 'bullmq';
import { Gauge, Histogram } from 'prom-client';
import { PlatformConfig } from '../config/platform-config';
import { MetricsService } from '../metrics/metrics.service';
import { dispatchJob, type JobHandlers, type JobMap, type QueueDefinition, TypedQueue } from './queue-definition';
import { RedisService } from './redis.service';
import { queueKeyPrefix } from './redis-topology';
import { ThrottledWarning } from '../logging/throttled-warning';
import { withTimeout } from '../timeout';
import { bullTelemetry } from '../telemetry/bullmq-telemetry';

/** Job states reported by the `queue_jobs` gauge. */
const GAUGED_STATES = ['waiting', 'active', 'delayed', 'failed', 'prioritized', 'waiting-children'] as const;

/**
 * How a processed job ended (`queue_job_duration_seconds{outcome}`): `completed`, `failed`
 * (it threw; BullMQ retries it or keeps it failed), `deferred` (the processor moved it back
 * to delayed or waiting on purpose: DelayedError and its kin, not a failure).
 */
export type JobOutcome = 'completed' | 'failed' | 'deferred';
const JOB_OUTCOMES: readonly JobOutcome[] = ['completed', 'failed', 'deferred'];

function outcomeOf(err: unknown): JobOutcome {
  const deferred =
    err instanceof DelayedError ||
    err instanceof WaitingError ||
    err instanceof WaitingChildrenError ||
    err instanceof RateLimitError;
  return deferred ? 'deferred' : 'failed';
}

/** Seconds; jobs run from a millisecond (a purge batch) to minutes (a large sweep). */
const JOB_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

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
  private readonly warnings = new ThrottledWarning(this.logger);
  private readonly jobDuration: Histogram<'queue' | 'job_name' | 'outcome'>;

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
      // one getJobCounts (one Redis round trip) per queue of the process, at most 1 s
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
    this.jobDuration = new Histogram({
      name: 'queue_job_duration_seconds',
      help: 'Time the worker spent processing a job, by queue, job name and outcome (completed, failed, deferred)',
      labelNames: ['queue', 'job_name', 'outcome'],
      buckets: JOB_BUCKETS,
      registers: [metrics.registry],
    });
  }

  /** The queue of a definition (one BullMQ Queue per name and process). */
  queue<Jobs extends JobMap>(definition: QueueDefinition<Jobs>): TypedQueue<Jobs> {
    const existing = this.queues.get(definition.name);
    if (existing) return new TypedQueue<Jobs>(existing);
    const telemetry = bullTelemetry();
    const queue = new Queue(definition.name, {
      connection: this.redis.bullConnection(),
      prefix: this.prefix(definition.name),
      ...(telemetry === undefined ? {} : { telemetry }),
      ...(definition.defaultJobOptions ? { defaultJobOptions: definition.defaultJobOptions } : {}),
    });
    queue.on('error', (err: Error) => this.logThrottled(`queue ${definition.name}`, err));
    this.queues.set(definition.name, queue);
    return new TypedQueue<Jobs>(queue);
  }

  /**
   * Starts a worker for a definition, with one handler per job name, unless this process is
   * ROLE=api (returns undefined then).
   */
  worker<Jobs extends JobMap, Result = unknown>(
    definition: QueueDefinition<Jobs>,
    handlers: JobHandlers<Jobs, Result>,
    options: Partial<WorkerOptions> = {},
  ): Worker | undefined {
    if (!this.config.runsWorkers) return undefined;
    const telemetry = bullTelemetry();
    const known = new Set(Object.keys(handlers));
    // Every series exists at 0 from the first scrape, so increase() sees the first failure.
    for (const job_name of known)
      for (const outcome of JOB_OUTCOMES) this.jobDuration.zero({ queue: definition.name, job_name, outcome });
    const timed = async (job: Job, token: string | undefined): Promise<Result> => {
      const started = performance.now();
      // a name no handler serves is one label value, not the name the producer chose
      const labels = { queue: definition.name, job_name: known.has(job.name) ? job.name : 'unknown' };
      const observe = (outcome: JobOutcome): void =>
        this.jobDuration.observe({ ...labels, outcome }, (performance.now() - started) / 1000);
      try {
        const result = await dispatchJob(handlers, job, token);
        observe('completed');
        return result;
      } catch (err) {
        observe(outcomeOf(err));
        throw err;
      }
    };
    const worker = new Worker(definition.name, timed, {
      connection: this.redis.bullConnection(),
      prefix: this.prefix(definition.name),
      ...(telemetry === undefined ? {} : { telemetry }),
      ...options,
    });
    worker.on('error', (err: Error) => this.logThrottled(`worker ${definition.name}`, err));
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

  /** QUEUE_PREFIX, hash-tagged per queue in cluster mode (queueKeyPrefix). */
  private prefix(queueName: string): string {
    return queueKeyPrefix(this.redis.topology, this.config.QUEUE_PREFIX, queueName);
  }

  /** With Redis unreachable nothing can finish cleanly: do not wait for it. */
  private graceMs(): number {
    return this.redis.commands.status === 'ready' ? CLOSE_GRACE_MS : 100;
  }

  private logThrottled(what: string, err: Error): void {
    this.warnings.warn(`${what}: ${err.message}`, what);
  }
}
