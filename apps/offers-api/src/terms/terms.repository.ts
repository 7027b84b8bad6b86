import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService, type Tx } from '@app/platform';
import type { TermsRecord } from './terms.types';

/**
 * The rule "the current terms": the latest published version (on a tie, the greatest
 * version string). Written here once, as SQL over terms_versions aliased `t`; the
 * indications' hot path reads it with `currentTermsVersion`.
 */
const CURRENT = Prisma.sql`FROM terms_versions t ORDER BY t.published_at DESC, t.version DESC LIMIT 1`;

/** The current terms' version as a scalar subquery (NULL when none is published). */
export const currentTermsVersion = Prisma.sql`(SELECT t.version ${CURRENT})`;

/** Terms are global (the same for every partner), so no method takes an owner. */
@Injectable()
export class TermsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The latest published version. */
  async current(): Promise<TermsRecord | undefined> {
    const rows = await this.prisma.$queryRaw<TermsRecord[]>`
      SELECT t.version, t.title, t.body, t.published_at AS "publishedAt" ${CURRENT}`;
    return rows[0];
  }

  /** Inserts a version; undefined when the version string is taken. */
  async publish(tx: Tx, terms: TermsRecord): Promise<TermsRecord | undefined> {
    const rows = await tx.termsVersion.createManyAndReturn({ data: [terms], skipDuplicates: true });
    return rows[0];
  }
}
