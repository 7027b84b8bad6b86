import { Injectable } from '@nestjs/common';
import { PrismaService, type Tx } from '@app/platform';
import { metadataOf } from './webhook-endpoints.repository';
import type {
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookEndpointRecord,
  WebhookOwner,
  WebhookOwnerType,
} from './webhooks.types';

const DELIVERY_INCLUDE = {
  event: { select: { event: true, dialectEvent: true } },
  endpoint: { select: { dialect: true } },
  attempts: { orderBy: { createdAt: 'asc' as const } },
};

/**
 * The delivery log's filter on the endpoint: the owner's, of the own API (its routes are the
 * only readers of the log; a dialect endpoint's deliveries are not theirs to see).
 */
function ownEndpointOf(owner: WebhookOwner): { ownerType: string; ownerId: string; dialect: null } {
  return { ownerType: owner.ownerType, ownerId: owner.ownerId, dialect: null };
}

/**
 * The event's type as its endpoint gets it: the own kind for an own endpoint, the dialect's
 * type for a dialect endpoint (fanOut made the delivery only when that side exists).
 */
export function eventTypeFor(
  endpointDialect: string | null,
  event: { event: string | null; dialectEvent: string | null },
): string {
  const type = endpointDialect === null ? event.event : event.dialectEvent;
  if (type === null) {
    throw new Error(`a delivery to an endpoint of ${endpointDialect ?? 'the own API'} for an event without that side`);
  }
  return type;
}

interface DeliveryRow {
  id: string;
  endpointId: string;
  eventId: string;
  status: WebhookDeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  createdAt: Date;
  event: { event: string | null; dialectEvent: string | null };
  endpoint: { dialect: string | null };
  attempts: Array<{
    statusCode: number | null;
    durationMs: number;
    error: string | null;
    responseExcerpt: string | null;
    createdAt: Date;
  }>;
}

function toDelivery(row: DeliveryRow): WebhookDeliveryRecord {
  return {
    id: row.id,
    endpointId: row.endpointId,
    eventId: row.eventId,
    event: eventTypeFor(row.endpoint.dialect, row.event),
    status: row.status,
    attemptCount: row.attemptCount,
    nextAttemptAt: row.nextAttemptAt,
    lastAttemptAt: row.lastAttemptAt,
    createdAt: row.createdAt,
    attempts: row.attempts.map((a) => ({
      statusCode: a.statusCode,
      durationMs: a.durationMs,
      error: a.error,
      responseExcerpt: a.responseExcerpt,
      createdAt: a.createdAt,
    })),
  };
}

/** Everything the worker needs for one attempt. */
export interface DeliveryWork {
  readonly deliveryId: string;
  readonly status: WebhookDeliveryStatus;
  readonly roundAttempts: number;
  /** Attempts recorded so far, over every round: 0 before the first (webhook_delivery_lag_seconds). */
  readonly attemptCount: number;
  /**
   * When the next attempt is due. Before the first attempt: the event's commit for a
   * delivery pending since its creation, the requeue time for one recovered or redelivered
   * (webhook_delivery_lag_seconds counts from the later of the two).
   */
  readonly nextAttemptAt: Date | null;
  readonly endpoint: WebhookEndpointRecord;
  /** The event as the endpoint gets it: its own kind and data, or its dialect's type and data. */
  readonly event: {
    readonly id: string;
    readonly event: string;
    readonly data: unknown;
    readonly createdAt: Date;
    /** Sent by POST …/test (marked `"test": true` in the envelope). */
    readonly test: boolean;
  };
}

export interface AttemptRow {
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
  readonly responseExcerpt: string | null;
  readonly at: Date;
}

export interface AttemptOutcome {
  /** New delivery status; `pending` with `nextAttemptAt` schedules a retry. */
  readonly status: WebhookDeliveryStatus;
  readonly nextAttemptAt: Date | null;
  /** Endpoint health after this attempt; `unchanged`: the attempt says nothing about it (the receiver aborted deliberately). */
  readonly endpoint:
    | { readonly kind: 'healthy' }
    | { readonly kind: 'unchanged' }
    | { readonly kind: 'failing'; readonly since: Date }
    | { readonly kind: 'disable'; readonly since: Date; readonly reason: string };
}

