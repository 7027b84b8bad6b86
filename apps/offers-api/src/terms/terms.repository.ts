import { Injectable } from '@nestjs/common';
import { PrismaService, type PrismaTx } from '@app/platform';
import type { TermsRecord } from './terms.types';

/** Terms are global (the same for every partner), so no method takes an owner. */
@Injectable()
export class TermsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The latest published version. */
  async current(): Promise<TermsRecord | undefined> {
    const row = await this.prisma.termsVersion.findFirst({ orderBy: [{ publishedAt: 'desc' }, { version: 'desc' }] });
    return row ?? undefined;
  }

  /** Inserts a version; undefined when the version string is taken. */
  async publish(tx: PrismaTx, terms: TermsRecord): Promise<TermsRecord | undefined> {
    const rows = await tx.termsVersion.createManyAndReturn({ data: [terms], skipDuplicates: true });
    return rows[0];
  }
}
