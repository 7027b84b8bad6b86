import { Injectable } from '@nestjs/common';
import { newId, PrismaService, type Db, type Tx } from '@app/platform';
import type { WebhookEndpointMetadata, WebhookEndpointRecord, WebhookEndpointScope, WebhookOwner } from './webhooks.types';

/** A `webhook_endpoints` row as Prisma returns it. */
export interface EndpointRow {
  id: string;
  ownerType: string;
  ownerId: string;
  dialect: string | null;
  metadata: unknown;
  url: string;
  events: string[];
  description: string | null;
  rateLimitPerSecond: number | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
  failingSince: Date | null;
  createdAt: Date;
}

export function toEndpoint(row: EndpointRow): WebhookEndpointRecord {
  return {
    id: row.id,
    ownerType: row.ownerType,
    ownerId: row.ownerId,
    dialect: row.dialect,
    metadata: metadataOf(row.metadata),
    url: row.url,
    events: row.events,
    description: row.description,
    rateLimitPerSecond: row.rateLimitPerSecond,
    secret: row.secret,
    previousSecret: row.previousSecret,
    previousSecretExpiresAt: row.previousSecretExpiresAt,
    disabledAt: row.disabledAt,
    disabledReason: row.disabledReason,
    failingSince: row.failingSince,
    createdAt: row.createdAt,
  };
}

