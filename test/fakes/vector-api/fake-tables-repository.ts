import type { Db, Tx } from '@app/platform';
import type { Metadata } from '../../../apps/vector-api/src/engine/filter';
import type { IndexKind, Metric } from '../../../apps/vector-api/src/engine/types';
import type {
  Change,
  NewRow,
  NewTable,
  NextChange,
  RowLabel,
  StoredRow,
  TableHead,
  TablesRepository,
} from '../../../apps/vector-api/src/tables/tables.repository';
import { opaque, type Surface } from '../typed-fake';
import type { Snapshottable } from '../fake-transaction-runner';

interface TableRecord {
  readonly id: string;
  readonly projectId: string;
  readonly name: string;
  readonly dimension: number;
  readonly indexKind: IndexKind;
  readonly metric: Metric;
  seq: bigint;
  nextLabel: number;
  /** Labels of deleted rows, handed out again (smallest first). */
  free: number[];
  readonly createdAt: Date;
}

interface RowRecord {
  readonly id: string;
  readonly label: number;
  readonly embedding: Float32Array;
  readonly metadata: Metadata | undefined;
}

interface State {
  /** By table id. */
  tables: Map<string, TableRecord>;
  /** Table id → row id → row. */
  rows: Map<string, Map<string, RowRecord>>;
  /** Table id → its change log, in seq order. */
  changes: Map<string, Change[]>;
  /** Project id → its stored floats (rows × dimension). */
  floats: Map<string, number>;
}

/**
 * TablesRepository in memory, with the database's rules that the service relies on: unique
 * table names, unique ids per table (a violation throws, as the primary key would), seq and
 * labels taken by nextChange, rows and log deleted with their table. Writes must carry the
 * open transaction of `transactions` (set it before use); a rollback restores the state.
 */
export class FakeTablesRepository implements Surface<TablesRepository>, Snapshottable {
  private state: State = { tables: new Map(), rows: new Map(), changes: new Map(), floats: new Map() };
  private ids = 0;
  /** Checks that a write carries the open transaction; wired to the fake runner in tests. */
  assertOpen: (tx: Tx) => void = () => {
    throw new Error('FakeTablesRepository: no transaction runner attached');
  };

  constructor(private readonly now: () => Date = () => new Date('2026-01-02T03:04:05.000Z')) {}

  snapshot(): () => void {
    const copy = structuredClone(this.state);
    return () => {
      this.state = copy;
    };
  }

  /** The project's table of this name (any project's when `projectId` is not given: test helpers). */
  private byName(name: string, projectId?: string): TableRecord | undefined {
    return [...this.state.tables.values()].find((t) => t.name === name && (projectId === undefined || t.projectId === projectId));
  }

  private rowsOf(tableId: string): Map<string, RowRecord> {
    let rows = this.state.rows.get(tableId);
    if (!rows) this.state.rows.set(tableId, (rows = new Map<string, RowRecord>()));
    return rows;
  }

  private static head(t: TableRecord): TableHead {
    return {
      id: t.id,
      projectId: t.projectId,
      name: t.name,
      dimension: t.dimension,
      indexKind: t.indexKind,
      metric: t.metric,
      seq: t.seq,
      createdAt: t.createdAt,
    };
  }

  private static stored(r: RowRecord): StoredRow {
    return { id: r.id, label: r.label, embedding: Float32Array.from(r.embedding), metadata: r.metadata };
  }

  createTable(tx: Tx, spec: NewTable): Promise<TableHead | null> {
    this.assertOpen(tx);
    if (this.byName(spec.name, spec.projectId)) return Promise.resolve(null);
    const table: TableRecord = {
      id: `table-${++this.ids}`,
      ...spec,
      seq: 0n,
      nextLabel: 0,
      free: [],
      createdAt: this.now(),
    };
    this.state.tables.set(table.id, table);
    return Promise.resolve(FakeTablesRepository.head(table));
  }

  lockProject(tx: Tx, projectId: string): Promise<boolean> {
    this.assertOpen(tx);
    return Promise.resolve(projectId.length > 0);
  }

  countTables(tx: Tx, projectId: string): Promise<number> {
    this.assertOpen(tx);
    return Promise.resolve([...this.state.tables.values()].filter((t) => t.projectId === projectId).length);
  }

  reserveFloats(tx: Tx, projectId: string, floats: number, max: number): Promise<{ ok: boolean; stored: number }> {
    this.assertOpen(tx);
    const stored = this.state.floats.get(projectId) ?? 0;
    if (stored + floats > max) return Promise.resolve({ ok: false, stored });
    this.state.floats.set(projectId, stored + floats);
    return Promise.resolve({ ok: true, stored });
  }

