import { PrismaService, type PrismaTx } from '@app/platform';
import { Injectable } from '@nestjs/common';
import type { Metadata } from '../engine/filter';
import type { IndexKind } from '../engine/types';
import { decodeEmbedding, encodeEmbedding } from './embedding-codec';

export interface TableHead {
  readonly id: string;
  readonly name: string;
  readonly dimension: number;
  readonly indexKind: IndexKind;
  readonly seq: bigint;
  readonly createdAt: Date;
}

export interface StoredRow {
  readonly id: string;
  readonly label: number;
  readonly embedding: Float32Array;
  readonly metadata: Metadata | undefined;
}

export interface NewRow {
  readonly id: string;
  readonly embedding: readonly number[];
  readonly metadata?: Metadata | undefined;
}

export interface Change {
  readonly seq: bigint;
  readonly op: 'insert' | 'delete';
  readonly labels: readonly number[];
}

export type InsertOutcome =
  | { readonly kind: 'inserted'; readonly seq: bigint; readonly labels: readonly number[] }
  | { readonly kind: 'table_missing' }
  | { readonly kind: 'ids_exist'; readonly ids: readonly string[] };

export type DeleteOutcome =
  | { readonly kind: 'deleted'; readonly seq: bigint; readonly rows: ReadonlyArray<{ id: string; label: number }> }
  | { readonly kind: 'none' }
  | { readonly kind: 'table_missing' };

/** Thrown inside a transaction to roll it back with an answer for the caller. */
class Rollback<T> extends Error {
  constructor(readonly outcome: T) {
    super('rollback');
  }
}

async function rollbackAs<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof Rollback) return err.outcome as T;
    throw err;
  }
}

const TX = { timeout: 60_000, maxWait: 10_000 };

/**
 * Changes older than this are pruned (every 256th write of a table). A running instance
 * polls every few hundred milliseconds; one that falls further behind notices the gap in
 * the sequence and reloads the table from its rows.
 */
const CHANGE_RETENTION_MS = 60 * 60 * 1000;

async function pruneChanges(tx: PrismaTx, tableId: string, seq: bigint): Promise<void> {
  if (seq % 256n !== 0n) return;
  await tx.vectorChange.deleteMany({ where: { tableId, createdAt: { lt: new Date(Date.now() - CHANGE_RETENTION_MS) } } });
}

/** The only file of vector-api that talks to the database. */
@Injectable()
export class TablesRepository {
  constructor(private readonly prisma: PrismaService) {}

  private head(row: {
    id: string;
    name: string;
    dimension: number;
    indexKind: IndexKind;
    seq: bigint;
    createdAt: Date;
  }): TableHead {
    return {
      id: row.id,
      name: row.name,
      dimension: row.dimension,
      indexKind: row.indexKind,
      seq: row.seq,
      createdAt: row.createdAt,
    };
  }

  /** null when the name is taken. */
  async createTable(name: string, dimension: number, indexKind: IndexKind): Promise<TableHead | null> {
    const rows = await this.prisma.vectorTable.createManyAndReturn({
      data: [{ name, dimension, indexKind }],
      skipDuplicates: true,
    });
    const row = rows[0];
    return row ? this.head(row) : null;
  }

  async listTables(): Promise<TableHead[]> {
    const rows = await this.prisma.vectorTable.findMany({ orderBy: { name: 'asc' } });
    return rows.map((r) => this.head(r));
  }

  async findTable(name: string): Promise<TableHead | null> {
    const row = await this.prisma.vectorTable.findUnique({ where: { name } });
    return row ? this.head(row) : null;
  }

  /** Deletes the table with its rows and change log; false when it did not exist. */
  async deleteTable(name: string): Promise<boolean> {
    const { count } = await this.prisma.vectorTable.deleteMany({ where: { name } });
    return count > 0;
  }

