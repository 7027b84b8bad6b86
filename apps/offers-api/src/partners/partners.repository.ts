import { Injectable } from '@nestjs/common';
import { PrismaService, type PrismaTx } from '@app/platform';
import type { Tier } from './partner-tier';

export interface PartnerRecord {
  id: string;
  name: string;
  tier: Tier;
  createdAt: Date;
}

export interface ClientRecord {
  id: string;
  partnerId: string;
  secretHash: string;
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

  createPartner(tx: PrismaTx, id: string, name: string, tier: Tier): Promise<PartnerRecord> {
    return tx.partner.create({ data: { id, name, tier } });
  }

  findPartner(id: string): Promise<PartnerRecord | null> {
    return this.prisma.partner.findUnique({ where: { id } });
  }

  async createClient(tx: PrismaTx, id: string, partnerId: string, secretHash: string): Promise<ClientRecord> {
    const row = await tx.oAuthClient.create({ data: { id, partnerId, secretHash }, include: WITH_TIER });
    return { ...row, tier: row.partner.tier };
  }

  findClient(id: string): Promise<ClientRecord | null> {
    return this.clientIn(this.prisma, id);
  }

  /** Disables a partner's client; null when the partner has no such client. */
  async disableClient(tx: PrismaTx, partnerId: string, clientId: string, at: Date): Promise<ClientRecord | null> {
    await tx.oAuthClient.updateMany({
      where: { id: clientId, partnerId, active: true },
      data: { active: false, disabledAt: at },
    });
    const row = await this.clientIn(tx, clientId);
    if (!row || row.partnerId !== partnerId) return null;
    return row;
  }

  private async clientIn(db: PrismaTx, id: string): Promise<ClientRecord | null> {
    const row = await db.oAuthClient.findUnique({ where: { id }, include: WITH_TIER });
    return row ? { ...row, tier: row.partner.tier } : null;
  }
}
