import type { PrismaTx } from '@app/platform';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { VectorConfig } from '../config';
import type { IndexKind, Metric } from '../engine/types';
import { type CollectionRow, VectorCollection } from '../engine/vector-collection';
import { type SnapshotMark, TableSnapshots } from './table-snapshots';
import { ownsTable } from './partition';
import { type StoredRow, type TableHead, TablesRepository } from './tables.repository';

/** The change log no longer reaches back to what this instance holds of a table (pruned): reload it. */
export class ChangeLogGap extends Error {
  constructor(table: string) {
    super(`the change log of table '${table}' has a gap; reload it`);
    this.name = 'ChangeLogGap';
  }
}

/** Runs async work on one table one at a time (applying changes in order). */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** A table as this instance holds it in memory. */
export interface LiveTable {
  readonly id: string;
  readonly projectId: string;
  readonly name: string;
  readonly dimension: number;
  readonly indexKind: IndexKind;
  readonly metric: Metric;
  readonly createdAt: Date;
  readonly collection: VectorCollection;
  /** Every change up to this seq is applied here (later ones may be too: replay is idempotent). */
  appliedSeq: bigint;
  readonly mutex: Mutex;
  readonly registeredEpoch: number;
  /** The snapshot this memory was loaded from or last wrote (details of index_status). */
  snapshot: SnapshotMark | undefined;
  /** performance.now() when this memory of the table was registered. */
  readonly since: number;
}

const LOAD_PAGE = 2000;

/** Tables are held by project and name (two projects may each have a table `articles`). */
export function tableKey(projectId: string, name: string): string {
  return `${projectId}/${name}`;
}

const keyOf = (t: { readonly projectId: string; readonly name: string }): string => tableKey(t.projectId, t.name);

function toCollectionRows(rows: readonly StoredRow[]): CollectionRow[] {
  return rows.map((r) => ({ id: r.id, label: r.label, embedding: r.embedding, metadata: r.metadata }));
}

/**
 * The tables of this instance, in memory, kept equal to PostgreSQL: loaded at start,
 * updated after each local commit, and every VECTOR_SYNC_INTERVAL_MS brought up to date
 * with the other instances' committed changes (the per-table `seq` and its change log).
 * Applying a change is idempotent per label, so a change applied locally and replayed by
 * the poller is harmless.
 */
