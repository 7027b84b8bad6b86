/* eslint-disable @typescript-eslint/require-await -- async like the methods it fakes: a failure is a rejection, not a throw */
import { type QueueDefinition, type JobMap, type QueueRegistry, TypedQueue } from '@app/platform';
import type { Job, JobsOptions, Queue } from 'bullmq';
import { partialFake, type Surface } from '../typed-fake';

export interface FakeJob {
  readonly id: string;
  readonly name: string;
  readonly data: unknown;
  readonly opts: JobsOptions;
}

/**
 * QueueRegistry without Redis: `queue()` returns the real TypedQueue over an in-memory
 * BullMQ stand-in that keeps jobs by id (adding an id that exists adds nothing, as in
 * BullMQ). No worker runs (as with ROLE=api). `failing` makes every add reject, as when
 * Redis is down.
 */
export class FakeQueueRegistry implements Surface<QueueRegistry> {
  failing = false;
  private readonly queues = new Map<string, Map<string, FakeJob>>();

  queue<Jobs extends JobMap>(definition: QueueDefinition<Jobs>): TypedQueue<Jobs> {
    return new TypedQueue<Jobs>(this.rawQueue(definition.name));
  }

  worker(): undefined {
    return undefined;
  }

  async beforeApplicationShutdown(): Promise<void> {}

  async onApplicationShutdown(): Promise<void> {}

  /** The jobs waiting in a queue, by id. */
  jobs(queueName: string): ReadonlyMap<string, FakeJob> {
    return this.store(queueName);
  }

  private store(queueName: string): Map<string, FakeJob> {
    let jobs = this.queues.get(queueName);
    if (!jobs) {
      jobs = new Map();
      this.queues.set(queueName, jobs);
    }
    return jobs;
  }

  private rawQueue(name: string): Queue {
    const jobs = this.store(name);
    const asJob = (job: FakeJob): Job => partialFake<Job>({ id: job.id, name: job.name, data: job.data, opts: job.opts });
    return partialFake<Queue>({
      name,
      add: async (jobName: string, data: unknown, opts: JobsOptions = {}): Promise<Job> => {
        if (this.failing) throw new Error('Connection is closed.');
        const id = opts.jobId ?? `${name}:${jobs.size + 1}`;
        const existing = jobs.get(id);
        if (existing) return asJob(existing);
        const job = { id, name: jobName, data, opts };
        jobs.set(id, job);
        return asJob(job);
      },
      remove: async (jobId: string): Promise<0 | 1> => {
        if (this.failing) throw new Error('Connection is closed.');
        return jobs.delete(jobId) ? 1 : 0;
      },
      getJob: async (jobId: string): Promise<Job | undefined> => {
        const job = jobs.get(jobId);
        return job && asJob(job);
      },
    });
  }
}
