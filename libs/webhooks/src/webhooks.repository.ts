import { Injectable } from '@nestjs/common';
import { newId, PrismaService, type PrismaTx } from '@app/platform';
import type {
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookEndpointRecord,
  WebhookEventInput,
  WebhookOwner,
  WebhookOwnerType,
} from './webhooks.types';

/** Channel of the outbox notification (`pg_notify` in the emitting transaction). */
export const OUTBOX_CHANNEL = 'webhook_outbox';

interface EndpointRow {
  id: string;
  ownerType: string;
  ownerId: string;
  url: string;
  events: string[];
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
  failingSince: Date | null;
  createdAt: Date;
}

function toEndpoint(row: EndpointRow): WebhookEndpointRecord {
  return {
    id: row.id,
    ownerType: row.ownerType as WebhookOwnerType,
    ownerId: row.ownerId,
    url: row.url,
    events: row.events,
    secret: row.secret,
    previousSecret: row.previousSecret,
    previousSecretExpiresAt: row.previousSecretExpiresAt,
    disabledAt: row.disabledAt,
    disabledReason: row.disabledReason,
    failingSince: row.failingSince,
    createdAt: row.createdAt,
  };
}

const DELIVERY_INCLUDE = {
  event: { select: { event: true } },
  attempts: { orderBy: { createdAt: 'asc' as const } },
};

interface DeliveryRow {
  id: string;
  endpointId: string;
  eventId: string;
  status: WebhookDeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  createdAt: Date;
  event: { event: string };
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
    event: row.event.event,
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
  readonly endpoint: WebhookEndpointRecord;
  readonly event: { readonly id: string; readonly event: string; readonly data: unknown; readonly createdAt: Date };
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
  /** Endpoint health after this attempt. */
  readonly endpoint:
    | { readonly kind: 'healthy' }
    | { readonly kind: 'failing'; readonly since: Date }
    | { readonly kind: 'disable'; readonly since: Date; readonly reason: string };
}

