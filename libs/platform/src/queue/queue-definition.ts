import type { BulkJobOptions, DefaultJobOptions, Job, JobsOptions, Queue, RepeatOptions } from 'bullmq';

/** A queue's jobs: job name → payload type. */
export type JobMap = { readonly [name: string]: object };

/**
 * One queue, named once with the payload type of each of its jobs (docs/architecture.md,
 * "Queues"). Every queue of the platform is declared with `defineQueue` next to the code
 * that owns it, and QueueRegistry accepts nothing else: producers and processors get the
 * job names and payloads from here, typed, and cast nothing.
 */
export interface QueueDefinition<Jobs extends JobMap> {
  readonly name: string;
  readonly defaultJobOptions?: DefaultJobOptions;
  /** Type-level only: the job map (never set at run time). */
  readonly jobs?: Jobs;
}

export function defineQueue<Jobs extends JobMap>(
  name: string,
  options: { readonly defaultJobOptions?: DefaultJobOptions } = {},
): QueueDefinition<Jobs> {
  return { name, ...options };
}

export type JobName<Jobs extends JobMap> = keyof Jobs & string;

/** One job to add: its name and the payload that name takes. */
export type JobRequest<Jobs extends JobMap, O = JobsOptions> = {
  [N in JobName<Jobs>]: { readonly name: N; readonly data: Jobs[N]; readonly opts?: O };
}[JobName<Jobs>];

/** A processor per job name; each receives its own payload type. */
export type JobHandlers<Jobs extends JobMap, Result = unknown> = {
  readonly [N in JobName<Jobs>]: (data: Jobs[N], job: Job<Jobs[N], Result, N>, token?: string) => Promise<Result>;
};

/** A BullMQ queue whose `add` calls are checked against the queue's job map. */
export class TypedQueue<Jobs extends JobMap> {
  constructor(readonly raw: Queue) {}

  get name(): string {
    return this.raw.name;
  }

  add<N extends JobName<Jobs>>(name: N, data: Jobs[N], opts?: JobsOptions): Promise<Job> {
    return this.raw.add(name, data, opts);
  }

  addBulk(jobs: ReadonlyArray<JobRequest<Jobs, BulkJobOptions>>): Promise<Job[]> {
    return this.raw.addBulk(jobs.map((j) => ({ name: j.name, data: j.data, ...(j.opts ? { opts: j.opts } : {}) })));
  }

  /** Removes a job that is not running (a no-op for an unknown id). */
  remove(jobId: string): Promise<number> {
    return this.raw.remove(jobId);
  }

  getJob(id: string): Promise<Job | undefined> {
    return this.raw.getJob(id);
  }

  /** Creates or updates a repeatable job (BullMQ job scheduler) that adds `job` on `repeat`. */
  upsertJobScheduler(
    schedulerId: string,
    repeat: Omit<RepeatOptions, 'key'>,
    job: JobRequest<Jobs, Omit<JobsOptions, 'jobId' | 'repeat' | 'delay'>>,
  ): Promise<Job> {
    return this.raw.upsertJobScheduler(schedulerId, repeat, {
      name: job.name,
      data: job.data,
      ...(job.opts ? { opts: job.opts } : {}),
    });
  }
}

/** Dispatches a job to the handler of its name (the one place the name decides the payload type). */
export function dispatchJob<Jobs extends JobMap, Result>(
  handlers: JobHandlers<Jobs, Result>,
  job: Job,
  token: string | undefined,
): Promise<Result> {
  const handler = (handlers as unknown as Record<string, (data: unknown, job: Job, token?: string) => Promise<Result>>)[job.name];
  if (handler === undefined) return Promise.reject(new Error(`queue ${job.queueName}: no handler for job '${job.name}'`));
  return handler(job.data, job, token);
}
