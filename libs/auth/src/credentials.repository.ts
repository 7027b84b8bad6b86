import { Injectable } from '@nestjs/common';
import { PrismaService } from '@app/platform';
import type { PaymentsMode, Tier } from './principal';

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

export interface VectorTokenRecord {
  id: string;
  name: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** The only file of libs/auth that talks to the database: partners, clients, tokens, keys. */
@Injectable()
export class CredentialsRepository {
  constructor(private readonly prisma: PrismaService) {}

  createPartner(id: string, name: string, tier: Tier): Promise<PartnerRecord> {
    return this.prisma.partner.create({ data: { id, name, tier } });
  }

  findPartner(id: string): Promise<PartnerRecord | null> {
    return this.prisma.partner.findUnique({ where: { id } });
  }

  async createClient(id: string, partnerId: string, secretHash: string): Promise<ClientRecord> {
    const row = await this.prisma.oAuthClient.create({
      data: { id, partnerId, secretHash },
      include: { partner: { select: { tier: true } } },
    });
    return { ...row, tier: row.partner.tier };
  }

  async findClient(id: string): Promise<ClientRecord | null> {
    const row = await this.prisma.oAuthClient.findUnique({ where: { id }, include: { partner: { select: { tier: true } } } });
    return row ? { ...row, tier: row.partner.tier } : null;
  }

  /** Disables a partner's client; null when the partner has no such client. */
  async disableClient(partnerId: string, clientId: string, at: Date): Promise<ClientRecord | null> {
    await this.prisma.oAuthClient.updateMany({
      where: { id: clientId, partnerId, active: true },
      data: { active: false, disabledAt: at },
    });
    const row = await this.findClient(clientId);
    if (!row || row.partnerId !== partnerId) return null;
    return row;
  }

  createVectorToken(id: string, name: string, tokenHash: string): Promise<VectorTokenRecord> {
    return this.prisma.vectorToken.create({
      data: { id, name, tokenHash },
      select: { id: true, name: true, createdAt: true, revokedAt: true },
    });
  }

  listVectorTokens(): Promise<VectorTokenRecord[]> {
    return this.prisma.vectorToken.findMany({
      select: { id: true, name: true, createdAt: true, revokedAt: true },
      orderBy: { createdAt: 'desc' },
    });
  }

  findActiveVectorToken(tokenHash: string): Promise<{ id: string } | null> {
    return this.prisma.vectorToken.findFirst({ where: { tokenHash, revokedAt: null }, select: { id: true } });
  }

  async revokeVectorToken(id: string, at: Date): Promise<VectorTokenRecord | null> {
    await this.prisma.vectorToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: at } });
    return this.prisma.vectorToken.findUnique({
      where: { id },
      select: { id: true, name: true, createdAt: true, revokedAt: true },
    });
  }

  createPaymentAccount(
    id: string,
    name: string,
    keys: ReadonlyArray<{ id: string; mode: PaymentsMode; keyHash: string }>,
  ): Promise<{ id: string; name: string; createdAt: Date }> {
    return this.prisma.paymentAccount.create({
      data: { id, name, keys: { create: keys.map((k) => ({ id: k.id, mode: k.mode, keyHash: k.keyHash })) } },
      select: { id: true, name: true, createdAt: true },
    });
  }

  findActivePaymentKey(keyHash: string): Promise<{ id: string; accountId: string; mode: PaymentsMode } | null> {
    return this.prisma.paymentApiKey.findFirst({
      where: { keyHash, revokedAt: null },
      select: { id: true, accountId: true, mode: true },
    });
  }
}
