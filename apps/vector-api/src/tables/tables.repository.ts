import { PrismaService, type Tx, type Db } from '@app/platform';
import { Injectable } from '@nestjs/common';
import type { Metadata } from '../engine/filter';
import type { IndexKind, Metric } from '../engine/types';
import { decodeEmbedding, encodeEmbedding } from './embedding-codec';
import { compactOf } from './row-rules';

export interface TableHead {
  readonly id: string;
  /** The project (tenant) that owns the table; names are unique within a project. */
  readonly projectId: string;
  readonly name: string;
  readonly dimension: number;
  readonly indexKind: IndexKind;
  readonly metric: Metric;
  readonly seq: bigint;
  readonly createdAt: Date;
}

export interface StoredRow {
  readonly id: string;
  readonly label: number;
  readonly embedding: Float32Array;
  readonly metadata: Metadata | undefined;
}

export interface NewTable {
  readonly projectId: string;
  readonly name: string;
  readonly dimension: number;
  readonly indexKind: IndexKind;
  readonly metric: Metric;
}

export interface NewRow {
  readonly id: string;
  /** Finite float32 values (a parsed batch's rows are views of one Float32Array). */
  readonly embedding: ArrayLike<number>;
  readonly metadata?: Metadata | undefined;
}

/** A write's place in the table's change log: its seq and the labels its new rows get. */
export interface NextChange {
  readonly seq: bigint;
  readonly labels: number[];
}

export interface RowLabel {
  readonly id: string;
  readonly label: number;
}

export interface Change {
  readonly seq: bigint;
  readonly op: 'insert' | 'delete';
  readonly labels: readonly number[];
}

/**
 * Changes older than this are pruned (every 256th write of a table). A running instance
 * polls every few hundred milliseconds; one that falls further behind notices the gap in
 * the sequence and reloads the table from its rows.
 */
const CHANGE_RETENTION_MS = 60 * 60 * 1000;

/** The only file of vector-api that talks to the database. */
@Injectable()
export class TablesRepository {
  constructor(private readonly prisma: PrismaService) {}

  private head(row: {
    id: string;
    projectId: string;
    name: string;
    dimension: number;
    indexKind: IndexKind;
    metric: Metric;
    seq: bigint;
    createdAt: Date;
  }): TableHead {
    return {
      id: row.id,
      projectId: row.projectId,
      name: row.name,
      dimension: row.dimension,
      indexKind: row.indexKind,
      metric: row.metric,
      seq: row.seq,
      createdAt: row.createdAt,
    };
  }

  /** null when the project already has a table of this name. */
  async createTable(tx: Tx, table: NewTable): Promise<TableHead | null> {
    const rows = await tx.vectorTable.createManyAndReturn({ data: [table], skipDuplicates: true });
    const row = rows[0];
    return row ? this.head(row) : null;
  }