/** One attempt to record: the delivery and endpoint it belongs to, what happened, and what it means. */
export interface AttemptRecord {
  readonly deliveryId: string;
  readonly endpointId: string;
  readonly attempt: AttemptRow;
  readonly outcome: AttemptOutcome;
}

/** A row of the work query (raw SQL: snake_case columns as selected). */
interface WorkRow {
  id: string;
  status: WebhookDeliveryStatus;
  round_attempts: number;
  attempt_count: number;
  next_attempt_at: Date | null;
  endpoint_id: string;
  owner_type: string;
  owner_id: string;
  dialect: string | null;
  metadata: unknown;
  url: string;
  events: string[];
  description: string | null;
  rate_limit_per_second: number | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  failing_since: Date | null;
  endpoint_created_at: Date;
  event_id: string;
  /** the side of the event the endpoint gets (own kind, or the dialect's type) */
  event: string | null;
  data: unknown;
  event_created_at: Date;
  test: boolean;
}

/**
 * What one batch of attempt records does to one endpoint's health, folded in attempt order
 * (one UPDATE may change a row only once per statement): `failing_since` is set to a value
 * (a success came first, so what came before it no longer counts), or coalesced with one,
 * or left alone; `disable` keeps the first disabling attempt of the batch.
 */
interface HealthChange {
  endpointId: string;
  mode: 'set' | 'coalesce' | 'keep';
  since: Date | null;
  disabledAt: Date | null;
  reason: string | null;
}

export function foldHealth(records: readonly AttemptRecord[]): HealthChange[] {
  const byEndpoint = new Map<string, HealthChange>();
  const ordered = [...records].sort((a, b) => a.attempt.at.getTime() - b.attempt.at.getTime());
  for (const r of ordered) {
    const h = byEndpoint.get(r.endpointId) ?? {
      endpointId: r.endpointId,
      mode: 'keep',
      since: null,
      disabledAt: null,
      reason: null,
    };
    byEndpoint.set(r.endpointId, h);
    const ep = r.outcome.endpoint;
    switch (ep.kind) {
      case 'unchanged':
        break;
      case 'healthy':
        h.mode = 'set';
        h.since = null;
        break;
      case 'failing':
      case 'disable':
        // after a success in this batch the first failure since sets it; otherwise the
        // first failure of the batch is coalesced with what the row holds
        if (h.mode === 'keep') {
          h.mode = 'coalesce';
          h.since = ep.since;
        } else if (h.since === null) h.since = ep.since;
        if (ep.kind === 'disable' && h.disabledAt === null) {
          h.disabledAt = r.attempt.at;
          h.reason = ep.reason;
        }
        break;
    }
  }
  return [...byEndpoint.values()].filter((h) => h.mode !== 'keep' || h.disabledAt !== null);
}