  releaseFloats(tx: Tx, projectId: string, floats: number): Promise<void> {
    this.assertOpen(tx);
    this.state.floats.set(projectId, Math.max(0, (this.state.floats.get(projectId) ?? 0) - floats));
    return Promise.resolve();
  }

  /** The project's stored floats (test helper). */
  floatsOf(projectId: string): number {
    return this.state.floats.get(projectId) ?? 0;
  }

  listTables(projectId?: string): Promise<TableHead[]> {
    const heads = [...this.state.tables.values()]
      .filter((t) => projectId === undefined || t.projectId === projectId)
      .map((t) => FakeTablesRepository.head(t));
    return Promise.resolve(heads.sort((a, b) => (a.name < b.name ? -1 : 1)));
  }

  async tablesPage(projectId: string, after: string | undefined, limit: number): Promise<TableHead[]> {
    const heads = await this.listTables(projectId);
    return heads.filter((h) => after === undefined || h.name > after).slice(0, limit);
  }

  findTable(projectId: string, name: string): Promise<TableHead | null> {
    const t = this.byName(name, projectId);
    return Promise.resolve(t ? FakeTablesRepository.head(t) : null);
  }

  currentSeq(tableId: string): Promise<bigint | null> {
    return Promise.resolve(this.state.tables.get(tableId)?.seq ?? null);
  }

  deleteTable(tx: Tx, projectId: string, name: string): Promise<string | null> {
    this.assertOpen(tx);
    return Promise.resolve(this.remove(name, projectId));
  }

  private remove(name: string, projectId?: string): string | null {
    const t = this.byName(name, projectId);
    if (!t) return null;
    const rows = this.state.rows.get(t.id)?.size ?? 0;
    const floats = this.state.floats.get(t.projectId) ?? 0;
    this.state.floats.set(t.projectId, Math.max(0, floats - rows * t.dimension));
    this.state.tables.delete(t.id);
    this.state.rows.delete(t.id);
    this.state.changes.delete(t.id);
    return t.id;
  }

