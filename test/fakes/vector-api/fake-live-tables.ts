import { type CollectionRow, VectorCollection } from '../../../apps/vector-api/src/engine/vector-collection';
import {
  type LiveTable,
  type LiveTables,
  type LoadProgress,
  Mutex,
  tableKey,
} from '../../../apps/vector-api/src/tables/live-tables';
import type { TableHead } from '../../../apps/vector-api/src/tables/tables.repository';
import type { Surface } from '../typed-fake';

export type AppliedChange =
  | { readonly op: 'insert'; readonly table: string; readonly seq: bigint; readonly rows: readonly CollectionRow[] }
  | { readonly op: 'delete'; readonly table: string; readonly seq: bigint; readonly labels: readonly number[] };

/**
 * LiveTables without PostgreSQL or a sync loop: the tables this instance created, each
 * with a real in-memory VectorCollection (the engine is pure and fast at test sizes).
 * Records every change applied after a commit, so tests can check what reached memory.
 */
export class FakeLiveTables implements Surface<LiveTables> {
  private readonly tables = new Map<string, LiveTable>();
  readonly applied: AppliedChange[] = [];

  onApplicationBootstrap(): void {}

  /** Every table is held from the start (nothing to load). */
  readonly field = 'loading';
  readonly loaded = true;

  readiness(): { ready: boolean; message: string; progress: Record<string, number> } {
    return { ready: true, message: '', progress: {} };
  }

  progress(): LoadProgress {
    const rows = [...this.tables.values()].reduce((sum, t) => sum + t.collection.size, 0);
    const n = this.tables.size;
    return { tables_loaded: n, tables_total: n, tables_loading: 0, rows_loaded: rows, load_failures: 0, elapsed_ms: 0 };
  }

  waiting(): boolean {
    return false;
  }

  isPending(): boolean {
    return false;
  }

  touch(): void {}

  beforeApplicationShutdown(): Promise<void> {
    return Promise.resolve();
  }

  onApplicationShutdown(): Promise<void> {
    for (const t of this.tables.values()) t.collection.close();
    this.tables.clear();
    return Promise.resolve();
  }

  all(projectId?: string): LiveTable[] {
    return [...this.tables.values()]
      .filter((t) => projectId === undefined || t.projectId === projectId)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  resolve(projectId: string, name: string): Promise<LiveTable | undefined> {
    return Promise.resolve(this.tables.get(tableKey(projectId, name)));
  }

  /** Memory here is always current (one instance, every change applied at commit). */
  catchUpNow(table: LiveTable): Promise<LiveTable | undefined> {
    const live = this.tables.get(tableKey(table.projectId, table.name));
    return Promise.resolve(live?.id === table.id ? live : undefined);
  }

  catchUpLocked(table: LiveTable): Promise<LiveTable | undefined> {
    return this.catchUpNow(table);
  }

  created(head: TableHead): LiveTable {
    const live: LiveTable = {
      id: head.id,
      projectId: head.projectId,
      name: head.name,
      dimension: head.dimension,
      indexKind: head.indexKind,
      metric: head.metric,
      createdAt: head.createdAt,
      collection: new VectorCollection(head.dimension, head.indexKind, { metric: head.metric }),
      appliedSeq: head.seq,
      mutex: new Mutex(),
      registeredEpoch: 0,
      snapshot: undefined,
      since: 0,
    };
    const key = tableKey(head.projectId, head.name);
    this.tables.get(key)?.collection.close();
    this.tables.set(key, live);
    return live;
  }

  dropped(projectId: string, name: string, id?: string): void {
    const key = tableKey(projectId, name);
    const live = this.tables.get(key);
    if (!live || (id !== undefined && live.id !== id)) return;
    this.tables.delete(key);
    live.collection.close();
  }

  applyInsert(table: LiveTable, seq: bigint, rows: readonly CollectionRow[]): Promise<void> {
    this.applied.push({ op: 'insert', table: table.name, seq, rows });
    table.collection.insert(rows, Number(seq));
    table.appliedSeq = seq;
    return Promise.resolve();
  }

  applyDelete(table: LiveTable, seq: bigint, labels: readonly number[]): Promise<void> {
    this.applied.push({ op: 'delete', table: table.name, seq, labels });
    table.collection.deleteLabels(labels, Number(seq));
    table.appliedSeq = seq;
    return Promise.resolve();
  }

  /** Whether this instance holds a table of this name (of any project) in memory. */
  holds(name: string): boolean {
    return [...this.tables.values()].some((t) => t.name === name);
  }
}