@Injectable()
export class LiveTables implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('VectorTables');
  private readonly tables = new Map<string, LiveTable>();
  private readonly loading = new Map<string, Promise<LiveTable>>();
  private epoch = 0;
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;
  private stopped = false;
  private snapshotTimer: NodeJS.Timeout | undefined;
  private snapshotting: Promise<void> | undefined;

  constructor(
    private readonly repo: TablesRepository,
    private readonly config: VectorConfig,
    private readonly snapshots: TableSnapshots,
  ) {}

  /**
   * Loads every table before the app serves traffic. With PostgreSQL down the app still
   * starts (readiness reports 503) and the sync loop loads the tables once it is back.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.servesApi) return;
    try {
      await this.sync();
    } catch (err) {
      this.logger.error({ err }, 'could not load vector tables at start; retrying in the background');
    }
    this.schedule();
    this.scheduleSnapshots();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.snapshotTimer) clearTimeout(this.snapshotTimer);
    await this.syncing;
    // A snapshot being written is abandoned (closing its table's index ends it); the store
    // never lists a partial one.
    for (const t of this.tables.values()) t.collection.close();
    await this.snapshotting?.catch(() => undefined);
    this.tables.clear();
    await this.snapshots.close();
  }

  private scheduleSnapshots(): void {
    if (this.stopped || !this.config.VECTOR_SNAPSHOTS) return;
    this.snapshotTimer = setTimeout(() => {
      this.snapshotting = this.snapshotDue()
        .catch((err: unknown) => this.logger.warn({ err }, 'vector table snapshot failed; retrying later'))
        .finally(() => {
          this.snapshotting = undefined;
          this.scheduleSnapshots();
        });
    }, this.config.VECTOR_SNAPSHOT_CHECK_MS);
    this.snapshotTimer.unref();
  }

  /**
   * Writes a snapshot of each table that is due, one table at a time: enough rows changed
   * since the last one (VECTOR_SNAPSHOT_MIN_CHANGES, or a tenth of the table if more), or
   * any changed and the last one (or the load) is older than VECTOR_SNAPSHOT_MAX_AGE_MS;
   * and its index holds all but 0.5 % of the rows, since a snapshot exists to spare the
   * next instance the build. A newer snapshot written by
   * another instance counts as this instance's own.
   */
  private async snapshotDue(): Promise<void> {
    for (const live of this.all()) {
      if (this.stopped) return;
      if (this.tables.get(keyOf(live)) !== live) continue;
      const { collection } = live;
      const changed = collection.changes;
      if (changed === 0) continue;
      // A snapshot costs time in proportion to the table: a large table waits for a tenth of
      // its rows to change, so a bulk load does not write one snapshot per few batches.
      const enough = Math.max(this.config.VECTOR_SNAPSHOT_MIN_CHANGES, collection.size * 0.1);
      const age = performance.now() - (live.snapshot?.at ?? live.since);
      if (changed < enough && age < this.config.VECTOR_SNAPSHOT_MAX_AGE_MS) continue;
      const { details } = collection.status();
      // Rows not yet in the index are rebuilt by whoever loads the snapshot: wait for at most
      // 0.5 % of the table (a steady insert load keeps a few batches on their way).
      if ((details.pending ?? 0) > Math.max(2000, collection.size * 0.005)) continue;
      const newest = await this.snapshots.newestSeq(live.id);
      if (live.snapshot && newest > live.snapshot.seq && BigInt(newest) >= live.appliedSeq) {
        live.snapshot = { ...live.snapshot, seq: newest, at: performance.now() };
        collection.changes = 0;
        continue;
      }
      const seq = live.appliedSeq;
      collection.changes = 0; // changes from here on count toward the next one
      try {
        live.snapshot = await this.snapshots.write(live, collection, seq);
      } catch (err) {
        collection.changes += changed;
        if (this.tables.get(keyOf(live)) === live) throw err;
      }
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.syncing = this.sync()
        .catch((err: unknown) => this.logger.warn({ err }, 'vector table sync failed; retrying'))
        .finally(() => {
          this.syncing = undefined;
          this.schedule();
        });
    }, this.config.VECTOR_SYNC_INTERVAL_MS);
    this.timer.unref();
  }

  /** The tables held, of one project or of all; by name. */
  all(projectId?: string): LiveTable[] {
    return [...this.tables.values()]
      .filter((t) => projectId === undefined || t.projectId === projectId)
      .sort((a, b) => a.name.localeCompare(b.name) || a.projectId.localeCompare(b.projectId));
  }

  /** The project's table by name; loads it when another instance created it since our last sync. */
  async resolve(projectId: string, name: string): Promise<LiveTable | undefined> {
    const live = this.tables.get(tableKey(projectId, name));
    if (live) return live;
    if (!ownsTable(this.config.partition, name)) return undefined; // VECTOR_PARTITION: another group holds it
    const head = await this.repo.findTable(projectId, name);
    return head ? this.load(head) : undefined;
  }

  /**
   * The table as this instance holds it now (a reload may have replaced the object `table`
   * was), brought up to every change committed so far by any instance: for reads that must
   * see the others' writes (an exact count). undefined when the table is gone.
   */
  async catchUpNow(table: LiveTable): Promise<LiveTable | undefined> {
    const seq = await this.repo.currentSeq(table.id);
    const current = seq === null ? undefined : await this.current(table);
    if (seq === null || !current) return undefined;
    if (seq > current.appliedSeq && !(await this.catchUp(current, seq))) {
      this.logger.warn({ table: current.name, project: current.projectId }, 'change log has a gap (pruned); reloading the table');
      const head = await this.repo.findTable(current.projectId, current.name);
      if (!head || head.id !== current.id) return undefined;
      return this.load(head);
    }
    return current;
  }

  /**
   * Inside a write's transaction that holds the table's row lock with change `seq`: the table
   * with every earlier change applied (all of them committed, none can commit meanwhile), read
   * through that transaction (no second connection while the lock is held). Throws
   * ChangeLogGap when the log no longer reaches back to what this instance holds: the caller
   * rolls back and calls catchUpNow, which reloads, then tries again.
   */
  async catchUpLocked(table: LiveTable, tx: PrismaTx, seq: bigint): Promise<LiveTable | undefined> {
    const current = await this.current(table);
    if (!current) return undefined;
    if (seq - 1n > current.appliedSeq && !(await this.catchUp(current, seq - 1n, tx))) throw new ChangeLogGap(current.name);
    return current;
  }

  /** The registered incarnation of this table (the same id), loading it if it is not held. */
  private async current(table: LiveTable): Promise<LiveTable | undefined> {
    const live = this.tables.get(keyOf(table)) ?? (await this.resolve(table.projectId, table.name));
    return live?.id === table.id ? live : undefined;
  }

  /** Registers a table this instance has just created (empty). */
  created(head: TableHead): LiveTable {
    return this.register(head, this.newCollection(head), head.seq);
  }

  /** Forgets a project's table; with `id`, only that incarnation (not a same-named newer one). */
  dropped(projectId: string, name: string, id?: string): void {
    const key = tableKey(projectId, name);
    const live = this.tables.get(key);
    if (!live || (id !== undefined && live.id !== id)) return;
    this.tables.delete(key);
    live.collection.close();
    void this.snapshots.forget(live.id);
  }

  /** After a local insert committed. */
  applyInsert(table: LiveTable, seq: bigint, rows: readonly CollectionRow[]): Promise<void> {
    return table.mutex.run(() => {
      table.collection.insert(rows, Number(seq));
      if (seq === table.appliedSeq + 1n) table.appliedSeq = seq;
    });
  }

  /** After a local delete committed. */
  applyDelete(table: LiveTable, seq: bigint, labels: readonly number[]): Promise<void> {
    return table.mutex.run(() => {
      table.collection.deleteLabels(labels, Number(seq));
      if (seq === table.appliedSeq + 1n) table.appliedSeq = seq;
    });
  }

  private newCollection(head: TableHead, deferIndex = false): VectorCollection {
    return new VectorCollection(head.dimension, head.indexKind, {
      metric: head.metric,
      deferIndex,
      indexBudget: {
        distinctValuesPerKey: this.config.VECTOR_INDEX_MAX_DISTINCT_VALUES_PER_KEY,
        distinctValuesPerTable: this.config.VECTOR_INDEX_MAX_DISTINCT_VALUES_PER_TABLE,
      },
      onError: (err) => this.logger.error({ err, table: head.name }, 'background index build failed'),
    });
  }

  private register(head: TableHead, collection: VectorCollection, appliedSeq: bigint, snapshot?: SnapshotMark): LiveTable {
    const live: LiveTable = {
      snapshot,
      since: performance.now(),
      id: head.id,
      projectId: head.projectId,
      name: head.name,
      dimension: head.dimension,
      indexKind: head.indexKind,
      metric: head.metric,
      createdAt: head.createdAt,
      collection,
      appliedSeq,
      mutex: new Mutex(),
      registeredEpoch: this.epoch,
    };
    const previous = this.tables.get(keyOf(head));
    if (previous && previous !== live) previous.collection.close();
    this.tables.set(keyOf(head), live);
    return live;
  }

  /**
   * Loads a table: its seq first, then every row (pages by label), then the changes after
   * that seq. Rows read after the seq may already include some of those changes; replaying
   * them is idempotent, so no snapshot transaction is needed.
   */
  private load(head: TableHead): Promise<LiveTable> {
    const pending = this.loading.get(head.id);
    if (pending) return pending;
    const work = (async () => {
      const fromSnapshot = await this.snapshots.load(head, () => this.newCollection(head, true));
      if (fromSnapshot) {
        const { collection, mark } = fromSnapshot;
        const live = this.register(head, collection, BigInt(mark.seq), mark);
        if (await this.catchUp(live)) return live;
        // The log after the snapshot was pruned: only the rows can be trusted.
        this.logger.warn(
          { table: head.name, project: head.projectId },
          'change log no longer reaches back to the snapshot; loading the rows',
        );
      }
      const collection = this.newCollection(head, true);
      let after = -1;
      for (;;) {
        const page = await this.repo.rowsPage(head.id, after, LOAD_PAGE);
        // As of head.seq at least (the log after it is replayed next; newer seqs win).
        collection.insert(toCollectionRows(page), Number(head.seq));
        if (page.length < LOAD_PAGE) break;
        after = page[page.length - 1].label;
      }
      collection.warm(); // one background build over all rows, not one per page
      const live = this.register(head, collection, head.seq);
      await this.catchUp(live); // a gap here cannot be: changes after head.seq are minutes old at most
      this.logger.log({ table: head.name, project: head.projectId, rows: collection.size }, 'vector table loaded');
      return live;
    })().finally(() => this.loading.delete(head.id));
    this.loading.set(head.id, work);
    return work;
  }

  /**
   * Applies every committed change after `appliedSeq`, in seq order, up to `target`.
   * Returns false when changes are missing (pruned from the log): the caller reloads.
   */
  private catchUp(table: LiveTable, target?: bigint, tx?: PrismaTx): Promise<boolean> {
    return table.mutex.run(async () => {
      for (;;) {
        const changes = await this.repo.changesSince(table.id, table.appliedSeq, 1000, tx);
        for (const change of changes) {
          if (change.seq !== table.appliedSeq + 1n) return false;
          if (target !== undefined && change.seq > target) return true;
          if (change.op === 'insert') {
            const rows = await this.repo.rowsByLabels(table.id, change.labels, tx);
            table.collection.insert(toCollectionRows(rows), Number(change.seq));
          } else {
            table.collection.deleteLabels(change.labels, Number(change.seq));
          }
          table.appliedSeq = change.seq;
        }
        if (changes.length < 1000) return target === undefined || table.appliedSeq >= target;
      }
    });
  }

  /** One round of multi-instance sync: new, dropped and changed tables. */
  private async sync(): Promise<void> {
    const epoch = ++this.epoch;
    const heads = await this.repo.listTables();
    const keys = new Set<string>();
    for (const head of heads) {
      if (this.stopped) return;
      if (!ownsTable(this.config.partition, head.name)) continue; // VECTOR_PARTITION: another group holds it
      keys.add(keyOf(head));
      const live = this.tables.get(keyOf(head));
      if (!live || live.id !== head.id) await this.load(head);
      else if (head.seq > live.appliedSeq && !(await this.catchUp(live, head.seq))) {
        this.logger.warn({ table: head.name, project: head.projectId }, 'change log has a gap (pruned); reloading the table');
        await this.load(head);
      }
    }
    for (const live of this.tables.values()) {
      // Tables registered during this round (created here meanwhile) are not judged by it.
      if (!keys.has(keyOf(live)) && live.registeredEpoch < epoch) this.dropped(live.projectId, live.name);
    }
  }
}
