import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Clock, PrismaService, TransactionRunner } from '@app/platform';
import { signedHeaders } from '../security/signature';
import { WebhooksConfig } from '../webhooks.config';
import { WebhooksMetrics } from '../webhooks.metrics';
import { type AttemptOutcome, type DeliveryWork, WebhookDeliveriesRepository } from '../webhook-deliveries.repository';
import type { WebhookEnvelope } from '../webhooks.types';
import { HttpSender, type SendResult } from './http-sender';

/** Longest `Retry-After` we wait for; longer values are cut to this. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

export type AttemptResult =
  | { readonly kind: 'missing' }
  | { readonly kind: 'finished'; readonly status: 'succeeded' | 'failed' | 'skipped' }
  | { readonly kind: 'retry'; readonly at: Date };

export type PreparedDelivery =
  Exclude<AttemptResult, { kind: 'retry' }> | { readonly kind: 'ready'; readonly work: DeliveryWork };

/** The exact body of every attempt of an event (same bytes each time, so signatures are stable). */
export function envelopeBody(event: DeliveryWork['event']): string {
  const envelope: WebhookEnvelope = {
    id: event.id,
    event: event.event,
    timestamp: event.createdAt.toISOString(),
    data: event.data,
    ...(event.test ? { test: true } : {}),
  };
  return JSON.stringify(envelope);
}

/**
 * Decides what an attempt's result means (platform contract, Webhooks): 2xx succeeds;
 * 410 Gone disables the endpoint; anything else — other statuses, timeouts, connection
 * errors, a redirect, a blocked address — is retried on the schedule, not before a
 * `Retry-After`; the delivery fails after the last retry, and an endpoint failing
 * continuously for WEBHOOK_DISABLE_AFTER_HOURS is disabled.
 */
export function decideOutcome(
  work: Pick<DeliveryWork, 'roundAttempts' | 'endpoint'>,
  result: Pick<SendResult, 'statusCode' | 'retryAfterMs'>,
  at: Date,
  config: Pick<WebhooksConfig, 'retryScheduleMs' | 'disableAfterMs'>,
): AttemptOutcome {
  const code = result.statusCode;
  if (code !== null && code >= 200 && code < 300) {
    return { status: 'succeeded', nextAttemptAt: null, endpoint: { kind: 'healthy' } };
  }
  const since = work.endpoint.failingSince ?? at;
  if (code === 410) {
    return { status: 'failed', nextAttemptAt: null, endpoint: { kind: 'disable', since, reason: 'endpoint answered 410 Gone' } };
  }
  if (at.getTime() - since.getTime() >= config.disableAfterMs) {
    const hours = Math.round((config.disableAfterMs / 3_600_000) * 10) / 10;
    return {
      status: 'failed',
      nextAttemptAt: null,
      endpoint: { kind: 'disable', since, reason: `failing continuously for ${hours} h` },
    };
  }
  const scheduled = config.retryScheduleMs[work.roundAttempts];
  if (scheduled === undefined) return { status: 'failed', nextAttemptAt: null, endpoint: { kind: 'failing', since } };
  const delay = Math.max(scheduled, Math.min(result.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
  return { status: 'pending', nextAttemptAt: new Date(at.getTime() + delay), endpoint: { kind: 'failing', since } };
}

/** One attempt of one delivery: load, sign, POST, record, decide. */
@Injectable()
export class DeliveryService implements OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  readonly sender = new HttpSender();

  constructor(
    private readonly repository: WebhookDeliveriesRepository,
    private readonly transactions: TransactionRunner,
    /** Only to run the one-statement attempt record on the pool (see recordAttempt). */
    private readonly prisma: PrismaService,
    @Inject(WebhooksConfig) private readonly config: WebhooksConfig,
    private readonly metrics: WebhooksMetrics,
    private readonly clock: Clock,
  ) {}

  onApplicationShutdown(): void {
    this.sender.close();
  }

  /** Loads and sends one attempt of a delivery (`prepare`, then `send`). */
  async attempt(deliveryId: string): Promise<AttemptResult> {
    const prepared = await this.prepare(deliveryId);
    return prepared.kind === 'ready' ? this.send(prepared.work) : prepared;
  }

  /**
   * What an attempt of the delivery needs, or why there is nothing to send: its endpoint was
   * deleted, it is no longer pending, or its endpoint was disabled (then it fails here).
   */
  async prepare(deliveryId: string): Promise<PreparedDelivery> {
    const work = await this.repository.deliveryWork(deliveryId);
    if (work === null) return { kind: 'missing' };
    if (work.status !== 'pending') return { kind: 'finished', status: 'skipped' };
    if (work.endpoint.disabledAt !== null) {
      await this.transactions.run((tx) => this.repository.failDelivery(tx, deliveryId));
      this.metrics.outcomes.inc({ outcome: 'endpoint_disabled' });
      return { kind: 'finished', status: 'failed' };
    }
    return { kind: 'ready', work };
  }

  /** Signs, POSTs, records the attempt and decides what comes next. */
  async send(work: DeliveryWork): Promise<AttemptResult> {
    const { deliveryId } = work;
    const now = this.clock.now();
    const { endpoint } = work;
    const secrets: [string, ...string[]] = [endpoint.secret];
    if (endpoint.previousSecret !== null && endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now) {
      secrets.push(endpoint.previousSecret);
    }
    const body = envelopeBody(work.event);
    const headers = signedHeaders(secrets, work.event.id, Math.floor(now.getTime() / 1000), body);
    const result = await this.sender.send({
      url: endpoint.url,
      headers: { ...headers },
      body,
      timeoutMs: this.config.WEBHOOK_TIMEOUT_MS,
      allowPrivateUrls: this.config.allowPrivateUrls,
    });
    this.metrics.observeAttempt(result.statusCode, result.durationMs / 1000);

    const at = this.clock.now();
    const outcome = decideOutcome(work, result, at, this.config);
    const attempt = {
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: result.error,
      responseExcerpt: result.responseExcerpt,
      at,
    };
    await this.repository.recordAttempt(this.prisma, work, attempt, outcome);
    // Never log the URL (it may carry a receiver's token) or any secret.
    const context = { deliveryId, endpointId: endpoint.id, eventId: work.event.id, statusCode: result.statusCode };
    if (outcome.endpoint.kind === 'disable') {
      this.metrics.outcomes.inc({ outcome: 'endpoint_disabled' });
      this.logger.warn({ ...context, reason: outcome.endpoint.reason }, 'webhook endpoint disabled');
      return { kind: 'finished', status: 'failed' };
    }
    switch (outcome.status) {
      case 'succeeded':
        this.metrics.outcomes.inc({ outcome: 'succeeded' });
        return { kind: 'finished', status: 'succeeded' };
      case 'failed':
        this.metrics.outcomes.inc({ outcome: 'failed' });
        this.logger.warn({ ...context, error: result.error }, 'webhook delivery failed after its last retry');
        return { kind: 'finished', status: 'failed' };
      case 'pending':
        this.metrics.outcomes.inc({ outcome: 'retry_scheduled' });
        return { kind: 'retry', at: outcome.nextAttemptAt ?? at };
    }
  }
}