/** The stored metadata (a JSON object of strings; anything else reads as no metadata). */
export function metadataOf(value: unknown): WebhookEndpointMetadata {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/**
 * Merges a metadata update into `current`: a key set to null is removed, `null` for the
 * whole update removes every key.
 */
export function mergeMetadata(
  current: WebhookEndpointMetadata,
  update: Readonly<Record<string, string | null>> | null,
): Record<string, string> {
  if (update === null) return {};
  const merged: Record<string, string> = { ...current };
  for (const [k, v] of Object.entries(update)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  return merged;
}

/** The where clause of one scope: the owner's endpoints of one dialect (null: the own API's). */
function inScope(scope: WebhookEndpointScope): { ownerType: string; ownerId: string; dialect: string | null } {
  return { ownerType: scope.ownerType, ownerId: scope.ownerId, dialect: scope.dialect };
}

/** What enabling a disabled endpoint writes: its failure window starts afresh. */
const ENABLED = { disabledAt: null, disabledReason: null, failingSince: null } as const;

/** Optional settings of an endpoint (create and update). */
export interface EndpointSettings {
  readonly description?: string | null;
  readonly rateLimitPerSecond?: number | null;
}

/** An update: only the fields present change. `metadata` merges (mergeMetadata). */
export interface EndpointPatch extends EndpointSettings {
  readonly url?: string;
  readonly events?: readonly string[];
  readonly disabled?: boolean;
  readonly metadata?: Readonly<Record<string, string | null>> | null;
}

/** A keyset page of a scope's endpoints, newest first (`before`: the page just newer than that endpoint). */
export interface EndpointPage {
  readonly limit: number;
  readonly after?: string;
  readonly before?: string;
}

/**
 * The registered endpoints. Every read and write takes a scope (the owner and the endpoint's
 * dialect, null for the own API's), so no query can cross owners or APIs;
 * writes run in the caller's transaction.
 */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async createEndpoint(
    tx: Tx,
    scope: WebhookEndpointScope,
    input: EndpointSettings & { url: string; events: readonly string[]; secret: string; metadata?: WebhookEndpointMetadata },
  ): Promise<WebhookEndpointRecord> {
    const row = await tx.webhookEndpoint.create({
      data: {
        id: newId('we'),
        ownerType: scope.ownerType,
        ownerId: scope.ownerId,
        dialect: scope.dialect,
        metadata: { ...(input.metadata ?? {}) },
        url: input.url,
        events: [...input.events],
        description: input.description ?? null,
        rateLimitPerSecond: input.rateLimitPerSecond ?? null,
        secret: input.secret,
      },
    });
    return toEndpoint(row);
  }

  /**
   * Serialises the owner's endpoint creations until the caller's transaction ends (a
   * transaction-scoped advisory lock on the owner), so a count followed by an insert
   * cannot be raced past a limit by concurrent creates.
   */
  async lockOwner(tx: Tx, owner: WebhookOwner): Promise<void> {
    // the owner type has no ':' (WebhooksModule checks it), so the key names one owner
    const key = `webhook_endpoints:${owner.ownerType}:${owner.ownerId}`;
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
  }

  /**
   * How many endpoints the owner has (disabled ones included), of every dialect: the limit
   * per owner is one budget of the delivery system, whichever API made them.
   */
  countEndpoints(tx: Tx, owner: WebhookOwner): Promise<number> {
    return tx.webhookEndpoint.count({ where: { ownerType: owner.ownerType, ownerId: owner.ownerId } });
  }

  async listEndpoints(scope: WebhookEndpointScope): Promise<WebhookEndpointRecord[]> {
    const rows = await this.prisma.webhookEndpoint.findMany({
      where: inScope(scope),
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
    return rows.map(toEndpoint);
  }

  /**
   * A newest-first page of the scope's endpoints, `limit + 1` rows at most (the extra one
   * says there are more); with `before`, the rows just newer than it, oldest first. A cursor
   * that is not an endpoint of the scope answers null.
   */
  async pageEndpoints(scope: WebhookEndpointScope, page: EndpointPage): Promise<WebhookEndpointRecord[] | null> {
    const cursorId = page.before ?? page.after;
    let keyset = {};
    if (cursorId !== undefined) {
      const cursor = await this.prisma.webhookEndpoint.findFirst({
        where: { id: cursorId, ...inScope(scope) },
        select: { id: true, createdAt: true },
      });
      if (cursor === null) return null;
      const newer = page.before !== undefined;
      keyset = {
        OR: [
          { createdAt: newer ? { gt: cursor.createdAt } : { lt: cursor.createdAt } },
          { createdAt: cursor.createdAt, id: newer ? { gt: cursor.id } : { lt: cursor.id } },
        ],
      };
    }
    const order = page.before === undefined ? ('desc' as const) : ('asc' as const);
    const rows = await this.prisma.webhookEndpoint.findMany({
      where: { ...inScope(scope), ...keyset },
      orderBy: [{ createdAt: order }, { id: order }],
      take: page.limit + 1,
    });
    return rows.map(toEndpoint);
  }

  findEndpoint(scope: WebhookEndpointScope, id: string): Promise<WebhookEndpointRecord | null> {
    return findEndpoint(this.prisma, scope, id);
  }

  async deleteEndpoint(tx: Tx, scope: WebhookEndpointScope, id: string): Promise<boolean> {
    const { count } = await tx.webhookEndpoint.deleteMany({ where: { id, ...inScope(scope) } });
    return count === 1;
  }

  /** Enables a disabled endpoint again: its failure window starts afresh. Null when not the scope's. */
  async enableEndpoint(tx: Tx, scope: WebhookEndpointScope, id: string): Promise<WebhookEndpointRecord | null> {
    // only a disabled one: enabling an enabled endpoint must not reset its failure window
    await tx.webhookEndpoint.updateMany({
      where: { id, ...inScope(scope), disabledAt: { not: null } },
      data: ENABLED,
    });
    return findEndpoint(tx, scope, id);
  }

  /**
   * Applies an update (only the fields given). `disabled: true` disables an enabled endpoint
   * (keeping an earlier reason); `disabled: false` enables it as `enableEndpoint`. Null when
   * not the scope's. The row is locked first, so a concurrent metadata merge is not lost.
   */
  async updateEndpoint(
    tx: Tx,
    scope: WebhookEndpointScope,
    id: string,
    patch: EndpointPatch,
    at: Date,
  ): Promise<WebhookEndpointRecord | null> {
    if (patch.metadata !== undefined) {
      await tx.$executeRaw`SELECT 1 FROM "webhook_endpoints" WHERE "id" = ${id} FOR UPDATE`;
    }
    const current = await findEndpoint(tx, scope, id);
    if (current === null) return null;
    const disabled = current.disabledAt !== null;
    const data = {
      ...(patch.metadata === undefined ? {} : { metadata: mergeMetadata(current.metadata, patch.metadata) }),
      ...(patch.url === undefined ? {} : { url: patch.url }),
      ...(patch.events === undefined ? {} : { events: [...patch.events] }),
      ...(patch.description === undefined ? {} : { description: patch.description }),
      ...(patch.rateLimitPerSecond === undefined ? {} : { rateLimitPerSecond: patch.rateLimitPerSecond }),
      ...(patch.disabled === true && !disabled ? { disabledAt: at, disabledReason: 'disabled by its owner' } : {}),
      ...(patch.disabled === false && disabled ? ENABLED : {}),
    };
    if (Object.keys(data).length === 0) return current;
    return toEndpoint(await tx.webhookEndpoint.update({ where: { id }, data }));
  }

  /** The current secret becomes the previous one until `previousExpiresAt`. */
  async rotateSecret(
    tx: Tx,
    scope: WebhookEndpointScope,
    id: string,
    newSecret: string,
    previousExpiresAt: Date,
  ): Promise<WebhookEndpointRecord | null> {
    const current = await tx.webhookEndpoint.findFirst({
      where: { id, ...inScope(scope) },
      select: { secret: true },
    });
    if (current === null) return null;
    const row = await tx.webhookEndpoint.update({
      where: { id },
      data: { secret: newSecret, previousSecret: current.secret, previousSecretExpiresAt: previousExpiresAt },
    });
    return toEndpoint(row);
  }
}

async function findEndpoint(db: Db, scope: WebhookEndpointScope, id: string): Promise<WebhookEndpointRecord | null> {
  const row = await db.webhookEndpoint.findFirst({ where: { id, ...inScope(scope) } });
  return row === null ? null : toEndpoint(row);
}