/**
 * Deliveries and their attempts: the work of one attempt and its record, the delivery log
 * an owner reads, redelivery, and the sweeps' queries. Methods used on behalf of a caller
 * take the owner, so no query can cross owners; writes run in the caller's transaction.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly prisma: PrismaService) {}

  // ---- attempts --------------------------------------------------------------------

  /**
   * The work of many deliveries in ONE raw query (the worker's loader batches the jobs
   * that start together): the ORM's findUnique with includes was the worker's largest
   * cost per attempt (docs/benchmarks.md, "Webhooks"). Missing ids are absent from the map.
   */
  async deliveryWorks(deliveryIds: readonly string[]): Promise<Map<string, DeliveryWork>> {
    const out = new Map<string, DeliveryWork>();
    if (deliveryIds.length === 0) return out;
    const ids = [...deliveryIds];
    const rows = await this.prisma.$queryRaw<WorkRow[]>`
      SELECT d."id", d."status"::text AS "status", d."round_attempts", d."attempt_count", d."next_attempt_at",
              e."id" AS "endpoint_id", e."owner_type", e."owner_id", e."dialect", e."metadata", e."url", e."events", e."description",
              e."rate_limit_per_second", e."secret", e."previous_secret", e."previous_secret_expires_at",
              e."disabled_at", e."disabled_reason", e."failing_since", e."created_at" AS "endpoint_created_at",
              v."id" AS "event_id",
              CASE WHEN e."dialect" IS NULL THEN v."event" ELSE v."dialect_event" END AS "event",
              CASE WHEN e."dialect" IS NULL THEN v."data" ELSE v."dialect_data" END AS "data",
              v."created_at" AS "event_created_at", v."test"
       FROM "webhook_deliveries" d
       JOIN "webhook_endpoints" e ON e."id" = d."endpoint_id"
       JOIN "webhook_events" v ON v."id" = d."event_id"
       WHERE d."id" = ANY(${ids}::text[])`;
    for (const r of rows) {
      // fanOut makes a delivery only for the side the endpoint gets: none is missing
      if (r.event === null) continue;
      out.set(r.id, {
        deliveryId: r.id,
        status: r.status,
        roundAttempts: r.round_attempts,
        attemptCount: r.attempt_count,
        nextAttemptAt: r.next_attempt_at === null ? null : new Date(r.next_attempt_at),
        endpoint: {
          id: r.endpoint_id,
          ownerType: r.owner_type,
          ownerId: r.owner_id,
          dialect: r.dialect,
          metadata: metadataOf(typeof r.metadata === 'string' ? (JSON.parse(r.metadata) as unknown) : r.metadata),
          url: r.url,
          events: r.events,
          description: r.description,
          rateLimitPerSecond: r.rate_limit_per_second,
          secret: r.secret,
          previousSecret: r.previous_secret,
          previousSecretExpiresAt: toDate(r.previous_secret_expires_at),
          disabledAt: toDate(r.disabled_at),
          disabledReason: r.disabled_reason,
          failingSince: toDate(r.failing_since),
          createdAt: toDate(r.endpoint_created_at) ?? new Date(0),
        },
        event: {
          id: r.event_id,
          event: r.event,
          data: typeof r.data === 'string' ? (JSON.parse(r.data) as unknown) : r.data,
          createdAt: toDate(r.event_created_at) ?? new Date(0),
          test: r.test,
        },
      });
    }
    return out;
  }

  /**
   * Stores attempts and their consequences — the attempt rows, each delivery's new state
   * (only while still pending, so a late duplicate attempt cannot undo a success) and the
   * endpoints' health — in ONE statement (data-modifying CTEs are atomic together), for
   * as many attempts as the worker's recorder gathered in a few ms: one commit instead of
   * one per attempt. Being atomic by itself, it needs no transaction of its own: it runs on
   * the pool (autocommit). The rows travel as one JSON
   * parameter. A delivery may appear once per call (its UPDATE changes a row once);
   * endpoints' changes are folded in attempt order first (foldHealth).
   */
  async recordAttempts(records: readonly AttemptRecord[]): Promise<void> {
    if (records.length === 0) return;
    const attempts = JSON.stringify(
      records.map((r) => ({
        delivery_id: r.deliveryId,
        endpoint_id: r.endpointId,
        status_code: r.attempt.statusCode,
        duration_ms: r.attempt.durationMs,
        error: r.attempt.error,
        response_excerpt: r.attempt.responseExcerpt,
        at: r.attempt.at.toISOString(),
        status: r.outcome.status,
        next_attempt_at: r.outcome.nextAttemptAt?.toISOString() ?? null,
      })),
    );
    const changes = foldHealth(records);
    const health = JSON.stringify(
      changes.map((h) => ({
        endpoint_id: h.endpointId,
        mode: h.mode,
        since: h.since?.toISOString() ?? null,
        disabled_at: h.disabledAt?.toISOString() ?? null,
        reason: h.reason,
      })),
    );
    const deliveryIds = records.map((r) => r.deliveryId);
    const endpointIds = changes.map((h) => h.endpointId);
    await this.prisma.$executeRaw`
      WITH input AS (
         SELECT * FROM json_to_recordset(${attempts}::json) AS t(
           delivery_id text, endpoint_id text, status_code int, duration_ms int, error text, response_excerpt text,
           at timestamptz, status text, next_attempt_at timestamptz)
       ), attempt AS (
         INSERT INTO "webhook_attempts" ("id", "delivery_id", "endpoint_id", "status_code", "duration_ms", "error", "response_excerpt", "created_at")
         SELECT gen_random_uuid(), i.delivery_id, i.endpoint_id, i.status_code, i.duration_ms, i.error, i.response_excerpt, i.at FROM input i
       ), delivery AS (
         UPDATE "webhook_deliveries" d
         SET "status" = i.status::"webhook_delivery_status",
             "attempt_count" = d."attempt_count" + 1,
             "round_attempts" = d."round_attempts" + 1,
             "last_attempt_at" = i.at,
             "next_attempt_at" = i.next_attempt_at,
             "updated_at" = now()
         FROM input i
         -- the ANY lets the planner reach the rows by primary key (it cannot see inside the JSON)
         WHERE d."id" = ANY(${deliveryIds}::text[]) AND d."id" = i.delivery_id AND d."status" = 'pending'
       ), health AS (
         SELECT * FROM json_to_recordset(${health}::json) AS h(endpoint_id text, mode text, since timestamptz, disabled_at timestamptz, reason text)
       )
       UPDATE "webhook_endpoints" e
       SET "failing_since" = CASE h.mode WHEN 'set' THEN h.since WHEN 'coalesce' THEN COALESCE(e."failing_since", h.since) ELSE e."failing_since" END,
           "disabled_at" = COALESCE(e."disabled_at", h.disabled_at),
           "disabled_reason" = CASE WHEN e."disabled_at" IS NULL AND h.disabled_at IS NOT NULL THEN h.reason ELSE e."disabled_reason" END,
           "updated_at" = now()
       FROM health h
       WHERE e."id" = ANY(${endpointIds}::text[]) AND e."id" = h.endpoint_id
         AND ((h.mode = 'set' AND e."failing_since" IS DISTINCT FROM h.since)
           OR (h.mode = 'coalesce' AND e."failing_since" IS NULL)
           OR (h.disabled_at IS NOT NULL AND e."disabled_at" IS NULL))`;
  }

  /** Ends a pending delivery without an attempt (its endpoint was disabled meanwhile). */
  async failDelivery(deliveryId: string): Promise<void> {
    // one autocommit statement on the pool
    await this.prisma.webhookDelivery.updateMany({
      where: { id: deliveryId, status: 'pending' },
      data: { status: 'failed', nextAttemptAt: null },
    });
  }

  // ---- delivery log ----------------------------------------------------------------

  async listDeliveries(
    owner: WebhookOwner,
    endpointId: string,
    query: { status?: WebhookDeliveryStatus; limit: number; startingAfter?: string },
  ): Promise<{ data: WebhookDeliveryRecord[]; hasMore: boolean }> {
    let cursor: { createdAt: Date; id: string } | undefined;
    if (query.startingAfter !== undefined) {
      const after = await this.prisma.webhookDelivery.findFirst({
        where: { id: query.startingAfter, endpointId, endpoint: ownEndpointOf(owner) },
        select: { createdAt: true, id: true },
      });
      if (after === null) return { data: [], hasMore: false };
      cursor = after;
    }
    const rows = await this.prisma.webhookDelivery.findMany({
      where: {
        endpointId,
        endpoint: ownEndpointOf(owner),
        ...(query.status === undefined ? {} : { status: query.status }),
        ...(cursor === undefined
          ? {}
          : {
              OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }],
            }),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.limit + 1,
      include: DELIVERY_INCLUDE,
    });
    return { data: rows.slice(0, query.limit).map(toDelivery), hasMore: rows.length > query.limit };
  }

  async findDelivery(owner: WebhookOwner, endpointId: string, deliveryId: string): Promise<WebhookDeliveryRecord | null> {
    const row = await this.prisma.webhookDelivery.findFirst({
      where: { id: deliveryId, endpointId, endpoint: ownEndpointOf(owner) },
      include: DELIVERY_INCLUDE,
    });
    return row === null ? null : toDelivery(row);
  }

  /**
   * An endpoint's attempts in [since, until), counted per UTC hour or day: succeeded = a
   * 2xx answer, failed = anything else (another status, no answer). One range scan of
   * webhook_attempts (endpoint_id, created_at); only the buckets holding attempts.
   */
  async attemptCounts(
    owner: WebhookOwner,
    endpointId: string,
    granularity: 'hour' | 'day',
    since: Date,
    until: Date,
  ): Promise<Array<{ start: Date; succeeded: number; failed: number }>> {
    const rows = await this.prisma.$queryRaw<Array<{ start: Date | string; succeeded: number; failed: number }>>`
      SELECT date_trunc(${granularity}, a."created_at", 'UTC') AS "start",
              (count(*) FILTER (WHERE a."status_code" BETWEEN 200 AND 299))::int AS "succeeded",
              (count(*) FILTER (WHERE a."status_code" IS NULL OR a."status_code" NOT BETWEEN 200 AND 299))::int AS "failed"
       FROM "webhook_attempts" a
       WHERE a."endpoint_id" = ${endpointId} AND a."created_at" >= ${since} AND a."created_at" < ${until}
         AND EXISTS (SELECT 1 FROM "webhook_endpoints" e
                      WHERE e."id" = ${endpointId} AND e."owner_type" = ${owner.ownerType} AND e."owner_id" = ${owner.ownerId})
       GROUP BY 1
       ORDER BY 1`;
    return rows.map((r) => ({ start: toDate(r.start) ?? since, succeeded: r.succeeded, failed: r.failed }));
  }

  /** Puts deliveries back to pending with a fresh retry schedule; returns the ids requeued. */
  async requeue(
    tx: Tx,
    owner: WebhookOwner,
    endpointId: string,
    filter: { deliveryId: string } | { failedSince: Date; until?: Date },
    at: Date,
  ): Promise<string[]> {
    const rows = await tx.webhookDelivery.findMany({
      where: {
        endpointId,
        endpoint: ownEndpointOf(owner),
        ...('deliveryId' in filter
          ? { id: filter.deliveryId }
          : {
              status: 'failed',
              createdAt: { gte: filter.failedSince, ...(filter.until === undefined ? {} : { lte: filter.until }) },
            }),
      },
      select: { id: true },
    });
    const ids = rows.map((r) => r.id);
    if (ids.length > 0) {
      await tx.webhookDelivery.updateMany({
        where: { id: { in: ids }, status: { not: 'pending' } },
        data: { status: 'pending', roundAttempts: 0, nextAttemptAt: at },
      });
    }
    return ids;
  }

  // ---- sweeps ----------------------------------------------------------------------

  /** Pending deliveries whose next attempt is long overdue: their job may have been lost with Redis. */
  async overdueDeliveries(ownerType: WebhookOwnerType, dueBefore: Date, limit: number): Promise<string[]> {
    const rows = await this.prisma.webhookDelivery.findMany({
      where: { status: 'pending', nextAttemptAt: { lt: dueBefore }, endpoint: { ownerType } },
      orderBy: { nextAttemptAt: 'asc' },
      take: limit,
      select: { id: true },
    });
    return rows.map((r) => r.id);
  }

  /** Pending deliveries of an owner type in id order after `afterId`, with their due time (to rebuild lost jobs). */
  pendingDeliveries(
    ownerType: WebhookOwnerType,
    afterId: string | undefined,
    limit: number,
  ): Promise<Array<{ id: string; nextAttemptAt: Date | null }>> {
    return this.prisma.webhookDelivery.findMany({
      where: { status: 'pending', endpoint: { ownerType }, ...(afterId === undefined ? {} : { id: { gt: afterId } }) },
      orderBy: { id: 'asc' },
      take: limit,
      select: { id: true, nextAttemptAt: true },
    });
  }
}

/** A timestamp of a raw query: the driver's Date, or its text form. */
function toDate(value: Date | string | null): Date | null {
  if (value === null) return null;
  return value instanceof Date ? value : new Date(value);
}
