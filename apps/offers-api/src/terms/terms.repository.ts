import { Injectable } from '@nestjs/common';
import { PrismaService, type PrismaTx } from '@app/platform';

export interface TermsRecord {
  readonly version: string;
  readonly title: string;
  readonly body: string;
  readonly publishedAt: Date;
}

/** Terms are global (the same for every partner), so no method takes an owner. */
@Injectable()
export class TermsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The latest published version. */
  async current(tx: PrismaTx = this.prisma): Promise<TermsRecord | undefined> {
    const row = await tx.termsVersion.findFirst({ orderBy: [{ publishedAt: 'desc' }, { version: 'desc' }] });
    return row ?? undefined;
  }

  /** Inserts a version; undefined when the version string is taken. */
  async publish(terms: TermsRecord): Promise<TermsRecord | undefined> {
    const rows = await this.prisma.termsVersion.createManyAndReturn({ data: [terms], skipDuplicates: true });
    return rows[0];
  }
}
