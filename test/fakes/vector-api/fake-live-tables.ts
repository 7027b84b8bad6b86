import { type CollectionRow, VectorCollection } from '../../../apps/vector-api/src/engine/vector-collection';
import { type LiveTable, type LiveTables, Mutex } from '../../../apps/vector-api/src/tables/live-tables';
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

  onApplicationBootstrap(): Promise<void> {
    return Promise.resolve();
  }

  onApplicationShutdown(): Promise<void> {
    for (const t of this.tables.values()) t.collection.close();
    this.tables.clear();
    return Promise.resolve();
  }

  all(): LiveTable[] {
    return [...this.tables.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  resolve(name: string): Promise<LiveTable | undefined> {
    return Promise.resolve(this.tables.get(name));
  }

  created(head: TableHead): LiveTable {
    const live: LiveTable = {
      id: head.id,
      name: head.name,
      dimension: head.dimension,
      indexKind: head.indexKind,
      createdAt: head.createdAt,
      collection: new VectorCollection(head.dimension, head.indexKind),
      appliedSeq: head.seq,
      mutex: new Mutex(),
      registeredEpoch: 0,
      snapshot: undefined,
      since: 0,
    };
    this.tables.get(head.name)?.collection.close();
    this.tables.set(head.name, live);
    return live;
  }

  dropped(name: string, id?: string): void {
    const live = this.tables.get(name);
    if (!live || (id !== undefined && live.id !== id)) return;
    this.tables.delete(name);
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

  /** Whether this instance holds the table in memory. */
  holds(name: string): boolean {
    return this.tables.has(name);
  }
}
