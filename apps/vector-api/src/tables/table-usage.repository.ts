import { PrismaService } from '@app/platform';
import { Injectable } from '@nestjs/common';

/**
 * `vector_tables.last_queried_at`: when a query last read a table, the order in which a
 * starting instance loads its tables (decision 187). Written in batches, never per query.
 */
@Injectable()
export class TableUsageRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The last query time of each of these tables that has one. */
  async lastQueried(tableIds: readonly string[]): Promise<Map<string, Date>> {
    if (tableIds.length === 0) return new Map();
    const rows = await this.prisma.$queryRaw<Array<{ id: string; last_queried_at: Date }>>`
      SELECT id::text AS id, last_queried_at FROM vector_tables
      WHERE id = ANY(${[...tableIds]}::uuid[]) AND last_queried_at IS NOT NULL`;
    return new Map(rows.map((r) => [r.id, r.last_queried_at]));
  }

  /**
   * Sets last_queried_at to now on these tables, in one statement. A table whose row a write
   * holds locked (every write of its rows locks it until commit) is skipped rather than waited
   * for: its next query a minute later sets it. The time is a hint for the load order, not a record.
   */
  async touch(tableIds: readonly string[]): Promise<void> {
    if (tableIds.length === 0) return;
    await this.prisma.$executeRaw`
      UPDATE vector_tables SET last_queried_at = now()
      WHERE id IN (SELECT id FROM vector_tables WHERE id = ANY(${[...tableIds]}::uuid[]) FOR UPDATE SKIP LOCKED)`;
  }
}
