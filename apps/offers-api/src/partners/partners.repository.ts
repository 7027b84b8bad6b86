import { Injectable } from '@nestjs/common';
import { namedPageWhere, type NamedPageFilter, PrismaService, type Db, type Tx } from '@app/platform';
import type { Tier } from './partner-tier';

export interface PartnerRecord {
  id: string;
  name: string;
  tier: Tier;
  createdAt: Date;
}

/** A partner with the counts the operator's list shows. */
export interface PartnerListRecord extends PartnerRecord {
  offersInAgreement: number;
  activeClients: number;
}

/** A page of the operator's partner list: newest first, after a cursor, names starting with a prefix. */
export interface PartnerPageRequest extends NamedPageFilter {
  /** Rows to read (the page's limit + 1, to learn whether more follow). */
  readonly take: number;
}

export interface ClientRecord {
  id: string;
  partnerId: string;
  name: string;
  secretHash: string;
  /** The rotated-out secret's hash while it may still be in its grace period (see previousSecretExpiresAt). */
  previousSecretHash: string | null;
  previousSecretExpiresAt: Date | null;
  /** The current secret's version; the previous secret (in grace) is one less. */
  secretVersion: number;
  /** Access tokens minted from an older secret version are refused. */
  minTokenSecretVersion: number;
  active: boolean;
  createdAt: Date;
  disabledAt: Date | null;
  tier: Tier;
}

const WITH_TIER = { partner: { select: { tier: true } } } as const;

/** Partners and their OAuth clients. */
@Injectable()
export class PartnersRepository {
  constructor(private readonly prisma: PrismaService) {}

  createPartner(tx: Tx, id: string, name: string, tier: Tier): Promise<PartnerRecord> {
    return tx.partner.create({ data: { id, name, tier } });
  }

  findPartner(id: string): Promise<PartnerRecord | null> {
    return this.prisma.partner.findUnique({ where: { id } });
  }

  /**
   * The operator's list, in one statement: the page (newest first, read backwards along
   * partners_created_at_id_idx, or by partners_name_lower_idx for a prefix), then each
   * partner's counts, which are evaluated for the page's rows only (the inner LIMIT comes
   * first) and each read one index range: offer_agreements' primary key, oauth_clients'
   * partner_id index.
   */
  adminPage(request: PartnerPageRequest): Promise<PartnerListRecord[]> {
    const where = namedPageWhere('p', request);
    return this.prisma.$queryRaw<PartnerListRecord[]>`
      SELECT page.id, page.name, page.tier, page."createdAt",
             (SELECT count(*)::int FROM offer_agreements a WHERE a.partner_id = page.id) AS "offersInAgreement",
             (SELECT count(*)::int FROM oauth_clients c WHERE c.partner_id = page.id AND c.active) AS "activeClients"
        FROM (SELECT p.id, p.name, p.tier::text AS tier, p.created_at AS "createdAt"
                FROM partners p ${where}
               ORDER BY p.created_at DESC, p.id DESC
               LIMIT ${request.take}::int) page
       ORDER BY page."createdAt" DESC, page.id DESC`;
  }

  /**
   * Locks the partner's row until the transaction ends (serialises the "how many clients,
   * then create one" of concurrent requests); false when there is no such partner.
   */
  async lockPartner(tx: Tx, partnerId: string): Promise<boolean> {
    const rows = await tx.$queryRaw<unknown[]>`SELECT 1 FROM "partners" WHERE "id" = ${partnerId} FOR UPDATE`;
    return rows.length > 0;
  }

  /** `name` unset: the column default (`default`), as for clients made by the operator. */
  async createClient(tx: Tx, id: string, partnerId: string, secretHash: string, name?: string): Promise<ClientRecord> {
    const row = await tx.oAuthClient.create({
      data: { id, partnerId, secretHash, ...(name === undefined ? {} : { name }) },
      include: WITH_TIER,
    });
    return { ...row, tier: row.partner.tier };
  }

  /** The partner's clients that work (not disabled), oldest first. */
  async listActiveClients(partnerId: string): Promise<ClientRecord[]> {
    const rows = await this.prisma.oAuthClient.findMany({
      where: { partnerId, active: true },
      include: WITH_TIER,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return rows.map((row) => ({ ...row, tier: row.partner.tier }));
  }

  countActiveClients(tx: Tx, partnerId: string): Promise<number> {
    return tx.oAuthClient.count({ where: { partnerId, active: true } });
  }

  /** The partner's clients that work, counted without a lock: the cheap check before a secret is hashed. */
  countActiveClientsNow(partnerId: string): Promise<number> {
    return this.prisma.oAuthClient.count({ where: { partnerId, active: true } });
  }

  /** The partner's client if it is active; null for another partner's, a deleted or an unknown one. */
  async findActiveClientOf(partnerId: string, clientId: string): Promise<ClientRecord | null> {
    const client = await this.findClient(clientId);
    return client?.partnerId === partnerId && client.active ? client : null;
  }

  /**
   * Replaces an active client's secret hash in one UPDATE, one version up. With
   * `previousExpiresAt` the replaced hash becomes the previous one (valid until then; an earlier
   * previous one is dropped, and so are its access tokens); without it no previous secret is
   * kept and the access tokens of every older secret are refused from now on. Null when the
   * partner has no such active client.
   */
  async rotateSecret(
    tx: Tx,
    partnerId: string,
    clientId: string,
    secretHash: string,
    previousExpiresAt: Date | null,
  ): Promise<ClientRecord | null> {
    const updated = await tx.$executeRaw`
      UPDATE "oauth_clients"
         SET "previous_secret_hash" = CASE WHEN ${previousExpiresAt}::timestamptz IS NULL THEN NULL ELSE "secret_hash" END,
             "previous_secret_expires_at" = ${previousExpiresAt}::timestamptz,
             "secret_hash" = ${secretHash},
             "secret_version" = "secret_version" + 1,
             "min_token_secret_version" =
               CASE WHEN ${previousExpiresAt}::timestamptz IS NULL THEN "secret_version" + 1 ELSE "secret_version" END
       WHERE "id" = ${clientId} AND "partner_id" = ${partnerId} AND "active"`;
    return updated === 0 ? null : this.clientIn(tx, clientId);
  }

  /** Disables a partner's client that is still active; null when it has no such active client. */
  async disableActiveClient(tx: Tx, partnerId: string, clientId: string, at: Date): Promise<ClientRecord | null> {
    const { count } = await tx.oAuthClient.updateMany({
      where: { id: clientId, partnerId, active: true },
      data: { active: false, disabledAt: at },
    });
    return count === 0 ? null : this.clientIn(tx, clientId);
  }

  findClient(id: string): Promise<ClientRecord | null> {
    return this.clientIn(this.prisma, id);
  }

  /** Disables a partner's client; null when the partner has no such client. */
  async disableClient(tx: Tx, partnerId: string, clientId: string, at: Date): Promise<ClientRecord | null> {
    await tx.oAuthClient.updateMany({
      where: { id: clientId, partnerId, active: true },
      data: { active: false, disabledAt: at },
    });
    const row = await this.clientIn(tx, clientId);
    if (!row || row.partnerId !== partnerId) return null;
    return row;
  }

  private async clientIn(db: Db, id: string): Promise<ClientRecord | null> {
    const row = await db.oAuthClient.findUnique({ where: { id }, include: WITH_TIER });
    return row ? { ...row, tier: row.partner.tier } : null;
  }
}
