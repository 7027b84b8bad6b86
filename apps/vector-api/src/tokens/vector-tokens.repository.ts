import { Injectable } from '@nestjs/common';
import { PrismaService, type PrismaTx } from '@app/platform';

export interface VectorTokenRecord {
  id: string;
  name: string;
  createdAt: Date;
  revokedAt: Date | null;
}

const RECORD = { id: true, name: true, createdAt: true, revokedAt: true } as const;

/** API tokens; only their SHA-256 is stored. */
@Injectable()
export class VectorTokensRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(tx: PrismaTx, id: string, name: string, tokenHash: string): Promise<VectorTokenRecord> {
    return tx.vectorToken.create({ data: { id, name, tokenHash }, select: RECORD });
  }

  list(): Promise<VectorTokenRecord[]> {
    return this.prisma.vectorToken.findMany({ select: RECORD, orderBy: { createdAt: 'desc' } });
  }

  findActive(tokenHash: string): Promise<{ id: string } | null> {
    return this.prisma.vectorToken.findFirst({ where: { tokenHash, revokedAt: null }, select: { id: true } });
  }

  /** Revokes the token (once: a second revocation keeps the first time); null when there is no such token. */
  async revoke(tx: PrismaTx, id: string, at: Date): Promise<VectorTokenRecord | null> {
    await tx.vectorToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: at } });
    return tx.vectorToken.findUnique({ where: { id }, select: RECORD });
  }
}
