import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/client';
import { DirectSql } from './direct-sql';

export interface PrismaOptions {
  readonly url: string;
  readonly poolSize: number;
}

/**
 * The Prisma client over node-postgres (@prisma/adapter-pg). Only `*.repository.ts` files
 * use it. The pool is closed after HTTP has drained and workers have stopped.
 *
 * The service builds the `pg` pool itself and hands it to the adapter, so the hot write
 * paths' raw statements (`direct`, and TransactionRunner's `runSql` transactions) run on
 * the same connections, under the same DATABASE_POOL_SIZE, without Prisma's per-call cost
 * (docs/decisions.md 116).
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnApplicationShutdown {
  /** The pool Prisma's adapter uses (closed by `$disconnect`). */
  readonly pool: Pool;
  /** Autocommit raw statements straight on the pool, outside any transaction. */
  readonly direct: DirectSql;

  constructor(options: PrismaOptions) {
    const pool = new Pool({ connectionString: options.url, max: options.poolSize, connectionTimeoutMillis: 5_000 });
    super({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
    this.pool = pool;
    this.direct = new DirectSql(pool);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.$disconnect();
  }
}
