import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { QueueRegistry, type RedisClient, RedisService, ThrottledWarning } from '@app/platform';
import { DelayedError, Job, type Worker } from 'bullmq';
import { WebhooksConfig } from '../webhooks.config';
import { WebhooksMetrics } from '../webhooks.metrics';
import { type DeliveryJobData, deliveryQueue, type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../webhooks.tokens';
import { type AttemptResult, DeliveryService, type Exchange, type PreparedDelivery } from './delivery.service';
import { type Blocker, type DeliveryRoute, FairShare, fallbackDelayMs } from './fair-share';
import { type Line, ParkingLines } from './parking-lines';
import { RateLimiter } from './rate-limiter';

/** Parked ids popped per release at most while looking for one still parked (the others came back by themselves). */
const WAKE_TRIES = 5;
/**
 * A delivery whose endpoint or owner is full waits in the process this long at most for a
 * slot — only while the attempts holding them are younger than this (a busy, fast
 * receiver) — before it is parked; behind slower attempts it is parked at once.
 */
export const LOCAL_WAIT_MS = 250;
/** How often each process looks over the lines for deliveries it has room for (a wake that went to another process, a line nobody released into). */
export const PUMP_EVERY_MS = 500;

/**
 * The BullMQ processor: a thin adapter over DeliveryService. A retry keeps the same job
 * (moveToDelayed + DelayedError), so its id stays the delivery id. A worker that dies
 * mid-delivery stops renewing its lock; after WEBHOOK_LOCK_DURATION_MS BullMQ's stalled
 * check hands the job to another worker (at-least-once).
 *
 * Fair share (docs/webhooks.md, "Fair delivery"): an attempt takes a slot of its endpoint
 * (WEBHOOK_ENDPOINT_CONCURRENCY) and of its owner (WEBHOOK_OWNER_CONCURRENCY) in this
 * process. A delivery that finds no free slot (after at most LOCAL_WAIT_MS behind young
 * attempts) is not attempted: its job is parked in the delayed set the same way (no
 * attempt counted, its schedule untouched) and its id put in the line of the limit that
 * stopped it (ParkingLines, in Redis). Every release of a slot, in any process, promotes
 * the oldest delivery waiting for that endpoint or owner, and every PUMP_EVERY_MS each
 * process wakes as many parked deliveries as it has room for; if nothing does (Redis lost
 * the line), the job comes back by itself after half to all of WEBHOOK_LOCK_DURATION_MS.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly failures = new ThrottledWarning(this.logger);
  worker: Worker | undefined;
  readonly fair: FairShare;
  readonly lines: ParkingLines;
  readonly limiter: RateLimiter;
  private pumpTimer: NodeJS.Timeout | undefined;
  private pumping = false;
  /** The short-command connection the parking lines use (fails fast while not ready). */
  private readonly commands: RedisClient;
  /**
   * The lines that may hold parked deliveries ('e:<endpoint id>', 'o:<owner id>'): those the
   * last pump found in the index plus those this process parked into since. A release
   * whose endpoint and owner are in none skips the Redis call of `wake` — at full speed
   * nothing is parked, and that call was a Redis round trip per attempt. A delivery parked
   * by another process after our last pump is then woken by that process's releases or by
   * our next pump (PUMP_EVERY_MS).
   */
  private parkedHint = new Set<string>();
  private readonly parkedSincePump = new Set<string>();

  constructor(
    private readonly queues: QueueRegistry,
    private readonly deliveries: DeliveryService,
    @Inject(WebhooksConfig) private readonly config: WebhooksConfig,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly metrics: WebhooksMetrics,
    redis: RedisService,
  ) {
    this.fair = new FairShare({ perEndpoint: config.WEBHOOK_ENDPOINT_CONCURRENCY, perOwner: config.ownerConcurrency }, (route) =>
      this.wake(route),
    );
    this.commands = redis.commands;
    this.lines = new ParkingLines(redis.commands, ParkingLines.prefixFor(config.QUEUE_PREFIX, options.ownerType));
    this.limiter = new RateLimiter(redis.commands, RateLimiter.prefixFor(config.QUEUE_PREFIX, options.ownerType));
    metrics.setInFlightSource(() => this.fair.inFlight);
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
    this.pumpTimer = setInterval(() => this.pump(), PUMP_EVERY_MS);
    this.pumpTimer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.pumpTimer);
  }

  async process(data: DeliveryJobData, job: Job, token?: string): Promise<string> {
    const id = data.deliveryId;
    let route: DeliveryRoute | undefined =
      data.endpointId !== undefined && data.ownerId !== undefined
        ? { endpointId: data.endpointId, ownerId: data.ownerId }
        : undefined;
    let prepared: PreparedDelivery | undefined;
    if (route === undefined) {
      // a job enqueued without its route (sweeps, redelivery): read the delivery first
      prepared = await this.deliveries.prepare(id);
      if (prepared.kind !== 'ready') return this.settle(prepared, job, token);
      route = { endpointId: prepared.work.endpoint.id, ownerId: prepared.work.endpoint.ownerId };
    }
    const lease = await this.fair.acquire(route, LOCAL_WAIT_MS);
    if (typeof lease === 'string') {
      await this.park(id, job, token, route, lease);
      throw new DelayedError();
    }
    let exchange: Exchange;
    try {
      prepared ??= await this.deliveries.prepare(id);
      if (prepared.kind !== 'ready') {
        lease.release();
        return await this.settle(prepared, job, token);
      }
      const limit = prepared.work.endpoint.rateLimitPerSecond;
      if (limit !== null && limit > 0) {
        const waitMs = await this.limiter.reserve(route.endpointId, limit, id);
        if (waitMs > 0) {
          // beyond the endpoint's rate: back to the delayed set until the slot it now
          // holds, like a parked delivery (no attempt counted, its schedule untouched)
          lease.release();
          await job.moveToDelayed(Date.now() + waitMs, token);
          this.metrics.deferrals.inc({ limit: 'rate' });
          throw new DelayedError();
        }
      }
      exchange = await this.deliveries.exchange(prepared.work);
    } finally {
      // The slot limits requests in flight to the receiver: it is free as soon as the
      // exchange ends, before the attempt is recorded (the job stays active until then).
      // Wakes the next delivery waiting for this endpoint or owner.
      lease.release();
    }
    return this.settle(await this.deliveries.record(exchange), job, token);
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

  /** Puts the job back in the delayed set without an attempt, in the line of the limit that stopped it. */
  private async park(id: string, job: Job, token: string | undefined, route: DeliveryRoute, blocker: Blocker): Promise<void> {
    await job.moveToDelayed(Date.now() + fallbackDelayMs(this.config.WEBHOOK_LOCK_DURATION_MS), token);
    this.metrics.deferrals.inc({ limit: blocker });
    const lineKey = blocker === 'endpoint' ? `e:${route.endpointId}` : `o:${route.ownerId}`;
    this.parkedHint.add(lineKey);
    this.parkedSincePump.add(lineKey);
    try {
      await this.lines.park(route, blocker, id, job.timestamp);
    } catch (err) {
      this.logFailure('park a webhook delivery in its line (it comes back after its fallback delay)', err);
      return;
    }
    // a slot of this process may have freed while the job was being parked, with nobody in line yet
    if (this.fair.room(route) > 0) this.wake(route);
    // woken for a freed owner slot it cannot use (its endpoint is full): the owner's next one may
    else if (blocker === 'endpoint' && this.fair.ownerRoom(route.ownerId) > 0)
      this.wakeLine({ kind: 'owner', ownerId: route.ownerId }, 1);
  }

  /** After a release: promotes the oldest delivery waiting for a slot of this endpoint or owner, if any. */
  private wake(route: DeliveryRoute): void {
    if (!this.parkedHint.has(`e:${route.endpointId}`) && !this.parkedHint.has(`o:${route.ownerId}`)) return;
    void (async () => {
      for (let i = 0; i < WAKE_TRIES; i++) {
        const id = await this.lines.next(route);
        if (id === null || (await this.promote(id))) return;
      }
    })().catch((err: unknown) => this.logFailure('wake a parked webhook delivery (it comes back after its fallback delay)', err));
  }

  /** Promotes up to `count` of the oldest deliveries of one line. */
  private wakeLine(line: Line, count: number): void {
    void (async () => {
      for (const id of await this.lines.take(line, count)) await this.promote(id);
    })().catch((err: unknown) => this.logFailure('wake a parked webhook delivery (it comes back after its fallback delay)', err));
  }

  /** Wakes, from every line, as many deliveries as this process has room for now. */
  private pump(): void {
    // Not connected yet (the first passes after a start) or Redis is away: the connection
    // refuses commands at once, RedisService already warns about a lost connection, and
    // the next pass (PUMP_EVERY_MS) looks again.
    if (this.pumping || this.commands.status !== 'ready') return;
    this.pumping = true;
    void (async () => {
      const lines = await this.lines.lines();
      const hint = new Set(lines.map((l) => (l.kind === 'endpoint' ? `e:${l.endpointId}` : `o:${l.ownerId}`)));
      // parks of this process that raced with the listing stay hinted until the next pump
      for (const key of this.parkedHint) if (!hint.has(key) && this.parkedSincePump.has(key)) hint.add(key);
      this.parkedHint = hint;
      this.parkedSincePump.clear();
      for (const line of lines) {
        const room = line.kind === 'endpoint' ? this.fair.room(line) : this.fair.ownerRoom(line.ownerId);
        if (room > 0) for (const id of await this.lines.take(line, room)) await this.promote(id);
      }
    })()
      .catch((err: unknown) => {
        // the connection went away mid-pass (a shutdown, an outage RedisService reports): quiet
        if (this.commands.status === 'ready') this.logFailure('look over the parked webhook deliveries', err);
      })
      .finally(() => {
        this.pumping = false;
      });
  }

  /** Moves a parked job from the delayed set to the waiting list; false if it is no longer parked (it came back by itself, or is gone). */
  private async promote(id: string): Promise<boolean> {
    const worker = this.worker;
    if (worker === undefined) return false;
    try {
      await new Job(worker, 'deliver', { deliveryId: id }, {}, id).promote();
      return true;
    } catch {
      return false;
    }
  }

  private logFailure(what: string, err: unknown): void {
    this.failures.warn(`${what}: ${err instanceof Error ? err.message : String(err)}`, what);
  }
}
