import { Injectable } from '@nestjs/common';
import { PrismaService, type Tx } from '@app/platform';

export interface VectorTokenRecord {
  id: string;
  projectId: string;
  name: string;
  last4: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface NewVectorToken {
  readonly id: string;
  readonly projectId: string;
  readonly name: string;
  readonly tokenHash: string;
  readonly last4: string;
}

const RECORD = {
  id: true,
  projectId: true,
  name: true,
  last4: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
} as const;

/** API tokens; only their SHA-256 (and last 4 characters) is stored. Every read names the project. */
@Injectable()
export class VectorTokensRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(tx: Tx, token: NewVectorToken): Promise<VectorTokenRecord> {
    return tx.vectorToken.create({ data: token, select: RECORD });
  }

  /** Every token of every project, newest first (the admin list). */
  listAll(): Promise<VectorTokenRecord[]> {
    return this.prisma.vectorToken.findMany({ select: RECORD, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] });
  }

  /** The project's tokens that still work, newest first. */
  listActive(projectId: string): Promise<VectorTokenRecord[]> {
    return this.prisma.vectorToken.findMany({
      where: { projectId, revokedAt: null },
      select: RECORD,
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    });
  }

  /**
   * Locks the project's row until commit: the creates of one project's tokens serialise, so a
   * count taken after it stays true until the create commits.
   */
  async lockProject(tx: Tx, projectId: string): Promise<void> {
    await tx.$queryRaw`SELECT id FROM vector_projects WHERE id = ${projectId} FOR UPDATE`;
  }

  /** How many tokens of the project still work. */
  countActive(tx: Tx, projectId: string): Promise<number> {
    return tx.vectorToken.count({ where: { projectId, revokedAt: null } });
  }

  findActive(tokenHash: string): Promise<{ id: string; projectId: string } | null> {
    return this.prisma.vectorToken.findFirst({
      where: { tokenHash, revokedAt: null },
      select: { id: true, projectId: true },
    });
  }

  /**
   * Revokes the token (once: a second revocation keeps the first time); null when there is no
   * such token (of this project, when `projectId` is given).
   */
  async revoke(tx: Tx, id: string, at: Date, projectId?: string): Promise<VectorTokenRecord | null> {
    const scope = projectId === undefined ? { id } : { id, projectId };
    await tx.vectorToken.updateMany({ where: { ...scope, revokedAt: null }, data: { revokedAt: at } });
    return tx.vectorToken.findFirst({ where: scope, select: RECORD });
  }

  /** Records a use, at most once a minute per token (one UPDATE that finds nothing to do otherwise). */
  async touch(id: string, at: Date): Promise<void> {
    await this.prisma.vectorToken.updateMany({
      where: { id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(at.getTime() - 60_000) } }] },
      data: { lastUsedAt: at },
    });
  }
}