  /**
   * Locks the project's row until commit, so the project's table creates serialise and a
   * count taken after it stays true until the create commits. false: no such project.
   */
  async lockProject(tx: Tx, projectId: string): Promise<boolean> {
    const rows = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM vector_projects WHERE id = ${projectId} FOR UPDATE`;
    return rows.length > 0;
  }

  /** How many tables the project has (under lockProject: exact until commit). */
  countTables(tx: Tx, projectId: string): Promise<number> {
    return tx.vectorTable.count({ where: { projectId } });
  }

  /**
   * Adds `floats` to the project's stored floats in one conditional UPDATE, unless that would
   * pass `max`: then nothing changes and `ok` is false. The row stays locked until commit, so
   * concurrent writers of one project cannot overshoot between them. `stored`: the project's
   * floats before this write (as the statement saw them; for the 409's message).
   */
  async reserveFloats(tx: Tx, projectId: string, floats: number, max: number): Promise<{ ok: boolean; stored: number }> {
    const n = BigInt(floats);
    const [row] = await tx.$queryRaw<Array<{ after: bigint | null; before: bigint | null }>>`
      WITH before AS (SELECT stored_floats FROM vector_projects WHERE id = ${projectId}),
           after AS (
             UPDATE vector_projects SET stored_floats = stored_floats + ${n}
             WHERE id = ${projectId} AND stored_floats + ${n} <= ${BigInt(max)}
             RETURNING stored_floats)
      SELECT (SELECT stored_floats FROM after) AS after, (SELECT stored_floats FROM before) AS before`;
    const after = row?.after ?? null;
    return after === null ? { ok: false, stored: Number(row?.before ?? 0n) } : { ok: true, stored: Number(after - n) };
  }

  /** Gives back the floats of deleted rows (never below zero). */
  async releaseFloats(tx: Tx, projectId: string, floats: number): Promise<void> {
    if (floats === 0) return;
    await tx.$executeRaw`
      UPDATE vector_projects SET stored_floats = GREATEST(stored_floats - ${BigInt(floats)}, 0) WHERE id = ${projectId}`;
  }

  /** Every table of every project (the sync loop), or of one project; by name. */
  async listTables(projectId?: string): Promise<TableHead[]> {
    const rows = await this.prisma.vectorTable.findMany({
      where: projectId === undefined ? {} : { projectId },
      orderBy: [{ name: 'asc' }, { projectId: 'asc' }],
    });
    return rows.map((r) => this.head(r));
  }

  /** A page of the project's tables by name in byte order, after `after` (keyset on the unique (project, name)). */
  async tablesPage(projectId: string, after: string | undefined, limit: number): Promise<TableHead[]> {
    const ids = await this.prisma.$queryRaw<Array<{ id: string }>>`
      SELECT id::text AS id FROM vector_tables
      WHERE project_id = ${projectId} AND (${after ?? null}::text IS NULL OR name COLLATE "C" > ${after ?? ''}::text COLLATE "C")
      ORDER BY name COLLATE "C"
      LIMIT ${limit}`;
    if (ids.length === 0) return [];
    const rows = await this.prisma.vectorTable.findMany({ where: { id: { in: ids.map((r) => r.id) } } });
    const byId = new Map(rows.map((r) => [r.id, this.head(r)]));
    return ids.flatMap((r) => byId.get(r.id) ?? []);
  }

  async findTable(projectId: string, name: string): Promise<TableHead | null> {
    const row = await this.prisma.vectorTable.findUnique({ where: { projectId_name: { projectId, name } } });
    return row ? this.head(row) : null;
  }

  /** The table's change seq as committed now (null: the table is gone). */
  async currentSeq(tableId: string): Promise<bigint | null> {
    const row = await this.prisma.vectorTable.findUnique({ where: { id: tableId }, select: { seq: true } });
    return row ? row.seq : null;
  }

  /**
   * Deletes the project's table with its rows and change log, and gives back their floats to
   * the project; its id, or null when it did not exist. The table's row is locked first, as
   * every write of its rows does (nextChange), so the rows counted are the rows deleted.
   */
  async deleteTable(tx: Tx, projectId: string, name: string): Promise<string | null> {
    const [table] = await tx.$queryRaw<Array<{ id: string; dimension: number }>>`
      SELECT id::text AS id, dimension FROM vector_tables WHERE project_id = ${projectId} AND name = ${name} FOR UPDATE`;
    if (!table) return null;
    const rows = await tx.vectorRow.count({ where: { tableId: table.id } });
    await tx.$executeRaw`DELETE FROM vector_tables WHERE id = ${table.id}::uuid`;
    await this.releaseFloats(tx, projectId, rows * table.dimension);
    return table.id;
  }

  /**
   * The number of rows of each of these tables (absent: none), counted in PostgreSQL: for the
   * tables this instance does not hold in memory (VECTOR_PARTITION). A count reads the
   * table's entries of the primary key index, so its time grows with the table's rows; only
   * `GET /v1/tables` on a partitioned instance asks for it.
   */
  async rowCounts(tableIds: readonly string[]): Promise<Map<string, number>> {
    if (tableIds.length === 0) return new Map();
    const groups = await this.prisma.vectorRow.groupBy({
      by: ['tableId'],
      where: { tableId: { in: [...tableIds] } },
      _count: { _all: true },
    });
    return new Map(groups.map((g) => [g.tableId, g._count._all]));
  }

  /** Rows in label order, after `afterLabel` (keyset pagination for loading). */
  async rowsPage(tableId: string, afterLabel: number, limit: number): Promise<StoredRow[]> {
    const rows = await this.prisma.vectorRow.findMany({
      where: { tableId, label: { gt: afterLabel } },
      orderBy: { label: 'asc' },
      take: limit,
    });
    return rows.map((r) => storedRow(r));
  }

  /**
   * The pool, for the reads below when they run outside a write (a write passes its `tx`,
   * which holds the table's lock): each is one statement, so either is right.
   */
  get pool(): Db {
    return this.prisma;
  }

  async rowsByLabels(db: Db, tableId: string, labels: readonly number[]): Promise<StoredRow[]> {
    if (labels.length === 0) return [];
    const rows = await db.vectorRow.findMany({
      where: { tableId, label: { in: [...labels] } },
      orderBy: { label: 'asc' },
    });
    return rows.map((r) => storedRow(r));
  }

  async changesSince(db: Db, tableId: string, seq: bigint, limit: number): Promise<Change[]> {
    const rows = await db.vectorChange.findMany({
      where: { tableId, seq: { gt: seq } },
      orderBy: { seq: 'asc' },
      take: limit,
    });
    return rows.map((r) => ({ seq: r.seq, op: r.op === 'delete' ? 'delete' : 'insert', labels: r.labels }));
  }

  /**
   * The first statement of every write to a table's rows: takes the table's next change seq
   * in one update, which locks the table's row until commit. So concurrent writers of one
   * table serialise, see each other's ids, and commit in seq order. Then `newLabels` labels
   * for the new rows: labels freed by deletes first (smallest first), fresh ones after.
   * null when the table is gone.
   */
  async nextChange(tx: Tx, tableId: string, newLabels: number): Promise<NextChange | null> {
    const locked = await tx.vectorTable.updateManyAndReturn({
      where: { id: tableId },
      data: { seq: { increment: 1 } },
      select: { seq: true },
    });
    const table = locked[0];
    if (!table) return null;
    return { seq: table.seq, labels: await this.takeLabels(tx, tableId, newLabels) };
  }

  /**
   * `newLabels` labels for new rows, after nextChange locked the table: labels freed by
   * deletes first (smallest first), fresh ones after.
   */
  async takeLabels(tx: Tx, tableId: string, newLabels: number): Promise<number[]> {
    if (newLabels === 0) return [];
    const reused = await tx.$queryRaw<Array<{ label: number }>>`
      DELETE FROM vector_free_labels
      WHERE table_id = ${tableId}::uuid
        AND label IN (SELECT label FROM vector_free_labels WHERE table_id = ${tableId}::uuid ORDER BY label LIMIT ${newLabels})
      RETURNING label`;
    const labels = reused.map((r) => r.label).sort((a, b) => a - b);
    const fresh = newLabels - labels.length;
    if (fresh > 0) {
      const grown = await tx.vectorTable.update({
        where: { id: tableId },
        data: { nextLabel: { increment: fresh } },
        select: { nextLabel: true },
      });
      for (let l = grown.nextLabel - fresh; l < grown.nextLabel; l++) labels.push(l);
    }
    return labels;
  }

  /** Labels of deleted rows, for later inserts of the table (in the delete's transaction). */
  async freeLabels(tx: Tx, tableId: string, labels: readonly number[]): Promise<void> {
    if (labels.length === 0) return;
    await tx.vectorFreeLabel.createMany({ data: labels.map((label) => ({ tableId, label })), skipDuplicates: true });
  }

  /** Which of these ids the table already has. */
  async existingIds(tx: Tx, tableId: string, ids: readonly string[]): Promise<string[]> {
    const rows = await tx.vectorRow.findMany({ where: { tableId, id: { in: [...ids] } }, select: { id: true } });
    return rows.map((r) => r.id);
  }

  /** The rows with these ids that exist, with their labels. */
  rowLabels(tx: Tx, tableId: string, ids: readonly string[]): Promise<RowLabel[]> {
    return tx.vectorRow.findMany({ where: { tableId, id: { in: [...ids] } }, select: { id: true, label: true } });
  }

  /**
   * Stores rows under the labels taken by nextChange (row i gets labels[i]), in one statement
   * over arrays with every row's metadata as one JSON array (issue 31): Prisma's createMany
   * walked every value of every row's metadata on the event loop to build its query (≈ 10 s
   * for 500 rows of 2,400 tags each, measured), where PostgreSQL parses the jsonb; node-postgres
   * escapes a text[] element by element in JavaScript, so the metadata is one JSON array, not
   * a text[]. Rows checked from a parsed body (compactOf, issue 32) go as the parse thread
   * made them: every embedding in one base64 text (float32 little-endian, decoded once and cut
   * per row by PostgreSQL) and the metadata's JSON text, so the event loop neither encodes
   * floats nor stringifies metadata. Both are text, not bytes: Prisma turns a bytes parameter
   * into base64 and back on the event loop (≈ 1.7 s for a 40 MB insert, profiled).
   */
  async createRows(tx: Tx, tableId: string, rows: readonly NewRow[], labels: readonly number[]): Promise<void> {
    if (rows.length === 0) return;
    const ids = rows.map((r) => r.id);
    const compact = compactOf(rows);
    if (compact) {
      const rowBytes = compact.dimension * 4;
      await tx.$executeRaw`
        WITH v AS (SELECT decode(${compact.vectorsBase64}, 'base64') AS bytes)
        INSERT INTO vector_rows (table_id, id, label, embedding, metadata)
        SELECT ${tableId}::uuid, t.id, t.label, substring(v.bytes FROM ((t.ord - 1) * ${rowBytes} + 1)::int FOR ${rowBytes}::int), NULLIF(m.value, 'null'::jsonb)
        FROM v, unnest(${ids}::text[], ${[...labels]}::int[]) WITH ORDINALITY AS t(id, label, ord)
        JOIN jsonb_array_elements(${compact.metadataJson}::jsonb) WITH ORDINALITY AS m(value, ord) ON m.ord = t.ord`;
      return;
    }
    const embeddings = rows.map((r) => Buffer.from(encodeEmbedding(Array.from(r.embedding))).toString('base64'));
    const metadata = JSON.stringify(rows.map((r) => r.metadata ?? null));
    await tx.$executeRaw`
      INSERT INTO vector_rows (table_id, id, label, embedding, metadata)
      SELECT ${tableId}::uuid, t.id, t.label, decode(t.embedding, 'base64'), NULLIF(m.value, 'null'::jsonb)
      FROM unnest(${ids}::text[], ${[...labels]}::int[], ${embeddings}::text[]) WITH ORDINALITY AS t(id, label, embedding, ord)
      JOIN jsonb_array_elements(${metadata}::jsonb) WITH ORDINALITY AS m(value, ord) ON m.ord = t.ord`;
  }

  /** Rows by id as committed, with their embeddings as stored (fetch, `include_values`). */
  async rowsByIds(tableId: string, ids: readonly string[]): Promise<StoredRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.prisma.vectorRow.findMany({ where: { tableId, id: { in: [...ids] } } });
    return rows.map((r) => storedRow(r));
  }

  /** The rows with these ids as they are inside the transaction (an update reads what it overwrites). */
  async rowsForUpdate(tx: Tx, tableId: string, ids: readonly string[]): Promise<StoredRow[]> {
    const rows = await tx.vectorRow.findMany({ where: { tableId, id: { in: [...ids] } } });
    return rows.map((r) => storedRow(r));
  }

  /**
   * One page of ids in byte order (the column is COLLATE "C"), after `after`, starting with
   * `prefix`: keyset pagination on the primary key, so a page never repeats or skips an id
   * that exists throughout the listing, whatever is written meanwhile.
   */
  async idsPage(tableId: string, after: string | undefined, prefix: string | undefined, limit: number): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM vector_rows
      WHERE table_id = ${tableId}::uuid
        AND (${after ?? null}::text IS NULL OR id > ${after ?? ''}::text)
        AND (${prefix ?? null}::text IS NULL OR (id >= ${prefix ?? ''}::text AND starts_with(id, ${prefix ?? ''}::text)))
      ORDER BY id
      LIMIT ${limit}`;
    return rows.map((r) => r.id);
  }

