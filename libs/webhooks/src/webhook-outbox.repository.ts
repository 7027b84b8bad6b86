import { Injectable } from '@nestjs/common';
import { newId, Prisma, PrismaService, type TraceCarrier, type Tx } from '@app/platform';
import type { DeliveryJobData } from './webhooks.tokens';
import type { WebhookEventInput, WebhookOwnerType } from './webhooks.types';

/** A pending delivery of a fanned-out event: its event and the job that attempts it. */
export interface FannedOutDelivery {
  readonly eventId: string;
  readonly job: DeliveryJobData;
}

/** Channel of the outbox notification (`pg_notify` in the emitting transaction). */
export const OUTBOX_CHANNEL = 'webhook_outbox';

/**
 * The transactional outbox (`webhook_events`): events written in the emitting transaction,
 * their fan-out into deliveries, and their retention. Writes run in the caller's transaction.
 */
@Injectable()
export class WebhookOutboxRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The event's row, for the emitting transaction's Closing (written with its last
   * statement): the INSERT and, at commit, its notification to the dispatchers. `trace`:
   * the trace context its dispatch and deliveries continue, as the caller captured it.
   */
  eventRow(id: string, input: WebhookEventInput, at: Date, trace: TraceCarrier | undefined): Prisma.Sql {
    return Prisma.sql`
      INSERT INTO webhook_events (id, owner_type, owner_id, event, data, dialect_event, dialect_data, created_at, trace_context)
      VALUES (${id}, ${input.ownerType}, ${input.ownerId}, ${input.event},
              ${input.data === null ? null : JSON.stringify(input.data)}::jsonb, ${input.dialect?.event ?? null},
              ${input.dialect === undefined ? null : JSON.stringify(input.dialect.data)}::jsonb, ${at},
              ${trace === undefined ? null : JSON.stringify(trace)}::jsonb)
      RETURNING pg_notify(${OUTBOX_CHANNEL}, owner_type)`;
  }

  /** The oldest events not yet dispatched, with the trace context each was written in (null: none). */
  async undispatchedEvents(ownerType: WebhookOwnerType, limit: number): Promise<Array<{ id: string; traceContext: unknown }>> {
    return this.prisma.$queryRaw<Array<{ id: string; traceContext: unknown }>>`
      SELECT "id", "trace_context" AS "traceContext" FROM "webhook_events"
       WHERE "owner_type" = ${ownerType} AND "dispatched_at" IS NULL
       ORDER BY "created_at", "id" LIMIT ${limit}::int`;
  }

  /**
   * Creates one delivery per (event, matching endpoint) — idempotent through the
   * (event_id, endpoint_id) unique index — and returns the events' deliveries still pending
   * with their endpoint and owner, which the dispatcher then enqueues. A disabled endpoint gets its
   * delivery recorded as `failed` without an attempt, so that after it is enabled again
   * `recover` can send what it missed.
   *
   * Two raw statements per batch (the events with their owners' endpoints; the inserts with
   * the pending deliveries returned), each atomic by itself, so they run on the pool: run
   * again after a crash between them, the insert finds what exists and returns it too.
   */
  async fanOut(eventIds: readonly string[]): Promise<FannedOutDelivery[]> {
    if (eventIds.length === 0) return [];
    const ids = [...eventIds];
    // every endpoint of the batch's owners with its event; subscriptions are matched here
    const pairs = await this.prisma.$queryRaw<
      Array<{
        event_id: string;
        event: string | null;
        dialect_event: string | null;
        endpoint_id: string;
        dialect: string | null;
        events: string[];
        disabled: boolean;
      }>
    >`
      SELECT v."id" AS "event_id", v."event", v."dialect_event", e."id" AS "endpoint_id", e."dialect", e."events",
              e."disabled_at" IS NOT NULL AS "disabled"
       FROM "webhook_events" v
       JOIN "webhook_endpoints" e ON e."owner_type" = v."owner_type" AND e."owner_id" = v."owner_id"
       WHERE v."id" = ANY(${ids}::text[])`;
    const rows = pairs
      .filter((p) => endpointTakes(p, { event: p.event, dialectEvent: p.dialect_event }))
      .map((p) => ({ id: newId('dlv'), event_id: p.event_id, endpoint_id: p.endpoint_id, pending: !p.disabled }));
    // (`= ANY($2)` beside each join on the events lets the planner use their primary key:
    // it cannot see how many rows the JSON holds.)
    // The insert's RETURNING gives the new pending deliveries; the second SELECT (which,
    // in the same statement, does not see the new rows) those created by an earlier pass.
    const input = JSON.stringify(rows);
    const pending = await this.prisma.$queryRaw<Array<{ id: string; endpoint_id: string; owner_id: string; event_id: string }>>`
      WITH input AS (
         SELECT * FROM json_to_recordset(${input}::json) AS t(id text, event_id text, endpoint_id text, pending boolean)
       ), created AS (
         INSERT INTO "webhook_deliveries" ("id", "event_id", "endpoint_id", "status", "next_attempt_at", "created_at", "updated_at")
         SELECT t.id, t.event_id, t.endpoint_id,
                CASE WHEN t.pending THEN 'pending' ELSE 'failed' END::"webhook_delivery_status",
                CASE WHEN t.pending THEN v."created_at" END, v."created_at", now()
         FROM input t JOIN "webhook_events" v ON v."id" = t.event_id AND v."id" = ANY(${ids}::text[])
         ON CONFLICT ("event_id", "endpoint_id") DO NOTHING
         RETURNING "id", "endpoint_id", "event_id", "status"
       )
       SELECT c."id", c."endpoint_id", v."owner_id", v."id" AS "event_id" FROM created c JOIN "webhook_events" v ON v."id" = c."event_id"
       WHERE c."status" = 'pending' AND v."id" = ANY(${ids}::text[])
       UNION ALL
       SELECT d."id", d."endpoint_id", v."owner_id", v."id" AS "event_id" FROM "webhook_deliveries" d JOIN "webhook_events" v ON v."id" = d."event_id"
       WHERE d."event_id" = ANY(${ids}::text[]) AND d."status" = 'pending'`;
    return pending.map((d) => ({
      eventId: d.event_id,
      job: { deliveryId: d.id, endpointId: d.endpoint_id, ownerId: d.owner_id },
    }));
  }

  async markDispatched(eventIds: readonly string[], at: Date): Promise<void> {
    if (eventIds.length === 0) return;
    const ids = [...eventIds];
    await this.prisma.$executeRaw`
      UPDATE "webhook_events" SET "dispatched_at" = ${at.toISOString()}::timestamptz
       WHERE "id" = ANY(${ids}::text[]) AND "dispatched_at" IS NULL`;
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
  async purgeEvents(tx: Tx, ownerType: WebhookOwnerType, before: Date, limit: number): Promise<number> {
    return tx.$executeRaw`
      DELETE FROM "webhook_events" WHERE "id" IN (
        SELECT e."id" FROM "webhook_events" e
        WHERE e."owner_type" = ${ownerType} AND e."dispatched_at" < ${before}::timestamptz
          AND NOT EXISTS (SELECT 1 FROM "webhook_deliveries" d WHERE d."event_id" = e."id" AND d."status" = 'pending')
        ORDER BY e."dispatched_at"
        LIMIT ${limit}::int
      )`;
  }
}

/**
 * Whether an endpoint gets an event: an endpoint of the own API (`dialect` null) matches the
 * event's own kind, a dialect endpoint its dialect type; an event without that side goes to
 * none of them. Then the endpoint's filter decides (subscribes).
 */
export function endpointTakes(
  endpoint: { readonly dialect: string | null; readonly events: readonly string[] },
  event: { readonly event: string | null; readonly dialectEvent: string | null },
): boolean {
  const type = endpoint.dialect === null ? event.event : event.dialectEvent;
  return type !== null && subscribes(endpoint.events, type);
}

/** Whether an endpoint's `events` take this kind: `*` (or, from before it existed, an empty list) takes every kind. */
export function subscribes(events: readonly string[], kind: string): boolean {
  return events.length === 0 || events.includes('*') || events.includes(kind);
}
