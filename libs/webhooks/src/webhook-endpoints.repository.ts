import { Injectable } from '@nestjs/common';
import { newId, PrismaService, type Db, type Tx } from '@app/platform';
import type { WebhookEndpointRecord, WebhookOwner } from './webhooks.types';

/** A `webhook_endpoints` row as Prisma returns it. */
export interface EndpointRow {
  id: string;
  ownerType: string;
  ownerId: string;
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

/** What enabling a disabled endpoint writes: its failure window starts afresh. */
const ENABLED = { disabledAt: null, disabledReason: null, failingSince: null } as const;

/** Optional settings of an endpoint (create and update). */
export interface EndpointSettings {
  readonly description?: string | null;
  readonly rateLimitPerSecond?: number | null;
}

/** An update: only the fields present change. */
export interface EndpointPatch extends EndpointSettings {
  readonly url?: string;
  readonly events?: readonly string[];
  readonly disabled?: boolean;
}

/**
 * The registered endpoints. Every method takes the owner, so no query can cross owners;
 * writes run in the caller's transaction.
 */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async createEndpoint(
    tx: Tx,
    owner: WebhookOwner,
    input: EndpointSettings & { url: string; events: readonly string[]; secret: string },
  ): Promise<WebhookEndpointRecord> {
    const row = await tx.webhookEndpoint.create({
      data: {
        id: newId('we'),
        ownerType: owner.ownerType,
        ownerId: owner.ownerId,
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

  /** How many endpoints the owner has (disabled ones included). */
  countEndpoints(tx: Tx, owner: WebhookOwner): Promise<number> {
    return tx.webhookEndpoint.count({ where: { ownerType: owner.ownerType, ownerId: owner.ownerId } });
  }

  async listEndpoints(owner: WebhookOwner): Promise<WebhookEndpointRecord[]> {
    const rows = await this.prisma.webhookEndpoint.findMany({
      where: { ownerType: owner.ownerType, ownerId: owner.ownerId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
    return rows.map(toEndpoint);
  }

  findEndpoint(owner: WebhookOwner, id: string): Promise<WebhookEndpointRecord | null> {
    return findEndpoint(this.prisma, owner, id);
  }

  async deleteEndpoint(tx: Tx, owner: WebhookOwner, id: string): Promise<boolean> {
    const { count } = await tx.webhookEndpoint.deleteMany({
      where: { id, ownerType: owner.ownerType, ownerId: owner.ownerId },
    });
    return count === 1;
  }

  /** Enables a disabled endpoint again: its failure window starts afresh. Null when not the owner's. */
  async enableEndpoint(tx: Tx, owner: WebhookOwner, id: string): Promise<WebhookEndpointRecord | null> {
    // only a disabled one: enabling an enabled endpoint must not reset its failure window
    await tx.webhookEndpoint.updateMany({
      where: { id, ownerType: owner.ownerType, ownerId: owner.ownerId, disabledAt: { not: null } },
      data: ENABLED,
    });
    return findEndpoint(tx, owner, id);
  }

  /**
   * Applies an update (only the fields given). `disabled: true` disables an enabled endpoint
   * (keeping an earlier reason); `disabled: false` enables it as `enableEndpoint`. Null when
   * not the owner's.
   */
  async updateEndpoint(
    tx: Tx,
    owner: WebhookOwner,
    id: string,
    patch: EndpointPatch,
    at: Date,
  ): Promise<WebhookEndpointRecord | null> {
    const current = await findEndpoint(tx, owner, id);
    if (current === null) return null;
    const disabled = current.disabledAt !== null;
    const data = {
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
    owner: WebhookOwner,
    id: string,
    newSecret: string,
    previousExpiresAt: Date,
  ): Promise<WebhookEndpointRecord | null> {
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
  }
}

async function findEndpoint(db: Db, owner: WebhookOwner, id: string): Promise<WebhookEndpointRecord | null> {
  const row = await db.webhookEndpoint.findFirst({
    where: { id, ownerType: owner.ownerType, ownerId: owner.ownerId },
  });
  return row === null ? null : toEndpoint(row);
}