  /** Up to `limit` ids from `from` (inclusive) in byte order: a page of the Qdrant API's scroll without a filter. */
  async idsFrom(tableId: string, from: string | undefined, limit: number): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM vector_rows
      WHERE table_id = ${tableId}::uuid AND (${from ?? null}::text IS NULL OR id >= ${from ?? ''}::text)
      ORDER BY id
      LIMIT ${limit}`;
    return rows.map((r) => r.id);
  }

  /** Deletes the rows at these labels; the rows it deleted (a delete by filter reports them). */
  async deleteRowsByLabels(tx: Tx, tableId: string, labels: readonly number[]): Promise<RowLabel[]> {
    if (labels.length === 0) return [];
    return tx.$queryRaw<RowLabel[]>`
      DELETE FROM vector_rows WHERE table_id = ${tableId}::uuid AND label = ANY(${[...labels]}::int[])
      RETURNING id, label`;
  }

  async deleteRows(tx: Tx, tableId: string, ids: readonly string[]): Promise<void> {
    await tx.vectorRow.deleteMany({ where: { tableId, id: { in: [...ids] } } });
  }

  /**
   * Records the change of seq (taken by nextChange) in the log the other instances poll;
   * every 256th change also prunes the log's old entries.
   */
  async recordChange(tx: Tx, tableId: string, seq: bigint, op: Change['op'], labels: readonly number[]): Promise<void> {
    await tx.vectorChange.create({ data: { tableId, seq, op, labels: [...labels] } });
    if (seq % 256n !== 0n) return;
    await tx.vectorChange.deleteMany({ where: { tableId, createdAt: { lt: new Date(Date.now() - CHANGE_RETENTION_MS) } } });
  }
}

function storedRow(r: { id: string; label: number; embedding: Uint8Array; metadata: unknown }): StoredRow {
  return {
    id: r.id,
    label: r.label,
    embedding: decodeEmbedding(r.embedding),
    metadata: (r.metadata ?? undefined) as Metadata | undefined,
  };
}