  /** Rows in label order, after `afterLabel` (keyset pagination for loading). */
  async rowsPage(tableId: string, afterLabel: number, limit: number): Promise<StoredRow[]> {
    const rows = await this.prisma.vectorRow.findMany({
      where: { tableId, label: { gt: afterLabel } },
      orderBy: { label: 'asc' },
      take: limit,
    });
    return rows.map((r) => ({
      id: r.id,
      label: r.label,
      embedding: decodeEmbedding(r.embedding),
      metadata: (r.metadata ?? undefined) as Metadata | undefined,
    }));
  }

  async rowsByLabels(tableId: string, labels: readonly number[]): Promise<StoredRow[]> {
    if (labels.length === 0) return [];
    const rows = await this.prisma.vectorRow.findMany({
      where: { tableId, label: { in: [...labels] } },
      orderBy: { label: 'asc' },
    });
    return rows.map((r) => ({
      id: r.id,
      label: r.label,
      embedding: decodeEmbedding(r.embedding),
      metadata: (r.metadata ?? undefined) as Metadata | undefined,
    }));
  }

  async changesSince(tableId: string, seq: bigint, limit = 1000): Promise<Change[]> {
    const rows = await this.prisma.vectorChange.findMany({
      where: { tableId, seq: { gt: seq } },
      orderBy: { seq: 'asc' },
      take: limit,
    });
    return rows.map((r) => ({ seq: r.seq, op: r.op === 'delete' ? 'delete' : 'insert', labels: r.labels }));
  }

  /**
   * All-or-nothing insert. The table row is locked first (seq and labels are bumped in the
   * same statement), so concurrent writers of one table serialise, see each other's ids,
   * and commit in seq order.
   */
  insertRows(tableId: string, rows: readonly NewRow[]): Promise<InsertOutcome> {
    return rollbackAs(
      this.prisma.$transaction(async (tx): Promise<InsertOutcome> => {
        const locked = await tx.vectorTable.updateManyAndReturn({
          where: { id: tableId },
          data: { seq: { increment: 1 }, nextLabel: { increment: rows.length } },
          select: { seq: true, nextLabel: true },
        });
        const table = locked[0];
        if (!table) throw new Rollback<InsertOutcome>({ kind: 'table_missing' });
        const existing = await tx.vectorRow.findMany({
          where: { tableId, id: { in: rows.map((r) => r.id) } },
          select: { id: true },
        });
        if (existing.length > 0) throw new Rollback<InsertOutcome>({ kind: 'ids_exist', ids: existing.map((r) => r.id) });
        const first = table.nextLabel - rows.length;
        const labels = rows.map((_, i) => first + i);
        await tx.vectorRow.createMany({
          data: rows.map((r, i) => ({
            tableId,
            id: r.id,
            label: labels[i],
            embedding: encodeEmbedding(r.embedding),
            ...(r.metadata === undefined ? {} : { metadata: r.metadata }),
          })),
        });
        await tx.vectorChange.create({ data: { tableId, seq: table.seq, op: 'insert', labels } });
        await pruneChanges(tx, tableId, table.seq);
        return { kind: 'inserted', seq: table.seq, labels };
      }, TX),
    );
  }

  /** Deletes the rows with these ids (those that exist), recording one change. */
  deleteRows(tableId: string, ids: readonly string[]): Promise<DeleteOutcome> {
    return rollbackAs(
      this.prisma.$transaction(async (tx): Promise<DeleteOutcome> => {
        const locked = await tx.vectorTable.updateManyAndReturn({
          where: { id: tableId },
          data: { seq: { increment: 1 } },
          select: { seq: true },
        });
        const table = locked[0];
        if (!table) throw new Rollback<DeleteOutcome>({ kind: 'table_missing' });
        const rows = await tx.vectorRow.findMany({ where: { tableId, id: { in: [...ids] } }, select: { id: true, label: true } });
        if (rows.length === 0) throw new Rollback<DeleteOutcome>({ kind: 'none' });
        await tx.vectorRow.deleteMany({ where: { tableId, id: { in: rows.map((r) => r.id) } } });
        await tx.vectorChange.create({ data: { tableId, seq: table.seq, op: 'delete', labels: rows.map((r) => r.label) } });
        await pruneChanges(tx, tableId, table.seq);
        return { kind: 'deleted', seq: table.seq, rows };
      }, TX),
    );
  }
}
