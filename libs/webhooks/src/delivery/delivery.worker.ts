import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { QueueRegistry } from '@app/platform';
import { DelayedError, type Job, type Worker } from 'bullmq';
import { WebhooksConfig } from '../webhooks.config';
import { WebhooksMetrics } from '../webhooks.metrics';
import { type DeliveryJobData, deliveryQueue, type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../webhooks.tokens';
import { type AttemptResult, DeliveryService, type PreparedDelivery } from './delivery.service';
import { type Blocker, type DeliveryRoute, FairShare, fallbackDelayMs, WaitingRoom } from './fair-share';

/** Parked deliveries a process remembers (to wake them); beyond, they come back after their fallback delay. */
export const WAITING_ROOM_CAPACITY = 10_000;
/** A woken delivery that has not arrived within this went to another process. */
export const WAKE_TTL_MS = 1_000;
/** How often parked deliveries are looked at besides on every release. */
export const PUMP_EVERY_MS = 500;

/**
 * The BullMQ processor: a thin adapter over DeliveryService. A retry keeps the same job
 * (moveToDelayed + DelayedError), so its id stays the delivery id. A worker that dies
 * mid-delivery stops renewing its lock; after WEBHOOK_LOCK_DURATION_MS BullMQ's stalled
 * check hands the job to another worker (at-least-once).
 *
 * Fair share (docs/webhooks.md): an attempt takes a slot of its endpoint
 * (WEBHOOK_ENDPOINT_CONCURRENCY) and of its owner (WEBHOOK_OWNER_CONCURRENCY) in this
 * process. A delivery that finds no free slot is not attempted: its job is parked in the
 * delayed set the same way (no attempt counted, its schedule untouched) and promoted again
 * when a slot frees here, or after a fallback delay (1 s doubling up to
 * WEBHOOK_LOCK_DURATION_MS) if nothing wakes it.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  worker: Worker | undefined;
  readonly fair: FairShare;
  readonly room: WaitingRoom<Job>;
  private pumpTimer: NodeJS.Timeout | undefined;
  private pumpScheduled = false;

  constructor(
    private readonly queues: QueueRegistry,
    private readonly deliveries: DeliveryService,
    @Inject(WebhooksConfig) private readonly config: WebhooksConfig,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly metrics: WebhooksMetrics,
  ) {
    this.fair = new FairShare({ perEndpoint: config.WEBHOOK_ENDPOINT_CONCURRENCY, perOwner: config.ownerConcurrency }, () =>
      this.schedulePump(),
    );
    this.room = new WaitingRoom<Job>({
      fair: this.fair,
      wake: (job) => job.promote(),
      concurrency: config.WEBHOOK_WORKER_CONCURRENCY,
      capacity: WAITING_ROOM_CAPACITY,
      wakeTtlMs: WAKE_TTL_MS,
      now: () => Date.now(),
    });
    metrics.setFairShareSource(() => ({ inFlight: this.fair.inFlight, parked: this.room.size }));
  }

  onApplicationBootstrap(): void {
    if (!this.options.runWorkers) return;
    this.worker = this.queues.worker(
      deliveryQueue(this.options.ownerType),
      { deliver: (data, job, token) => this.process(data, job, token) },
      {
        concurrency: this.config.WEBHOOK_WORKER_CONCURRENCY,
        lockDuration: this.config.WEBHOOK_LOCK_DURATION_MS,
        stalledInterval: this.config.WEBHOOK_LOCK_DURATION_MS,
        maxStalledCount: 5,
      },
    );
    this.pumpTimer = setInterval(() => {
      this.room.prune();
      this.room.pump();
    }, PUMP_EVERY_MS);
    this.pumpTimer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.pumpTimer);
  }

  async process(data: DeliveryJobData, job: Job, token?: string): Promise<string> {
    const id = data.deliveryId;
    let route: DeliveryRoute | undefined =
      this.room.arrive(id) ??
      (data.endpointId !== undefined && data.ownerId !== undefined
        ? { endpointId: data.endpointId, ownerId: data.ownerId }
        : undefined);
    let parked = false;
    try {
      let prepared: PreparedDelivery | undefined;
      if (route === undefined) {
        // a job enqueued without its route (sweeps, redelivery): read the delivery first
        prepared = await this.deliveries.prepare(id);
        if (prepared.kind !== 'ready') return this.settle(prepared, job, token);
        route = { endpointId: prepared.work.endpoint.id, ownerId: prepared.work.endpoint.ownerId };
      }
      const lease = this.fair.tryAcquire(route);
      if (typeof lease === 'string') {
        await this.park(id, job, token, route, lease);
        parked = true;
        throw new DelayedError();
      }
      let result: AttemptResult;
      try {
        prepared ??= await this.deliveries.prepare(id);
        result = prepared.kind === 'ready' ? await this.deliveries.send(prepared.work) : prepared;
      } finally {
        lease.release();
      }
      return await this.settle(result, job, token);
    } finally {
      if (!parked) this.room.leave(id);
    }
  }

  /** Returns the job's result, or moves it to the delayed set until its retry is due. */
  private async settle(result: AttemptResult, job: Job, token: string | undefined): Promise<string> {
    switch (result.kind) {
      case 'missing':
        return 'missing'; // its endpoint was deleted
      case 'finished':
        return result.status;
      case 'retry':
        await job.moveToDelayed(result.at.getTime(), token);
        throw new DelayedError();
    }
  }

  /** Puts the job back in the delayed set without an attempt, to be woken when a slot frees. */
  private async park(id: string, job: Job, token: string | undefined, route: DeliveryRoute, blocker: Blocker): Promise<void> {
    const parks = this.room.nextPark(id);
    const delay = fallbackDelayMs(parks ?? Number.MAX_SAFE_INTEGER, this.config.WEBHOOK_LOCK_DURATION_MS);
    const dueAt = Date.now() + delay;
    await job.moveToDelayed(dueAt, token);
    this.room.park(id, job, route, dueAt);
    this.metrics.deferrals.inc({ limit: blocker });
    // a slot may have freed while the job was being moved
    this.schedulePump();
  }

  /** One pump per tick however many releases happened in it. */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.room.pump();
    });
  }
}
