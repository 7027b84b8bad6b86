import { Injectable } from '@nestjs/common';
import { newId, type Prisma, PrismaService, type Tx } from '@app/platform';
import type { WebhookOwner } from './webhooks.types';

/** A `webhook_events` row as the events API reads it: one side of it (the own API's, or the dialect's). */
export interface EventRecord {
  readonly id: string;
  readonly ownerId: string;
  readonly event: string;
  readonly data: unknown;
  readonly createdAt: Date;
}

/**
 * Which side of the events a read sees: `own` (the service's own API: `event`/`data`,
 * events of the dialect only are not there) or `dialect` (`dialect_event`/`dialect_data`,
 * events the dialect has not are not there).
 */
export type EventSide = 'own' | 'dialect';

/** Keyset position of an event in the newest-first list. */
export interface EventCursor {
  readonly createdAt: Date;
  readonly id: string;
}

/** `type`: one kind, every kind under a prefix (`offer.*` → kinds starting `offer.`), or any of some kinds. */
export type EventTypeFilter = { readonly exact: string } | { readonly prefix: string } | { readonly anyOf: readonly string[] };

export interface EventQuery {
  readonly side?: EventSide;
  readonly type?: EventTypeFilter;
  readonly createdGt?: Date;
  readonly createdGte?: Date;
  readonly createdLt?: Date;
  readonly createdLte?: Date;
  /** Retention: nothing older is shown, purged or not. */
  readonly notBefore?: Date;
  readonly after?: EventCursor;
  readonly before?: EventCursor;
  readonly limit: number;
}

const SELECT = {
  id: true,
  ownerId: true,
  event: true,
  data: true,
  dialectEvent: true,
  dialectData: true,
  createdAt: true,
} as const;

interface EventRow {
  id: string;
  ownerId: string;
  event: string | null;
  data: unknown;
  dialectEvent: string | null;
  dialectData: unknown;
  createdAt: Date;
}

/** One side of a row (the queries select only rows that have it). */
function sideOf(row: EventRow, side: EventSide): EventRecord | null {
  const [event, data] = side === 'own' ? [row.event, row.data] : [row.dialectEvent, row.dialectData];
  return event === null ? null : { id: row.id, ownerId: row.ownerId, event, data, createdAt: row.createdAt };
}

/** The where clause of a type filter on one side (no filter: every event that has the side). */
function typeWhere(side: EventSide, type: EventTypeFilter | undefined): Prisma.WebhookEventWhereInput {
  const match: Prisma.StringNullableFilter<'WebhookEvent'> =
    type === undefined
      ? { not: null }
      : 'exact' in type
        ? { equals: type.exact }
        : 'prefix' in type
          ? { startsWith: type.prefix }
          : { in: [...type.anyOf] };
  return side === 'own' ? { event: match } : { dialectEvent: match };
}

/** The bounds of `created` (retention's `notBefore` included). */
function createdWhere(q: EventQuery): Record<string, Date> {
  const lower = Math.max(q.createdGte?.getTime() ?? 0, q.notBefore?.getTime() ?? 0);
  return {
    ...(q.createdGte === undefined && q.notBefore === undefined ? {} : { gte: new Date(lower) }),
    ...(q.createdGt === undefined ? {} : { gt: q.createdGt }),
    ...(q.createdLt === undefined ? {} : { lt: q.createdLt }),
    ...(q.createdLte === undefined ? {} : { lte: q.createdLte }),
  };
}

/**
 * The events API's reads of the outbox (`webhook_events`, which is the event log: every
 * emitted event is written there in the emitting transaction), and the test events of
 * `POST …/webhook-endpoints/{id}/test`. Every read takes the owner and a side (the own
 * API's, or the dialect's: each sees only the events it has); test events are never listed.
 */
@Injectable()
export class WebhookEventsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** A newest-first page (`before`: the page just newer than the cursor, returned oldest first), `limit + 1` rows at most. */
  async list(owner: WebhookOwner, q: EventQuery): Promise<EventRecord[]> {
    const side = q.side ?? 'own';
    const created = createdWhere(q);
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
    const order = newer ? ('asc' as const) : ('desc' as const);
    const rows = await this.prisma.webhookEvent.findMany({
      where: {
        ownerType: owner.ownerType,
        ownerId: owner.ownerId,
        test: false,
        ...typeWhere(side, q.type),
        ...(Object.keys(created).length === 0 ? {} : { createdAt: created }),
        ...keyset,
      },
      orderBy: [{ createdAt: order }, { id: order }],
      take: q.limit + 1,
      select: SELECT,
    });
    return rows.flatMap((r) => sideOf(r, side) ?? []);
  }

  /** One event of the owner that has this side (default: the own API's). */
  async find(owner: WebhookOwner, id: string, notBefore: Date | undefined, side: EventSide = 'own'): Promise<EventRecord | null> {
    const row = await this.prisma.webhookEvent.findFirst({
      where: {
        id,
        ownerType: owner.ownerType,
        ownerId: owner.ownerId,
        test: false,
        ...typeWhere(side, undefined),
        ...(notBefore === undefined ? {} : { createdAt: { gte: notBefore } }),
      },
      select: SELECT,
    });
    return row === null ? null : sideOf(row, side);
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
