import { Injectable } from '@nestjs/common';
import { PrismaService } from './prisma.service';

/** What the platform itself asks the database: is it there, and which migrations it has. */
@Injectable()
export class DatabaseInfoRepository {
  constructor(private readonly prisma: PrismaService) {}

  async ping(): Promise<void> {
    await this.prisma.$queryRaw`SELECT 1`;
  }

  /** Names of the migrations applied and not rolled back, in order. */
  async appliedMigrations(): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<Array<{ migration_name: string }>>`
      SELECT migration_name FROM _prisma_migrations
      WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`;
    return rows.map((r) => r.migration_name);
  }
}
