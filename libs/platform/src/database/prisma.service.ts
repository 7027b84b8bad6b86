import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { type Prisma, PrismaClient } from './generated/client';

export interface PrismaOptions {
  readonly url: string;
  readonly poolSize: number;
}

/**
 * The Prisma client over node-postgres (@prisma/adapter-pg). Only `*.repository.ts` files
 * use it. The pool is closed after HTTP has drained and workers have stopped.
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnApplicationShutdown {
  constructor(options: PrismaOptions) {
    super({
      adapter: new PrismaPg({ connectionString: options.url, max: options.poolSize, connectionTimeoutMillis: 5_000 }),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.$disconnect();
  }
}

/** A transaction client, as passed to repository methods that join a caller's transaction. */
export type PrismaTx = Prisma.TransactionClient;
