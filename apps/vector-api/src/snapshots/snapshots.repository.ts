import { PrismaService, ThrottledWarning } from '@app/platform';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Pool, type PoolClient } from 'pg';
import { VectorConfig } from '../config';
import { CopyOutQuery } from './pg-copy-out';
import type { SnapshotHeader, SnapshotInfo } from './snapshot-store';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Connections of the chunk pool: one write and one read-ahead at a time are what a store does. */
const CHUNK_POOL_SIZE = 2;

interface SnapshotRecord {
  id: string;
  tableId: string;
  seq: bigint;
  formatVersion: number;
  fingerprint: string;
  bytes: bigint | null;
  sha256: string | null;
  chunks: number | null;
  createdAt: Date;
}

function info(row: SnapshotRecord): SnapshotInfo {
  return {
    id: row.id,
    tableId: row.tableId,
    seq: row.seq,
    formatVersion: row.formatVersion,
    fingerprint: row.fingerprint,
    bytes: Number(row.bytes ?? 0n),
    sha256: row.sha256 ?? '',
    chunks: row.chunks ?? 0,
    createdAt: row.createdAt,
  };
}

/**
 * The snapshots' rows (`vector_snapshots`, through Prisma) and their chunks
 * (`vector_snapshot_chunks`, through a small node-postgres pool of its own: Prisma moves
 * bytea as base64 and hex text, several times slower than the binary paths used here —
 * docs/decisions.md). Each write is one autocommitted statement: a payload of a gigabyte is
 * never held by one transaction, and a half-written snapshot is a row without `published_at`.
 */
@Injectable()
export class SnapshotsRepository implements OnApplicationShutdown {
  private pool: Pool | undefined;
  private readonly warning = new ThrottledWarning(new Logger('SnapshotsRepository'));

  constructor(
    private readonly prisma: PrismaService,
    private readonly config: VectorConfig,
  ) {}

  /** The chunk pool, opened on first use (not at all where snapshots live in a directory). */
  private chunkPool(): Pool {
    if (!this.pool) {
      this.pool = new Pool({
        connectionString: this.config.DATABASE_URL,
        max: CHUNK_POOL_SIZE,
        idleTimeoutMillis: 10_000,
        connectionTimeoutMillis: 5_000,
        application_name: 'vector-api snapshots',
      });
      // an idle connection that dies (server restart) must not crash the process
      this.pool.on('error', (err) => this.warning.warn(`snapshot chunk pool: ${err.message}`, 'pool'));
    }
    return this.pool;
  }

  async onApplicationShutdown(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end();
  }

  /** The row of a write that has begun (unpublished: no list shows it). */
  async begin(tableId: string, id: string, header: SnapshotHeader): Promise<void> {
    await this.prisma.vectorSnapshot.create({
      data: { id, tableId, seq: header.seq, formatVersion: header.formatVersion, fingerprint: header.fingerprint },
      select: { id: true },
    });
  }

  /** Chunk `n` of an unpublished snapshot; fails when the snapshot's row is gone (pruned, table dropped). */
  async insertChunk(snapshotId: string, n: number, data: Buffer, sha256: string): Promise<void> {
    await this.chunkPool().query('INSERT INTO vector_snapshot_chunks (snapshot_id, n, data, sha256) VALUES ($1, $2, $3, $4)', [
      snapshotId,
      n,
      data,
      sha256,
    ]);
  }

  /** Publishes in one UPDATE; null when the row is gone or already published. */
  async publish(id: string, bytes: number, sha256: string, chunks: number): Promise<SnapshotInfo | null> {
    const rows = await this.prisma.vectorSnapshot.updateManyAndReturn({
      where: { id, publishedAt: null },
      data: { publishedAt: new Date(), bytes: BigInt(bytes), sha256, chunks },
    });
    return rows[0] ? info(rows[0]) : null;
  }

  /** Published snapshots of the table, best first. */
  async listPublished(tableId: string): Promise<SnapshotInfo[]> {
    const rows = await this.prisma.vectorSnapshot.findMany({
      where: { tableId, publishedAt: { not: null } },
      orderBy: [{ seq: 'desc' }, { createdAt: 'desc' }, { id: 'desc' }],
    });
    return rows.map(info);
  }

  /** Chunk `n` with its recorded hash, or null when there is no such chunk. */
  async readChunk(snapshotId: string, n: number): Promise<{ data: Buffer; sha256: string } | null> {
    if (!UUID.test(snapshotId) || !Number.isSafeInteger(n) || n < 0) throw new Error(`bad chunk address ${snapshotId}/${n}`);
    const query = new CopyOutQuery(
      `COPY (SELECT sha256, data FROM vector_snapshot_chunks WHERE snapshot_id = '${snapshotId}' AND n = ${n}) TO STDOUT (FORMAT binary)`,
    );
    const client: PoolClient = await this.chunkPool().connect();
    let rows: Buffer[][];
    try {
      client.query(query);
      rows = await query.done;
    } catch (err) {
      client.release(err as Error);
      throw err;
    }
    client.release();
    const row = rows[0];
    if (!row) return null;
    const [sha256, data] = row as [Buffer, Buffer];
    return { data, sha256: sha256.toString('latin1') };
  }

  /** Deletes these snapshots of the table (their chunks go with them). */
  async deleteSnapshots(tableId: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.prisma.vectorSnapshot.deleteMany({ where: { tableId, id: { in: [...ids] } } });
  }

  /** Deletes one unpublished snapshot (a write that failed cleans up after itself). */
  async deleteUnpublished(tableId: string, id: string): Promise<void> {
    await this.prisma.vectorSnapshot.deleteMany({ where: { tableId, id, publishedAt: null } });
  }

  /** Deletes the table's unpublished snapshots begun at least `staleMs` ago (by the database's clock). */
  async deleteStale(tableId: string, staleMs: number): Promise<number> {
    return this.prisma.$executeRaw`
      DELETE FROM vector_snapshots
      WHERE table_id = ${tableId}::uuid AND published_at IS NULL
        AND created_at <= now() - make_interval(secs => ${staleMs / 1000}::float8)`;
  }

  async deleteTable(tableId: string): Promise<void> {
    await this.prisma.vectorSnapshot.deleteMany({ where: { tableId } });
  }
}
