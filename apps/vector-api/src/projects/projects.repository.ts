import { Injectable } from '@nestjs/common';
import { namedPageWhere, type NamedPageFilter, PrismaService, type Tx } from '@app/platform';

export interface ProjectRecord {
  readonly id: string;
  readonly name: string;
  readonly createdAt: Date;
}

/** A project with the counts the operator's list shows. */
export interface ProjectListRecord extends ProjectRecord {
  readonly tables: number;
  readonly activeTokens: number;
  /** int8: a bigint as $queryRaw reads it. */
  readonly storedFloats: bigint;
}

/** A page of the operator's project list: newest first, after a cursor, names starting with a prefix. */
export interface ProjectPageRequest extends NamedPageFilter {
  /** Rows to read (the page's limit + 1, to learn whether more follow). */
  readonly take: number;
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

  /**
   * The operator's list, in one statement: the page (newest first, read backwards along
   * vector_projects_created_at_id_idx, or by vector_projects_name_lower_idx for a prefix),
   * then each project's counts, evaluated for the page's rows only (the inner LIMIT comes
   * first), each one index range: vector_tables' (project_id, name), vector_tokens' project_id.
   */
  adminPage(request: ProjectPageRequest): Promise<ProjectListRecord[]> {
    const where = namedPageWhere('p', request);
    return this.prisma.$queryRaw<ProjectListRecord[]>`
      SELECT page.id, page.name, page."createdAt", page."storedFloats",
             (SELECT count(*)::int FROM vector_tables t WHERE t.project_id = page.id) AS tables,
             (SELECT count(*)::int FROM vector_tokens k WHERE k.project_id = page.id AND k.revoked_at IS NULL) AS "activeTokens"
        FROM (SELECT p.id, p.name, p.created_at AS "createdAt", p.stored_floats AS "storedFloats"
                FROM vector_projects p ${where}
               ORDER BY p.created_at DESC, p.id DESC
               LIMIT ${request.take}::int) page
       ORDER BY page."createdAt" DESC, page.id DESC`;
  }

  find(id: string): Promise<ProjectRecord | null> {
    return this.prisma.vectorProject.findUnique({ where: { id }, select: RECORD });
  }
}
