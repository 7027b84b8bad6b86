import { Injectable } from '@nestjs/common';
import { newId, PrismaService, type Tx } from '@app/platform';
import type { WebhookOwner } from './webhooks.types';

/** A `webhook_events` row as the events API reads it. */
export interface EventRecord {
  readonly id: string;
  readonly event: string;
  readonly data: unknown;
  readonly createdAt: Date;
}

/** Keyset position of an event in the newest-first list. */
export interface EventCursor {
  readonly createdAt: Date;
  readonly id: string;
}

/** `type`: one kind, or every kind under a prefix (`offer.*` → kinds starting `offer.`). */
export type EventTypeFilter = { readonly exact: string } | { readonly prefix: string };

export interface EventQuery {
  readonly type?: EventTypeFilter;
  readonly createdGte?: Date;
  readonly createdLte?: Date;
  /** Retention: nothing older is shown, purged or not. */
  readonly notBefore?: Date;
  readonly after?: EventCursor;
  readonly before?: EventCursor;
  readonly limit: number;
}

const SELECT = { id: true, event: true, data: true, createdAt: true } as const;

/** The row as the service's own API sees it: none for an event of the dialect only (no `event`). */
function ownRecord(row: { id: string; event: string | null; data: unknown; createdAt: Date }): EventRecord[] {
  return row.event === null ? [] : [{ id: row.id, event: row.event, data: row.data, createdAt: row.createdAt }];
}

/**
 * The events API's reads of the outbox (`webhook_events`, which is the event log: every
 * emitted event is written there in the emitting transaction), and the test events of
 * `POST …/webhook-endpoints/{id}/test`. Every read takes the owner; test events are never
 * listed.
 */
@Injectable()
export class WebhookEventsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** A newest-first page (`before`: the page just newer than the cursor, returned oldest first), `limit + 1` rows at most. */
  async list(owner: WebhookOwner, q: EventQuery): Promise<EventRecord[]> {
    const created = {
      ...(q.createdGte === undefined && q.notBefore === undefined
        ? {}
        : { gte: new Date(Math.max(q.createdGte?.getTime() ?? 0, q.notBefore?.getTime() ?? 0)) }),
      ...(q.createdLte === undefined ? {} : { lte: q.createdLte }),
    };
    const cursor = q.before ?? q.after;
    const newer = q.before !== undefined;
    const keyset =
      cursor === undefined
        ? {}
        : {
            OR: [
              { createdAt: newer ? { gt: cursor.createdAt } : { lt: cursor.createdAt } },
              { createdAt: cursor.createdAt, id: newer ? { gt: cursor.id } : { lt: cursor.id } },
            ],
          };
    const type =
      q.type === undefined
        ? { event: { not: null } }
        : 'exact' in q.type
          ? { event: q.type.exact }
          : { event: { startsWith: q.type.prefix } };
    const order = newer ? ('asc' as const) : ('desc' as const);
    const rows = await this.prisma.webhookEvent.findMany({
      where: {
        ownerType: owner.ownerType,
        ownerId: owner.ownerId,
        test: false,
        ...type,
        ...(Object.keys(created).length === 0 ? {} : { createdAt: created }),
        ...keyset,
      },
      orderBy: [{ createdAt: order }, { id: order }],
      take: q.limit + 1,
      select: SELECT,
    });
    return rows.flatMap(ownRecord);
  }

  async find(owner: WebhookOwner, id: string, notBefore: Date | undefined): Promise<EventRecord | null> {
    const row = await this.prisma.webhookEvent.findFirst({
      where: {
        id,
        ownerType: owner.ownerType,
        ownerId: owner.ownerId,
        test: false,
        ...(notBefore === undefined ? {} : { createdAt: { gte: notBefore } }),
      },
      select: SELECT,
    });
    return row === null ? null : (ownRecord(row)[0] ?? null);
  }

  /**
   * A test event for one endpoint: the event row (marked `test`, and already dispatched so
   * that the dispatcher does not fan it out to the owner's other endpoints) and its one
   * pending delivery, which the delivery worker sends like any other. Returns the delivery id.
   */
  async insertTestEvent(
    tx: Tx,
    owner: WebhookOwner,
    endpointId: string,
    input: { event: string; data: object },
    at: Date,
  ): Promise<string> {
    const eventId = newId('evt');
    const deliveryId = newId('dlv');
    await tx.webhookEvent.create({
      data: {
        id: eventId,
        ownerType: owner.ownerType,
        ownerId: owner.ownerId,
        event: input.event,
        data: input.data,
        test: true,
        createdAt: at,
        dispatchedAt: at,
      },
    });
    await tx.webhookDelivery.create({
      data: { id: deliveryId, eventId, endpointId, status: 'pending', nextAttemptAt: at, createdAt: at },
    });
    return deliveryId;
  }
}
