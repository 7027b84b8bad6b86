import { Injectable } from '@nestjs/common';
import { MetricsService } from '@app/platform';
import { Counter, Gauge, Histogram } from 'prom-client';

export type DeliveryOutcome = 'succeeded' | 'retry_scheduled' | 'failed' | 'aborted' | 'endpoint_disabled';
const DELIVERY_OUTCOMES: readonly DeliveryOutcome[] = ['succeeded', 'retry_scheduled', 'failed', 'aborted', 'endpoint_disabled'];

/**
 * Webhook metrics in the service's registry: outcomes of attempts, attempt latency, and
 * two gauges computed at scrape time (outbox lag, queue depth) from callbacks the
 * dispatcher registers.
 */
@Injectable()
export class WebhooksMetrics {
  readonly outcomes: Counter<'outcome'>;
  readonly attemptDuration: Histogram<'result'>;
  /** Deliveries parked without an attempt because their endpoint or owner had no free slot, or held back by the endpoint's rate limit. */
  readonly deferrals: Counter<'limit'>;
  /**
   * From the event's commit (webhook_events.created_at) to the start of its delivery's first
   * attempt; for a delivery first attempted after a recovery or redelivery (created failed
   * for a disabled endpoint), from its requeue.
   */
  readonly deliveryLag: Histogram;
  private inFlightSource: () => number = () => 0;
  private lagSource: () => Promise<number> = () => Promise.resolve(0);
  private depthSource: () => Promise<Record<string, number>> = () => Promise.resolve({});

  constructor(metrics: MetricsService) {
    const registers = [metrics.registry];
    this.outcomes = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (succeeded, retry_scheduled, failed = retries exhausted, aborted = the receiver answered webhook-delivery: abort, endpoint_disabled)',
      labelNames: ['outcome'],
      registers,
    });
    // Every outcome exists at 0 from the first scrape, so increase() sees the first one.
    for (const outcome of DELIVERY_OUTCOMES) this.outcomes.inc({ outcome }, 0);
    this.attemptDuration = new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Duration of webhook POST attempts, by result (2xx, non_2xx, error)',
      labelNames: ['result'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.deferrals = new Counter({
      name: 'webhook_deliveries_deferred_total',
      help: "Deliveries put back without an attempt, by limit: endpoint or owner (no free slot in this worker), rate (the endpoint's rate_limit_per_second)",
      labelNames: ['limit'],
      registers,
    });
    this.deliveryLag = new Histogram({
      name: 'webhook_delivery_lag_seconds',
      help: "Time from a webhook event's commit to the start of its delivery's first attempt, per delivery",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    });
    const inFlight = (): number => this.inFlightSource();
    new Gauge({
      name: 'webhook_attempts_in_flight',
      help: 'Webhook attempts in flight in this process',
      registers,
      collect() {
        this.set(inFlight());
      },
    });
    // Absent (reset, nothing set) while their source does not answer: no -1, no stale value.
    const lag = (): Promise<number | undefined> => this.lagSource().catch(() => undefined);
    const depth = (): Promise<Record<string, number>> => this.depthSource().catch(() => ({}));
    // prom-client always exports an unlabelled gauge (reset() sets it to 0): this one drops
    // its sample when the last collect had no answer.
    let lagAbsent = false;
    const AbsentWhenUnknown = class extends Gauge {
      override async get(): ReturnType<Gauge['get']> {
        const metric = await super.get();
        return lagAbsent ? { ...metric, values: [] } : metric;
      }
    };
    new AbsentWhenUnknown({
      name: 'webhook_outbox_lag_seconds',
      help: 'Age of the oldest committed webhook event not yet dispatched to the queue (0 when none; absent while the database does not answer)',
      registers,
      async collect() {
        const seconds = await lag();
        lagAbsent = seconds === undefined;
        this.set(seconds ?? 0);
      },
    });
    new Gauge({
      name: 'webhook_queue_depth',
      help: 'Webhook delivery jobs in the queue by state (absent while Redis does not answer)',
      labelNames: ['state'],
      registers,
      async collect() {
        this.reset();
        const counts = await depth();
        for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
      },
    });
  }

  setSources(lag: () => Promise<number>, depth: () => Promise<Record<string, number>>): void {
    this.lagSource = lag;
    this.depthSource = depth;
  }

  setInFlightSource(source: () => number): void {
    this.inFlightSource = source;
  }

  observeAttempt(statusCode: number | null, seconds: number): void {
    const result = statusCode === null ? 'error' : statusCode >= 200 && statusCode < 300 ? '2xx' : 'non_2xx';
    this.attemptDuration.observe({ result }, seconds);
  }
}
