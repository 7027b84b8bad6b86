import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  Clock,
  PlatformConfig,
  RedisService,
  ThrottledWarning,
  tracingOn,
  TransactionRunner,
  withTraceCarrier,
} from '@app/platform';
import { Client } from 'pg';
import { WebhooksConfig } from '../webhooks.config';
import { WebhooksMetrics } from '../webhooks.metrics';
import { WebhookDeliveriesRepository } from '../webhook-deliveries.repository';
import { type FannedOutDelivery, OUTBOX_CHANNEL, WebhookOutboxRepository } from '../webhook-outbox.repository';
import { type DeliveryJobData, type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../webhooks.tokens';
import { DeliveryQueue } from './delivery-queue';

/** Events per dispatch pass: three statements and one addBulk each, whatever the backlog (memory stays bounded). */
const BATCH = 500;
const PURGE_BATCH = 1_000;
/** Least time between two dispatch passes while commits keep coming (see nudge). */
export const DISPATCH_GATHER_MS = 20;
/** The retention purge runs at most this often per process (deletes are idempotent across processes). */
const PURGE_EVERY_MS = 3_600_000;

/**
 * Moves committed outbox rows into BullMQ: for each event, one delivery row per matching
 * endpoint (idempotent), one job per delivery (jobId = delivery id), then marks the event
 * dispatched. Woken at commit by PostgreSQL LISTEN/NOTIFY (the emitting transaction calls
 * pg_notify, so ROLE=api processes wake ROLE=worker ones) and by a periodic sweep, which
 * also re-enqueues pending deliveries whose job was lost (Redis restarted without data).
 * If Redis or the process dies between commit and enqueue, the event stays undispatched
 * and the next pass picks it up: nothing is lost.
 */
@Injectable()
export class OutboxDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  /** One line per 10 s at most while PostgreSQL or Redis is down (every pass fails). */
  private readonly failures = new ThrottledWarning(this.logger);
  private listener: Client | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private lastPurge = 0;

  constructor(
    private readonly outbox: WebhookOutboxRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly transactions: TransactionRunner,
    private readonly queue: DeliveryQueue,
    private readonly platform: PlatformConfig,
    @Inject(WebhooksConfig) private readonly config: WebhooksConfig,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly clock: Clock,
    metrics: WebhooksMetrics,
    private readonly redis: RedisService,
  ) {
    metrics.setSources(
      async () => {
        const oldest = await this.outbox.oldestUndispatchedAt(this.options.ownerType);
        return oldest === null ? 0 : Math.max(0, (this.clock.nowMs() - oldest.getTime()) / 1000);
      },
      () => this.queue.depth(),
    );
  }

  onApplicationBootstrap(): void {
    if (!this.options.runWorkers) return;
    this.listen();
    this.sweepTimer = setInterval(() => this.sweep(), this.config.WEBHOOK_SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
    this.nudge();
    this.redis.onReconnect(() => {
      this.nudge();
      this.restoreJobs().catch((err: unknown) => this.logFailure('re-enqueue after Redis reconnect', err));
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    clearTimeout(this.reconnectTimer);
    await this.listener?.end().catch(() => undefined);
    await this.running;
  }

  /** Dispatch soon; coalesces concurrent wake-ups into at most one extra pass. */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.dispatchAll()
      .then(() => undefined)
      .catch((err: unknown) => this.logFailure('dispatch', err))
      .finally(() => {
        this.running = undefined;
        if (!this.again) return;
        this.again = false;
        // Commits arrived during the pass: the next one starts DISPATCH_GATHER_MS later, so
        // under a steady stream each pass takes a batch instead of one or two events (its
        // five round trips cost the same either way); after a quiet spell the first commit
        // is dispatched at once. `running` stays set meanwhile, so nudges keep coalescing.
        this.running = new Promise<void>((resolve) => {
          setTimeout(() => {
            this.running = undefined;
            resolve();
            this.nudge();
          }, DISPATCH_GATHER_MS).unref();
        });
      });
  }

  /** Dispatches every undispatched event of this owner type; returns how many. */
  async dispatchAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const events = await this.outbox.undispatchedEvents(this.options.ownerType, BATCH);
      if (events.length === 0) return total;
      const ids = events.map((e) => e.id);
      const deliveries = await this.outbox.fanOut(ids);
      await this.enqueueInTraces(events, deliveries);
      await this.outbox.markDispatched(ids, this.clock.now());
      total += ids.length;
      if (events.length < BATCH) return total;
    }
  }

  /**
   * Enqueues the deliveries. While tracing is on, each event's deliveries are enqueued in
   * the trace context its row carries, so their jobs (and attempts) continue the trace of
   * the transaction that wrote the event; the rest go together, as always with tracing off.
   */
  private async enqueueInTraces(
    events: ReadonlyArray<{ id: string; traceContext: unknown }>,
    deliveries: readonly FannedOutDelivery[],
  ): Promise<void> {
    const traced = new Map(tracingOn() ? events.filter((e) => e.traceContext !== null).map((e) => [e.id, e.traceContext]) : []);
    if (traced.size === 0) return this.queue.enqueue(deliveries.map((d) => d.job));
    const untraced: DeliveryJobData[] = [];
    const byEvent = new Map<string, DeliveryJobData[]>();
    for (const d of deliveries) {
      if (!traced.has(d.eventId)) untraced.push(d.job);
      else byEvent.set(d.eventId, [...(byEvent.get(d.eventId) ?? []), d.job]);
    }
    await Promise.all([
      this.queue.enqueue(untraced),
      ...[...byEvent].map(([eventId, jobs]) => withTraceCarrier(traced.get(eventId), () => this.queue.enqueue(jobs))),
    ]);
  }

  /** Re-enqueues pending deliveries long past their due time (their job was lost). */
  async requeueOverdue(): Promise<number> {
    const grace = Math.max(60_000, 2 * this.config.WEBHOOK_LOCK_DURATION_MS);
    const ids = await this.deliveries.overdueDeliveries(this.options.ownerType, new Date(this.clock.nowMs() - grace), 500);
    await this.queue.enqueue(ids);
    // Each of these had lost its job (or its worker): worth a line, unlike the usual empty pass.
    if (ids.length > 0) this.logger.log(`sweep re-enqueued ${ids.length} overdue webhook deliveries`);
    return ids.length;
  }

  /**
   * Deletes events older than EVENT_RETENTION_DAYS whose deliveries have all finished,
   * in batches (with their deliveries and attempts); returns how many events went.
   */
  async purgeExpired(maxBatches = 20): Promise<number> {
    if (this.config.retentionMs <= 0) return 0;
    const before = new Date(this.clock.nowMs() - this.config.retentionMs);
    let total = 0;
    for (let i = 0; i < maxBatches && !this.stopped; i++) {
      const n = await this.transactions.run((tx) => this.outbox.purgeEvents(tx, this.options.ownerType, before, PURGE_BATCH));
      total += n;
      if (n < PURGE_BATCH) break;
    }
    if (total > 0) this.logger.log(`purged ${total} webhook events older than ${this.config.retentionDays} days`);
    return total;
  }

  /**
   * After Redis answers again (it may have restarted EMPTY): every pending delivery gets its
   * job back, due at its next attempt, so a retry waiting in a lost delayed job is not held
   * up until `requeueOverdue` finds it. A job Redis still has is kept (job id = delivery id).
   */
  async restoreJobs(): Promise<number> {
    let total = 0;
    let after: string | undefined;
    while (!this.stopped) {
      const rows = await this.deliveries.pendingDeliveries(this.options.ownerType, after, 500);
      await this.queue.enqueueAt(
        rows.map((r) => ({ id: r.id, at: r.nextAttemptAt })),
        this.clock.nowMs(),
      );
      total += rows.length;
      after = rows.at(-1)?.id;
      if (rows.length < 500) break;
    }
    if (total > 0) this.logger.log(`Redis reconnected: re-enqueued ${total} pending webhook deliveries`);
    return total;
  }

  private sweep(): void {
    this.nudge();
    this.requeueOverdue().catch((err: unknown) => this.logFailure('requeue overdue deliveries', err));
    const now = this.clock.nowMs();
    if (now - this.lastPurge >= PURGE_EVERY_MS) {
      this.lastPurge = now;
      this.purgeExpired().catch((err: unknown) => this.logFailure('purge of expired webhook events', err));
    }
  }

  private listen(): void {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.platform.DATABASE_URL });
    this.listener = client;
    const retry = (err: unknown): void => {
      this.logFailure('outbox LISTEN connection', err);
      client.removeAllListeners();
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.reconnectTimer = setTimeout(() => this.listen(), 1_000);
      this.reconnectTimer.unref();
    };
    client.on('error', retry);
    client.on('notification', (msg) => {
      if (msg.channel === OUTBOX_CHANNEL && msg.payload === this.options.ownerType) this.nudge();
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${OUTBOX_CHANNEL}`))
      .then(() => this.nudge()) // events committed while we were not listening
      .catch(retry);
  }

  private logFailure(what: string, err: unknown): void {
    this.failures.warn(`${what} failed (the sweep retries): ${err instanceof Error ? err.message : String(err)}`);
  }
}
