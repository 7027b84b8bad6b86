import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Clock, inSpan, SpanKind, SpanStatusCode } from '@app/platform';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import { signedHeaders } from '../security/signature';
import { WebhooksConfig } from '../webhooks.config';
import { WebhooksMetrics } from '../webhooks.metrics';
import {
  type AttemptOutcome,
  type AttemptRecord,
  type DeliveryWork,
  WebhookDeliveriesRepository,
} from '../webhook-deliveries.repository';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../webhooks.tokens';
import type { WebhookDialect, WebhookEnvelope } from '../webhooks.types';
import { Batcher } from './batcher';
import { DEFAULT_POOL, HttpSender, type SendResult } from './http-sender';

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
    // an example sent by POST …/test says so (contract, "Webhooks, more")
    ...(event.test ? { test: true as const } : {}),
  };
  return JSON.stringify(envelope);
}

/**
 * The body and headers of one attempt: for an endpoint of the own API, the envelope signed
 * with `Service-Signature` and Standard Webhooks; for a dialect endpoint, the dialect's body
 * of the event's dialect side (DeliveryWork holds that side) and its headers. `secrets`: the
 * current secret, then a rotated-out one still in its grace.
 */
export function attemptRequest(
  work: Pick<DeliveryWork, 'endpoint' | 'event'>,
  secrets: readonly [string, ...string[]],
  timestampSeconds: number,
  dialect: WebhookDialect | undefined,
): { body: string; headers: Record<string, string> } {
  const { endpoint, event } = work;
  if (endpoint.dialect === null) {
    const body = envelopeBody(event);
    return { body, headers: { ...signedHeaders(secrets, event.id, timestampSeconds, body) } };
  }
  if (dialect === undefined || dialect.name !== endpoint.dialect) {
    throw new Error(`no webhook dialect ${endpoint.dialect} to deliver with`);
  }
  const body = dialect.body({
    id: event.id,
    ownerId: endpoint.ownerId,
    event: event.event,
    data: event.data,
    createdAt: event.createdAt,
  });
  return { body, headers: dialect.headers(secrets, event.id, timestampSeconds, body) };
}

/**
 * Decides what an attempt's result means (platform contract, Webhooks): 2xx succeeds;
 * 410 Gone disables the endpoint; a `webhook-delivery: abort` header on any other answer
 * ends this delivery as failed without touching the endpoint's health (the receiver
 * answered, deliberately); anything else — other statuses, timeouts, connection errors,
 * a redirect, a blocked address — is retried on the schedule, not before a `Retry-After`;
 * the delivery fails after the last retry, and an endpoint failing continuously for
 * WEBHOOK_DISABLE_AFTER_HOURS is disabled.
 */