/**
 * The only file of libs/webhooks that talks to the database. Every method used on behalf
 * of a caller takes the owner, so no query can cross owners.
 */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly prisma: PrismaService) {}

  // ---- endpoints -------------------------------------------------------------------

  async createEndpoint(
    owner: WebhookOwner,
    input: { url: string; events: readonly string[]; secret: string },
  ): Promise<WebhookEndpointRecord> {
    const row = await this.prisma.webhookEndpoint.create({
      data: {
        id: newId('we'),
        ownerType: owner.ownerType,
        ownerId: owner.ownerId,
        url: input.url,
        events: [...input.events],
        secret: input.secret,
      },
    });
    return toEndpoint(row);
  }

  async listEndpoints(owner: WebhookOwner): Promise<WebhookEndpointRecord[]> {
    const rows = await this.prisma.webhookEndpoint.findMany({
      where: { ownerType: owner.ownerType, ownerId: owner.ownerId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
    return rows.map(toEndpoint);
  }

  async findEndpoint(owner: WebhookOwner, id: string): Promise<WebhookEndpointRecord | null> {
    const row = await this.prisma.webhookEndpoint.findFirst({
      where: { id, ownerType: owner.ownerType, ownerId: owner.ownerId },
    });
    return row === null ? null : toEndpoint(row);
  }

  async deleteEndpoint(owner: WebhookOwner, id: string): Promise<boolean> {
    const { count } = await this.prisma.webhookEndpoint.deleteMany({
      where: { id, ownerType: owner.ownerType, ownerId: owner.ownerId },
    });
    return count === 1;
  }

  /** Enables a disabled endpoint again: its failure window starts afresh. Null when not the owner's. */
  async enableEndpoint(owner: WebhookOwner, id: string): Promise<WebhookEndpointRecord | null> {
    // only a disabled one: enabling an enabled endpoint must not reset its failure window
    await this.prisma.webhookEndpoint.updateMany({
      where: { id, ownerType: owner.ownerType, ownerId: owner.ownerId, disabledAt: { not: null } },
      data: { disabledAt: null, disabledReason: null, failingSince: null },
    });
    return this.findEndpoint(owner, id);
  }

  /** The current secret becomes the previous one until `previousExpiresAt`. */
  async rotateSecret(
    owner: WebhookOwner,
    id: string,
    newSecret: string,
    previousExpiresAt: Date,
  ): Promise<WebhookEndpointRecord | null> {
    return this.prisma.$transaction(async (tx) => {
      const current = await tx.webhookEndpoint.findFirst({
        where: { id, ownerType: owner.ownerType, ownerId: owner.ownerId },
        select: { secret: true },
      });
      if (current === null) return null;
      const row = await tx.webhookEndpoint.update({
        where: { id },
        data: { secret: newSecret, previousSecret: current.secret, previousSecretExpiresAt: previousExpiresAt },
      });
      return toEndpoint(row);
    });
  }

  // ---- outbox ----------------------------------------------------------------------

  /** Writes the event in the caller's transaction and notifies dispatchers at commit. */
  async insertEvent(tx: PrismaTx, input: WebhookEventInput, at: Date): Promise<string> {
    const id = newId('evt');
    // The row and its notification in one round trip (this runs in every emitting request's
    // transaction). LISTENers get the notification only when (and if) the transaction commits.
    await tx.$executeRaw`
      WITH event AS (
        INSERT INTO webhook_events (id, owner_type, owner_id, event, data, created_at)
        VALUES (${id}, ${input.ownerType}, ${input.ownerId}, ${input.event}, ${JSON.stringify(input.data)}::jsonb, ${at})
        RETURNING owner_type)
      SELECT pg_notify(${OUTBOX_CHANNEL}, owner_type) FROM event`;
    return id;
  }

  async undispatchedEvents(ownerType: WebhookOwnerType, limit: number): Promise<Array<{ id: string }>> {
    return this.prisma.webhookEvent.findMany({
      where: { ownerType, dispatchedAt: null },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: limit,
      select: { id: true },
    });
  }

  /**
   * Creates one delivery per (event, matching endpoint) — idempotent through the
   * (event_id, endpoint_id) unique index — and returns the ids of the events' deliveries
   * still pending, which the dispatcher then enqueues. A disabled endpoint gets its
   * delivery recorded as `failed` without an attempt, so that after it is enabled again
   * `recover` can send what it missed.
   */
  async fanOut(eventIds: readonly string[]): Promise<string[]> {
    if (eventIds.length === 0) return [];
    return this.prisma.$transaction(async (tx) => {
      const events = await tx.webhookEvent.findMany({
        where: { id: { in: [...eventIds] } },
        select: { id: true, ownerType: true, ownerId: true, event: true, createdAt: true },
      });
      // every enabled endpoint of the batch's owners in one query; filters applied here
      const endpoints = await tx.webhookEndpoint.findMany({
        where: {
          OR: [...new Set(events.map((e) => `${e.ownerType}\u0000${e.ownerId}`))].map((key) => {
            const [ownerType = '', ownerId = ''] = key.split('\u0000');
            return { ownerType, ownerId };
          }),
        },
        select: { id: true, ownerType: true, ownerId: true, events: true, disabledAt: true },
      });
      const rows: Array<{
        id: string;
        eventId: string;
        endpointId: string;
        status: 'pending' | 'failed';
        nextAttemptAt: Date | null;
        createdAt: Date;
      }> = [];
      for (const ev of events) {
        for (const ep of endpoints) {
          if (ep.ownerType !== ev.ownerType || ep.ownerId !== ev.ownerId) continue;
          if (ep.events.length > 0 && !ep.events.includes(ev.event)) continue;
          rows.push({
            id: newId('dlv'),
            eventId: ev.id,
            endpointId: ep.id,
            status: ep.disabledAt === null ? 'pending' : 'failed',
            nextAttemptAt: ep.disabledAt === null ? ev.createdAt : null,
            createdAt: ev.createdAt,
          });
        }
      }
      if (rows.length > 0) await tx.webhookDelivery.createMany({ data: rows, skipDuplicates: true });
      const pending = await tx.webhookDelivery.findMany({
        where: { eventId: { in: [...eventIds] }, status: 'pending' },
        select: { id: true },
      });
      return pending.map((d) => d.id);
    });
  }

  async markDispatched(eventIds: readonly string[], at: Date): Promise<void> {
    if (eventIds.length === 0) return;
    await this.prisma.webhookEvent.updateMany({
      where: { id: { in: [...eventIds] }, dispatchedAt: null },
      data: { dispatchedAt: at },
    });
  }

  async oldestUndispatchedAt(ownerType: WebhookOwnerType): Promise<Date | null> {
    const row = await this.prisma.webhookEvent.findFirst({
      where: { ownerType, dispatchedAt: null },
      orderBy: { createdAt: 'asc' },
      select: { createdAt: true },
    });
    return row?.createdAt ?? null;
  }

  /**
   * Retention: deletes up to `limit` events of this owner type dispatched before `before`
   * (an event is dispatched right after it is created; this way the query is a range of the
   * (owner_type, dispatched_at, created_at) index) whose deliveries are all finished (their
   * deliveries and attempts go with them).
   * Returns how many events were deleted.
   */
  async purgeEvents(ownerType: WebhookOwnerType, before: Date, limit: number): Promise<number> {
    return this.prisma.$executeRaw`
      DELETE FROM "webhook_events" WHERE "id" IN (
        SELECT e."id" FROM "webhook_events" e
        WHERE e."owner_type" = ${ownerType} AND e."dispatched_at" < ${before}::timestamptz
          AND NOT EXISTS (SELECT 1 FROM "webhook_deliveries" d WHERE d."event_id" = e."id" AND d."status" = 'pending')
        ORDER BY e."dispatched_at"
        LIMIT ${limit}::int
      )`;
  }

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

  // ---- attempts --------------------------------------------------------------------

  async deliveryWork(deliveryId: string): Promise<DeliveryWork | null> {
    const row = await this.prisma.webhookDelivery.findUnique({
      where: { id: deliveryId },
      include: { endpoint: true, event: true },
    });
    if (row === null) return null;
    return {
      deliveryId: row.id,
      status: row.status,
      roundAttempts: row.roundAttempts,
      endpoint: toEndpoint(row.endpoint),
      event: { id: row.event.id, event: row.event.event, data: row.event.data, createdAt: row.event.createdAt },
    };
  }

  /**
   * Stores one attempt and its consequences — the attempt row, the delivery's new state
   * (only while still pending, so a late duplicate attempt cannot undo a success) and the
   * endpoint's health — in ONE statement (data-modifying CTEs are atomic together): this
   * runs once per attempt, and one round trip instead of five measurably raises throughput.
   */
  async recordAttempt(work: DeliveryWork, attempt: AttemptRow, outcome: AttemptOutcome): Promise<void> {
    const ep = outcome.endpoint;
    const since = ep.kind === 'healthy' ? null : ep.since;
    const reason = ep.kind === 'disable' ? ep.reason : null;
    await this.prisma.$executeRaw`
      WITH attempt AS (
        INSERT INTO "webhook_attempts" ("id", "delivery_id", "status_code", "duration_ms", "error", "response_excerpt", "created_at")
        VALUES (gen_random_uuid(), ${work.deliveryId}, ${attempt.statusCode}::int, ${attempt.durationMs}::int, ${attempt.error},
                ${attempt.responseExcerpt}, ${attempt.at}::timestamptz)
      ), delivery AS (
        UPDATE "webhook_deliveries"
        SET "status" = ${outcome.status}::"webhook_delivery_status",
            "attempt_count" = "attempt_count" + 1,
            "round_attempts" = "round_attempts" + 1,
            "last_attempt_at" = ${attempt.at}::timestamptz,
            "next_attempt_at" = ${outcome.nextAttemptAt}::timestamptz,
            "updated_at" = now()
        WHERE "id" = ${work.deliveryId} AND "status" = 'pending'
      )
      UPDATE "webhook_endpoints"
      SET "failing_since" = CASE WHEN ${ep.kind} = 'healthy' THEN NULL ELSE COALESCE("failing_since", ${since}::timestamptz) END,
          "disabled_at" = CASE WHEN ${ep.kind} = 'disable' THEN COALESCE("disabled_at", ${attempt.at}::timestamptz) ELSE "disabled_at" END,
          "disabled_reason" = CASE WHEN ${ep.kind} = 'disable' AND "disabled_at" IS NULL THEN ${reason} ELSE "disabled_reason" END,
          "updated_at" = now()
      WHERE "id" = ${work.endpoint.id}
        AND CASE ${ep.kind}
              WHEN 'healthy' THEN "failing_since" IS NOT NULL
              WHEN 'failing' THEN "failing_since" IS NULL
              ELSE "disabled_at" IS NULL
            END`;
  }

  /** Ends a pending delivery without an attempt (its endpoint was disabled meanwhile). */
  async failDelivery(deliveryId: string): Promise<void> {
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
        where: { id: query.startingAfter, endpointId, endpoint: { ownerType: owner.ownerType, ownerId: owner.ownerId } },
        select: { createdAt: true, id: true },
      });
      if (after === null) return { data: [], hasMore: false };
      cursor = after;
    }
    const rows = await this.prisma.webhookDelivery.findMany({
      where: {
        endpointId,
        endpoint: { ownerType: owner.ownerType, ownerId: owner.ownerId },
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
      where: { id: deliveryId, endpointId, endpoint: { ownerType: owner.ownerType, ownerId: owner.ownerId } },
      include: DELIVERY_INCLUDE,
    });
    return row === null ? null : toDelivery(row);
  }

  /** Puts deliveries back to pending with a fresh retry schedule; returns the ids requeued. */
  async requeue(
    owner: WebhookOwner,
    endpointId: string,
    filter: { deliveryId: string } | { failedSince: Date },
    at: Date,
  ): Promise<string[]> {
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.webhookDelivery.findMany({
        where: {
          endpointId,
          endpoint: { ownerType: owner.ownerType, ownerId: owner.ownerId },
          ...('deliveryId' in filter ? { id: filter.deliveryId } : { status: 'failed', createdAt: { gte: filter.failedSince } }),
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
    });
  }
}