  rowCounts(tableIds: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const id of tableIds) {
      const size = this.state.rows.get(id)?.size ?? 0;
      if (size > 0) counts.set(id, size);
    }
    return Promise.resolve(counts);
  }

  rowsPage(tableId: string, afterLabel: number, limit: number): Promise<StoredRow[]> {
    const rows = [...this.rowsOf(tableId).values()].filter((r) => r.label > afterLabel).sort((a, b) => a.label - b.label);
    return Promise.resolve(rows.slice(0, limit).map((r) => FakeTablesRepository.stored(r)));
  }

  /** The fake's pool handle: reads take it or an open transaction. */
  readonly pool = opaque<Db>('fake pool');

  rowsByLabels(_db: Db, tableId: string, labels: readonly number[]): Promise<StoredRow[]> {
    const wanted = new Set(labels);
    const rows = [...this.rowsOf(tableId).values()].filter((r) => wanted.has(r.label)).sort((a, b) => a.label - b.label);
    return Promise.resolve(rows.map((r) => FakeTablesRepository.stored(r)));
  }

  changesSince(_db: Db, tableId: string, seq: bigint, limit: number): Promise<Change[]> {
    return Promise.resolve((this.state.changes.get(tableId) ?? []).filter((c) => c.seq > seq).slice(0, limit));
  }

  async nextChange(tx: Tx, tableId: string, newLabels: number): Promise<NextChange | null> {
    this.assertOpen(tx);
    const t = this.state.tables.get(tableId);
    if (!t) return null;
    t.seq += 1n;
    return { seq: t.seq, labels: await this.takeLabels(tx, tableId, newLabels) };
  }

  takeLabels(tx: Tx, tableId: string, newLabels: number): Promise<number[]> {
    this.assertOpen(tx);
    const t = this.state.tables.get(tableId);
    if (!t) throw new Error(`foreign key: no table ${tableId}`);
    t.free.sort((a, b) => a - b);
    const labels = t.free.splice(0, newLabels);
    while (labels.length < newLabels) labels.push(t.nextLabel++);
    return Promise.resolve(labels);
  }

  rowsByIds(tableId: string, ids: readonly string[]): Promise<StoredRow[]> {
    const rows = this.rowsOf(tableId);
    return Promise.resolve(ids.flatMap((id) => rows.get(id) ?? []).map((r) => FakeTablesRepository.stored(r)));
  }

  rowsForUpdate(tx: Tx, tableId: string, ids: readonly string[]): Promise<StoredRow[]> {
    this.assertOpen(tx);
    return this.rowsByIds(tableId, ids);
  }

  idsPage(tableId: string, after: string | undefined, prefix: string | undefined, limit: number): Promise<string[]> {
    const ids = [...this.rowsOf(tableId).keys()]
      .filter((id) => (after === undefined || id > after) && (prefix === undefined || id.startsWith(prefix)))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return Promise.resolve(ids.slice(0, limit));
  }

  idsFrom(tableId: string, from: string | undefined, limit: number): Promise<string[]> {
    const ids = [...this.rowsOf(tableId).keys()]
      .filter((id) => from === undefined || id >= from)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return Promise.resolve(ids.slice(0, limit));
  }

  deleteRowsByLabels(tx: Tx, tableId: string, labels: readonly number[]): Promise<RowLabel[]> {
    this.assertOpen(tx);
    const wanted = new Set(labels);
    const rows = this.rowsOf(tableId);
    const deleted = [...rows.values()].filter((r) => wanted.has(r.label)).map((r) => ({ id: r.id, label: r.label }));
    for (const r of deleted) rows.delete(r.id);
    return Promise.resolve(deleted);
  }

  freeLabels(tx: Tx, tableId: string, labels: readonly number[]): Promise<void> {
    this.assertOpen(tx);
    const t = this.state.tables.get(tableId);
    if (t) for (const l of labels) if (!t.free.includes(l)) t.free.push(l);
    return Promise.resolve();
  }

  existingIds(tx: Tx, tableId: string, ids: readonly string[]): Promise<string[]> {
    this.assertOpen(tx);
    const rows = this.rowsOf(tableId);
    return Promise.resolve(ids.filter((id) => rows.has(id)));
  }

  rowLabels(tx: Tx, tableId: string, ids: readonly string[]): Promise<RowLabel[]> {
    this.assertOpen(tx);
    const rows = this.rowsOf(tableId);
    return Promise.resolve(ids.flatMap((id) => rows.get(id) ?? []).map((r) => ({ id: r.id, label: r.label })));
  }

  createRows(tx: Tx, tableId: string, rows: readonly NewRow[], labels: readonly number[]): Promise<void> {
    this.assertOpen(tx);
    if (!this.state.tables.has(tableId)) throw new Error(`foreign key: no table ${tableId}`);
    const stored = this.rowsOf(tableId);
    rows.forEach((r, i) => {
      const label = labels[i];
      if (label === undefined) throw new Error(`no label for row ${i}`);
      if (stored.has(r.id)) throw new Error(`unique violation: id '${r.id}' exists in table ${tableId}`);
      stored.set(r.id, { id: r.id, label, embedding: Float32Array.from(r.embedding), metadata: r.metadata });
    });
    return Promise.resolve();
  }

  deleteRows(tx: Tx, tableId: string, ids: readonly string[]): Promise<void> {
    this.assertOpen(tx);
    const rows = this.rowsOf(tableId);
    for (const id of ids) rows.delete(id);
    return Promise.resolve();
  }

  recordChange(tx: Tx, tableId: string, seq: bigint, op: Change['op'], labels: readonly number[]): Promise<void> {
    this.assertOpen(tx);
    const log = this.state.changes.get(tableId) ?? [];
    if (log.some((c) => c.seq === seq)) throw new Error(`unique violation: change ${seq} exists`);
    log.push({ seq, op, labels: [...labels] });
    this.state.changes.set(tableId, log);
    return Promise.resolve();
  }

  // What tests look at and do behind the service's back.

  /** The table as stored (seq, next label), or undefined. */
  table(name: string): Readonly<TableRecord> | undefined {
    return this.byName(name);
  }

  /** Ids of the stored rows of a table, sorted. */
  rowIds(name: string): string[] {
    const t = this.byName(name);
    return t ? [...this.rowsOf(t.id).keys()].sort() : [];
  }

  /** The change log of a table. */
  changeLog(name: string): readonly Change[] {
    const t = this.byName(name);
    return t ? (this.state.changes.get(t.id) ?? []) : [];
  }

  /** Another instance deletes the table (this one still holds it in memory). */
  dropElsewhere(name: string): void {
    if (!this.remove(name)) throw new Error(`no table '${name}'`);
  }
}
