import { Injectable } from '@nestjs/common';
import { PrismaService, type Tx } from '@app/platform';

export interface ConsoleSessionRow {
  id: string;
  service: string;
  tenantId: string;
  /** The sign-in: the start of the session's absolute lifetime. */
  createdAt: Date;
  lastSeenAt: Date;
  revokedAt: Date | null;
}

/** console_links and console_sessions: only SHA-256 hashes of link tokens and cookies are stored. */
@Injectable()
export class ConsoleSessionsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async createLink(link: { id: string; service: string; tenantId: string; tokenHash: string; expiresAt: Date }): Promise<void> {
    await this.prisma.consoleLink.create({ data: link });
  }

  /**
   * Marks an unused, unexpired link of `service` used and opens its session, in the caller's transaction:
   * the conditional UPDATE makes a link usable once even when two requests race. Null when the
   * link is unknown, used or expired.
   */
  async redeemLink(
    tx: Tx,
    tokenHash: string,
    service: string,
    now: Date,
    session: { id: string; tokenHash: string },
  ): Promise<{ tenantId: string } | null> {
    const used = await tx.consoleLink.updateManyAndReturn({
      where: { tokenHash, service, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
      select: { tenantId: true },
    });
    const link = used[0];
    if (!link) return null;
    await tx.consoleSession.create({
      data: { id: session.id, service, tenantId: link.tenantId, tokenHash: session.tokenHash, createdAt: now, lastSeenAt: now },
    });
    return { tenantId: link.tenantId };
  }

  /** The link's state, to tell a used link from an expired or unknown one. */
  async findLink(tokenHash: string, service: string): Promise<{ usedAt: Date | null; expiresAt: Date } | null> {
    return this.prisma.consoleLink.findFirst({ where: { tokenHash, service }, select: { usedAt: true, expiresAt: true } });
  }

  async findSession(tokenHash: string): Promise<ConsoleSessionRow | null> {
    return this.prisma.consoleSession.findUnique({
      where: { tokenHash },
      select: { id: true, service: true, tenantId: true, createdAt: true, lastSeenAt: true, revokedAt: true },
    });
  }

  async touch(id: string, now: Date): Promise<void> {
    await this.prisma.consoleSession.updateMany({ where: { id, revokedAt: null }, data: { lastSeenAt: now } });
  }

  async revoke(id: string, now: Date): Promise<void> {
    await this.prisma.consoleSession.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
  }

  /** Revokes every live session of a tenant in a service; how many. */
  async revokeTenant(service: string, tenantId: string, now: Date): Promise<number> {
    const { count } = await this.prisma.consoleSession.updateMany({
      where: { service, tenantId, revokedAt: null },
      data: { revokedAt: now },
    });
    return count;
  }

  /**
   * Deletes links expired and sessions last used or revoked before `before`, or signed in
   * before `signedInBefore` (past their absolute lifetime), as housekeeping: how many of each.
   */
  async prune(before: Date, signedInBefore: Date): Promise<{ links: number; sessions: number }> {
    const links = await this.prisma.consoleLink.deleteMany({ where: { expiresAt: { lt: before } } });
    const sessions = await this.prisma.consoleSession.deleteMany({
      where: { OR: [{ lastSeenAt: { lt: before } }, { revokedAt: { lt: before } }, { createdAt: { lt: signedInBefore } }] },
    });
    return { links: links.count, sessions: sessions.count };
  }
}
