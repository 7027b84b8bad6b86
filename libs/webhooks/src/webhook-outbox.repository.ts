import { Injectable } from '@nestjs/common';
import { newId, PrismaService, type PrismaTx } from '@app/platform';
import type { DeliveryJobData } from './webhooks.tokens';
import type { WebhookEventInput, WebhookOwnerType } from './webhooks.types';

/** Channel of the outbox notification (`pg_notify` in the emitting transaction). */
export const OUTBOX_CHANNEL = 'webhook_outbox';

/**
 * The transactional outbox (`webhook_events`): events written in the emitting transaction,
 * their fan-out into deliveries, and their retention. Writes run in the caller's transaction.
 */
@Injectable()
export class WebhookOutboxRepository {
  constructor(private readonly prisma: PrismaService) {}

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
   * (event_id, endpoint_id) unique index — and returns the events' deliveries still pending
   * with their endpoint and owner, which the dispatcher then enqueues. A disabled endpoint gets its
   * delivery recorded as `failed` without an attempt, so that after it is enabled again
   * `recover` can send what it missed.
   */
  async fanOut(tx: PrismaTx, eventIds: readonly string[]): Promise<DeliveryJobData[]> {
    if (eventIds.length === 0) return [];
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
        if (!subscribes(ep.events, ev.event)) continue;
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
      select: { id: true, endpointId: true, event: { select: { ownerId: true } } },
    });
    return pending.map((d) => ({ deliveryId: d.id, endpointId: d.endpointId, ownerId: d.event.ownerId }));
  }

  async markDispatched(tx: PrismaTx, eventIds: readonly string[], at: Date): Promise<void> {
    if (eventIds.length === 0) return;
    await tx.webhookEvent.updateMany({
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
  async purgeEvents(tx: PrismaTx, ownerType: WebhookOwnerType, before: Date, limit: number): Promise<number> {
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

/** Whether an endpoint's `events` take this kind: `*` (or, from before it existed, an empty list) takes every kind. */
export function subscribes(events: readonly string[], kind: string): boolean {
  return events.length === 0 || events.includes('*') || events.includes(kind);
}
