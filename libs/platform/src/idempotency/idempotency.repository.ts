import { Injectable } from '@nestjs/common';
import { Prisma } from '../database/generated/client';
import { PrismaService } from '../database/prisma.service';

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
   * The UPDATE that stores the response (raw: it runs inside every idempotent write's
   * transaction, and Prisma's query compilation of updateMany cost more CPU than PostgreSQL
   * spends on it, docs/decisions.md 112). RETURNING 1, so it can close a transaction
   * together with its outbox rows (Closing).
   */
  completion(scope: string, id: string, status: number, /** JSON text, or its sealed envelope */ body: string): Prisma.Sql {
    return Prisma.sql`
      UPDATE idempotency_keys
         SET response_status = ${status}, response_body = ${body}, locked_until = NULL
       WHERE id = ${id}::uuid AND scope = ${scope} AND response_status IS NULL
      RETURNING 1`;
  }

  /** Stores the response on its own (autocommit on the pool), when no transaction of the request did. */
  async complete(scope: string, id: string, status: number, body: string): Promise<void> {
    await this.prisma.direct.$queryRaw(this.completion(scope, id, status, body));
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
