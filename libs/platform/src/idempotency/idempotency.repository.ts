import { Injectable } from '@nestjs/common';
import { Prisma } from '../database/generated/client';
import { PrismaService, type PrismaTx } from '../database/prisma.service';

export interface StoredKey {
  id: string;
  fingerprint: string;
  responseStatus: number | null;
  /** The stored response JSON text (or, on a sealed route, its ResponseSealer envelope). */
  responseBody: string | null;
  lockedUntil: Date | null;
  expiresAt: Date;
}

/** The only file of the idempotency feature that talks to the database. Every method takes the scope. */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** INSERT … ON CONFLICT DO NOTHING: true when this request now owns (scope, key). */
  async tryClaim(row: {
    id: string;
    scope: string;
    key: string;
    fingerprint: string;
    method: string;
    path: string;
    lockedUntil: Date;
    expiresAt: Date;
  }): Promise<boolean> {
    // Straight on the pool: one autocommit statement per idempotent request (decisions 116).
    const inserted = await this.prisma.direct.$executeRaw`
      INSERT INTO idempotency_keys (id, scope, key, fingerprint, method, path, locked_until, created_at, expires_at)
      VALUES (${row.id}::uuid, ${row.scope}, ${row.key}, ${row.fingerprint}, ${row.method}, ${row.path},
              ${row.lockedUntil}, now(), ${row.expiresAt})
      ON CONFLICT (scope, key) DO NOTHING`;
    return inserted === 1;
  }

  find(scope: string, key: string): Promise<StoredKey | null> {
    return this.prisma.idempotencyKey.findUnique({
      where: { scope_key: { scope, key } },
      select: { id: true, fingerprint: true, responseStatus: true, responseBody: true, lockedUntil: true, expiresAt: true },
    });
  }

  /** Takes over an abandoned claim (lease over, no response) or an expired record; true if this request won. */
  async takeOver(
    scope: string,
    id: string,
    now: Date,
    row: { fingerprint: string; method: string; path: string; lockedUntil: Date; expiresAt: Date },
  ): Promise<boolean> {
    const updated = await this.prisma.$executeRaw`
      UPDATE idempotency_keys
         SET fingerprint = ${row.fingerprint}, method = ${row.method}, path = ${row.path},
             locked_until = ${row.lockedUntil}, expires_at = ${row.expiresAt},
             response_status = NULL, response_body = NULL, created_at = now()
       WHERE id = ${id}::uuid AND scope = ${scope}
         AND ((response_status IS NULL AND locked_until < ${now}) OR expires_at < ${now})`;
    return updated === 1;
  }

  /**
   * Stores the response; with `tx` it commits together with the request's effect. `carried`
   * statements (data-modifying, with RETURNING) run as CTEs of the same statement.
   */
  async complete(
    db: PrismaTx | PrismaService,
    scope: string,
    id: string,
    status: number,
    /** The response JSON text, or its sealed envelope. */
    body: string,
    carried: readonly Prisma.Sql[] = [],
  ): Promise<void> {
    // Raw: this runs inside every idempotent write's transaction, and Prisma's query
    // compilation of updateMany cost more CPU than PostgreSQL spends on the UPDATE
    // (docs/decisions.md 112).
    const update = Prisma.sql`
      UPDATE idempotency_keys
         SET response_status = ${status}, response_body = ${body}, locked_until = NULL
       WHERE id = ${id}::uuid AND scope = ${scope} AND response_status IS NULL`;
    if (carried.length === 0) {
      await db.$executeRaw(update);
      return;
    }
    // One round trip for the completion and the carried writes (decisions 115). Every CTE is
    // read, so each RETURNING list (e.g. an outbox row's pg_notify) is evaluated.
    const ctes = carried.map((statement, i) => Prisma.sql`${Prisma.raw(`carried_${i}`)} AS (${statement})`);
    const reads = carried.map((_, i) => Prisma.raw(`(SELECT count(*) FROM carried_${i})`));
    await db.$queryRaw`
      WITH completed AS (${update} RETURNING 1), ${Prisma.join(ctes, ', ')}
      SELECT ((SELECT count(*) FROM completed) + ${Prisma.join(reads, ' + ')})::int AS n`;
  }

  /** Drops an unfinished claim whose request failed before committing anything. */
  async release(scope: string, id: string): Promise<void> {
    await this.prisma.idempotencyKey.deleteMany({ where: { id, scope, responseStatus: null } });
  }

  async purgeExpired(now: Date): Promise<number> {
    const { count } = await this.prisma.idempotencyKey.deleteMany({ where: { expiresAt: { lt: now } } });
    return count;
  }
}