export function decideOutcome(
  work: Pick<DeliveryWork, 'roundAttempts' | 'endpoint'>,
  result: Pick<SendResult, 'statusCode' | 'retryAfterMs'> & { readonly abort?: boolean },
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
  if (result.abort === true) return { status: 'failed', nextAttemptAt: null, endpoint: { kind: 'unchanged' } };
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

/**
 * The attributes of an attempt's span (CLIENT, named `POST` as OpenTelemetry's HTTP client
 * conventions name it): the HTTP client attributes and the event's type. The URL is
 * exported without its path and query — `url.full` is the origin only — because receivers
 * keep secrets there (Slack's `/services/T…/B…/<secret>`, Discord's `/webhooks/<id>/<token>`);
 * the delivery and event ids are attributes of the span only, never metric labels.
 */
export function attemptAttributes(work: {
  readonly deliveryId: string;
  readonly roundAttempts: number;
  readonly endpoint: { readonly url: string };
  readonly event: { readonly id: string; readonly event: string };
}): Record<string, string | number> {
  const attributes: Record<string, string | number> = {
    [ATTR_HTTP_REQUEST_METHOD]: 'POST',
    'webhook.event.type': work.event.event,
    'webhook.event.id': work.event.id,
    'webhook.delivery.id': work.deliveryId,
    'webhook.attempt': work.roundAttempts + 1,
  };
  try {
    const url = new URL(work.endpoint.url);
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    attributes[ATTR_URL_FULL] = url.origin;
    attributes[ATTR_URL_SCHEME] = url.protocol.replace(/:$/, '');
    attributes[ATTR_SERVER_ADDRESS] = url.hostname;
    attributes[ATTR_SERVER_PORT] = port;
  } catch {
    // an invalid URL fails the attempt itself
  }
  return attributes;
}

/** The HTTP exchange of one attempt, before it is recorded. */
export interface Exchange {
  readonly work: DeliveryWork;
  readonly result: SendResult;
  readonly at: Date;
}

/**
 * One attempt of one delivery: load, sign, POST, record, decide. Loads and records are
 * batched across the attempts that run at the same moment (Batcher): one query loads the
 * work of every job that started within WEBHOOK_BATCH_WINDOW_MS, and one statement records
 * every attempt that ended within it; a job completes only once its record is committed.
 */
@Injectable()
export class DeliveryService implements OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  readonly sender: HttpSender;
  private readonly loader: Batcher<string, DeliveryWork | null>;
  /** Resolves per record: undefined once committed, or the error that kept it from being written. */
  private readonly recorder: Batcher<AttemptRecord, Error | undefined>;

  constructor(
    private readonly repository: WebhookDeliveriesRepository,
    @Inject(WebhooksConfig) private readonly config: WebhooksConfig,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly metrics: WebhooksMetrics,
    private readonly clock: Clock,
  ) {
    this.sender = new HttpSender({
      maxSocketsPerOrigin: config.WEBHOOK_HTTP_MAX_SOCKETS_PER_ORIGIN,
      maxTotalSockets: config.WEBHOOK_HTTP_MAX_SOCKETS,
      maxFreeSockets: config.WEBHOOK_HTTP_MAX_FREE_SOCKETS,
      idleTimeoutMs: DEFAULT_POOL.idleTimeoutMs,
    });
    const windowMs = config.WEBHOOK_BATCH_WINDOW_MS;
    const maxBatch = Math.max(1, config.WEBHOOK_WORKER_CONCURRENCY);
    this.loader = new Batcher(
      async (ids) => {
        const works = await this.repository.deliveryWorks(ids);
        return ids.map((id) => works.get(id) ?? null);
      },
      { maxBatch, windowMs },
    );
    this.recorder = new Batcher((records) => this.recordBatch(records), {
      maxBatch,
      windowMs,
      // one UPDATE changes a delivery once: a second attempt of one delivery goes in the next batch
      key: (r) => r.deliveryId,
    });
  }

  onApplicationShutdown(): void {
    this.loader.flush();
    this.recorder.flush();
    this.sender.close();
  }

  /**
   * What an attempt of the delivery needs, or why there is nothing to send: its endpoint was
   * deleted, it is no longer pending, or its endpoint was disabled (then it fails here).
   */
  async prepare(deliveryId: string): Promise<PreparedDelivery> {
    const work = await this.loader.add(deliveryId);
    if (work === null) return { kind: 'missing' };
    if (work.status !== 'pending') return { kind: 'finished', status: 'skipped' };
    if (work.endpoint.disabledAt !== null) {
      await this.repository.failDelivery(deliveryId);
      this.metrics.outcomes.inc({ outcome: 'endpoint_disabled' });
      return { kind: 'finished', status: 'failed' };
    }
    if (work.endpoint.dialect !== null && work.endpoint.dialect !== this.options.dialect?.name) {
      // an endpoint of a dialect this app no longer speaks: nothing to render it with
      await this.repository.failDelivery(deliveryId);
      this.metrics.outcomes.inc({ outcome: 'failed' });
      this.logger.warn(
        { deliveryId, endpointId: work.endpoint.id },
        `no webhook dialect ${work.endpoint.dialect} to deliver with`,
      );
      return { kind: 'finished', status: 'failed' };
    }
    return { kind: 'ready', work };
  }

  /** Signs and POSTs (the part that holds a fair-share slot). */
  async exchange(work: DeliveryWork): Promise<Exchange> {
    const now = this.clock.now();
    const { endpoint } = work;
    // commit to first attempt; later attempts (retries) are not lag, and a delivery never
    // attempted before its recovery or redelivery (created failed for a disabled endpoint)
    // counts from its requeue, not from the event's commit hours before
    if (work.attemptCount === 0) {
      const from = Math.max(work.event.createdAt.getTime(), work.nextAttemptAt?.getTime() ?? 0);
      this.metrics.deliveryLag.observe(Math.max(0, now.getTime() - from) / 1000);
    }
    const secrets: [string, ...string[]] = [endpoint.secret];
    if (endpoint.previousSecret !== null && endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now) {
      secrets.push(endpoint.previousSecret);
    }
    const { body, headers } = attemptRequest(work, secrets, Math.floor(now.getTime() / 1000), this.options.dialect);
    const result = await inSpan('POST', { kind: SpanKind.CLIENT, attributes: attemptAttributes(work) }, async (span) => {
      const sent = await this.sender.send({
        url: endpoint.url,
        headers,
        body,
        timeoutMs: this.config.WEBHOOK_TIMEOUT_MS,
        allowPrivateUrls: this.config.allowPrivateUrls,
      });
      if (sent.statusCode !== null) span?.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, sent.statusCode);
      if (sent.error !== null) {
        span?.setAttribute(ATTR_ERROR_TYPE, sent.errorType ?? '_OTHER');
        span?.setStatus({ code: SpanStatusCode.ERROR, message: sent.error });
      }
      return sent;
    });
    this.metrics.observeAttempt(result.statusCode, result.durationMs / 1000);
    return { work, result, at: this.clock.now() };
  }

  /** Decides and records what the exchange means; resolves once the record is committed. */
  async record({ work, result, at }: Exchange): Promise<AttemptResult> {
    const { deliveryId, endpoint } = work;
    const outcome = decideOutcome(work, result, at, this.config);
    const attempt = {
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: result.error,
      responseExcerpt: result.responseExcerpt,
      at,
    };
    const failed = await this.recorder.add({ deliveryId, endpointId: endpoint.id, attempt, outcome });
    if (failed !== undefined) throw failed; // not recorded: the job fails and BullMQ retries it
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
        if (result.abort && outcome.endpoint.kind === 'unchanged') {
          this.metrics.outcomes.inc({ outcome: 'aborted' });
          this.logger.log(context, 'webhook delivery aborted by its receiver (webhook-delivery: abort)');
        } else {
          this.metrics.outcomes.inc({ outcome: 'failed' });
          this.logger.warn({ ...context, error: result.error }, 'webhook delivery failed after its last retry');
        }
        return { kind: 'finished', status: 'failed' };
      case 'pending':
        this.metrics.outcomes.inc({ outcome: 'retry_scheduled' });
        return { kind: 'retry', at: outcome.nextAttemptAt ?? at };
    }
  }

  /**
   * One statement for the batch; if it fails (say one delivery was deleted with its
   * endpoint meanwhile: the attempt's foreign key), each record is written alone, so one
   * bad row fails only its own job (which BullMQ then retries).
   */
  private async recordBatch(records: readonly AttemptRecord[]): Promise<Array<Error | undefined>> {
    const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
    try {
      await this.repository.recordAttempts(records);
      return records.map(() => undefined);
    } catch (err) {
      if (records.length === 1) return [asError(err)];
      const results = await Promise.allSettled(records.map((r) => this.repository.recordAttempts([r])));
      return results.map((r) => (r.status === 'rejected' ? asError(r.reason) : undefined));
    }
  }
}
