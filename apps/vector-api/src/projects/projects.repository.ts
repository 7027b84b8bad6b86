import { Injectable } from '@nestjs/common';
import { PrismaService, type Tx } from '@app/platform';

export interface ProjectRecord {
  readonly id: string;
  readonly name: string;
  readonly createdAt: Date;
}

/** The id of the project that existing data and `POST /admin/v1/tokens` belong to (migration 20261125170000). */
export const DEFAULT_PROJECT_ID = 'proj_default';

const RECORD = { id: true, name: true, createdAt: true } as const;

/** vector-api projects (the tenant). */
@Injectable()
export class ProjectsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(tx: Tx, id: string, name: string): Promise<ProjectRecord> {
    return tx.vectorProject.create({ data: { id, name }, select: RECORD });
  }

  list(): Promise<ProjectRecord[]> {
    return this.prisma.vectorProject.findMany({ select: RECORD, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  find(id: string): Promise<ProjectRecord | null> {
    return this.prisma.vectorProject.findUnique({ where: { id }, select: RECORD });
  }
}
