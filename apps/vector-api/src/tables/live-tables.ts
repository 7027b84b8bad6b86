import { HealthService, type Tx, type ReadinessContribution, type ReadinessContributor, type Db } from '@app/platform';
import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { VectorConfig } from '../config';
import { VectorError } from '../errors';
import { type IndexKind, type Metric, toSeq } from '../engine/types';
import { type CollectionRow, VectorCollection } from '../engine/vector-collection';
import { type SnapshotMark, TableSnapshots } from '../snapshots/table-snapshots';
import { LoadQueue } from './load-queue';
import { ownsTable } from './partition';
import { TableUsageRepository } from './table-usage.repository';
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

/** A table whose background load failed waits this long before the sync loop queues it again. */
const LOAD_RETRY_MS = 5_000;
/** A table's last query time is written at most this often by one instance… */
const TOUCH_EVERY_MS = 60_000;
/** …in one statement for all the tables queried, this often. */
const TOUCH_FLUSH_MS = 15_000;

/** Where the loading of this instance's tables after its start stands (`GET /health/ready`, 503 `loading`). */
export interface LoadProgress {
  /** Tables held in memory. */
  readonly tables_loaded: number;
  /** Tables to hold: loaded, being loaded, waiting (and waiting again after a failed load). */
  readonly tables_total: number;
  /** Tables being loaded now (at most VECTOR_LOAD_CONCURRENCY). */
  readonly tables_loading: number;
  /** Rows in memory, those of the tables being loaded included. */
  readonly rows_loaded: number;
  /** Loads that failed so far (each such table is queued again after a few seconds). */
  readonly load_failures: number;
  /** Milliseconds since the instance started loading. */
  readonly elapsed_ms: number;
}

/** Tables are held by project and name (two projects may each have a table `articles`). */
export function tableKey(projectId: string, name: string): string {
  return `${projectId}/${name}`;
}

const keyOf = (t: { readonly projectId: string; readonly name: string }): string => tableKey(t.projectId, t.name);

function toCollectionRows(rows: readonly StoredRow[]): CollectionRow[] {
  return rows.map((r) => ({ id: r.id, label: r.label, embedding: r.embedding, metadata: r.metadata }));
}

/**
 * The tables of this instance, in memory, kept equal to PostgreSQL: loaded in the
 * background after start (most recently queried first, VECTOR_LOAD_CONCURRENCY at a time;
 * readiness is 503 until all are), updated after each local commit, and every
 * VECTOR_SYNC_INTERVAL_MS brought up to date with the other instances' committed changes
 * (the per-table `seq` and its change log). Applying a change is idempotent per label, so a
 * change applied locally and replayed by the poller is harmless.
 */
@Injectable()
export class LiveTables
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown, ReadinessContributor
{
  private readonly logger = new Logger('VectorTables');
  private readonly tables = new Map<string, LiveTable>();
  private readonly loading = new Map<string, Promise<LiveTable>>();
  /** Tables waiting for their background load (decision 187). */
  private readonly queue = new LoadQueue();
  /** Background loads under way: table key → table id, and their promises (awaited at shutdown). */
  private readonly background = new Map<string, string>();
  private readonly backgroundWork = new Set<Promise<void>>();
  /** Tables whose background load failed: queued again by the sync loop once `retryAt` passed. */
  private readonly failed = new Map<string, { head: TableHead; retryAt: number }>();
  /** Ids of tables dropped while their background load ran: not registered when it ends. */
  private readonly cancelled = new Set<string>();
  /** Rows read so far by each load under way (table id → rows), for the progress. */
  private readonly rowsInFlight = new Map<string, number>();
  /** The tables were listed once: what is not held is queued, failed or new since. */
  private listed = false;
  /** Every table listed at start is loaded (latched: later tables do not make readiness 503 again). */
  private complete = false;
  private loadStarted = performance.now();
  private loadsDone = 0;
  private loadMsTotal = 0;
  private loadFailures = 0;
  /** Tables queried since their last write of last_queried_at, and when each was last written. */
  private readonly queried = new Set<string>();
  private readonly touchedAt = new Map<string, number>();
  private touchTimer: NodeJS.Timeout | undefined;
  readonly field = 'loading';
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
    private readonly usage: TableUsageRepository,
    private readonly health: HealthService,
  ) {}

  /**
   * Starts loading the tables in the background and returns at once, so the port opens
   * within moments whatever the data (decision 186): the first sync round lists the tables
   * and queues them, VECTOR_LOAD_CONCURRENCY loads drain the queue, and readiness is 503 with
   * the progress until every table is held. With PostgreSQL down the sync loop retries.
   */
  onApplicationBootstrap(): void {
    if (!this.config.servesApi) return;
    this.loadStarted = performance.now();
    this.health.contribute(this);
    this.schedule(0);
    this.scheduleSnapshots();
    this.scheduleTouches();
  }

  /** Readiness: 503 with the progress until every table is loaded once (then latched). */
  readiness(): ReadinessContribution {
    if (this.complete) return { ready: true, message: '', progress: {} };
    const p = this.progress();
    const message = this.listed
      ? `Loading tables: ${p.tables_loaded} of ${p.tables_total} loaded (${p.rows_loaded} rows)`
      : 'Loading tables: listing them';
    return { ready: false, message, progress: { ...p }, retryAfterSeconds: 1 };
  }

  /** Where the load after start stands (the numbers of readiness's 503). */
  progress(): LoadProgress {
    let rows = 0;
    for (const t of this.tables.values()) rows += t.collection.size;
    for (const n of this.rowsInFlight.values()) rows += n;
    // A load's table is held a moment before its load ends: counted once, as loaded.
    let loading = 0;
    for (const [key, id] of this.background) if (this.tables.get(key)?.id !== id) loading++;
    return {
      tables_loaded: this.tables.size,
      tables_total: this.tables.size + this.queue.size + loading + this.failed.size,
      tables_loading: loading,
      rows_loaded: rows,
      load_failures: this.loadFailures,
      elapsed_ms: Math.round(performance.now() - this.loadStarted),
    };
  }

  /** True once every table listed at start has been loaded. */
  get loaded(): boolean {
    return this.complete;
  }

  /** Loads under way end (a row load stops between pages), and the last query times are written. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.touchTimer) clearTimeout(this.touchTimer);
    await this.syncing;
    await Promise.allSettled([...this.backgroundWork]);
    await this.flushTouches().catch((err: unknown) => this.logger.warn({ err }, "could not write the tables' last query times"));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.snapshotTimer) clearTimeout(this.snapshotTimer);
    if (this.touchTimer) clearTimeout(this.touchTimer);
    await this.syncing;
    await Promise.allSettled([...this.backgroundWork]);
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
      const firstChangeAt = collection.firstChangeAt;
      collection.changes = 0; // changes from here on count toward the next one
      try {
        live.snapshot = await this.snapshots.write(live, collection, seq);
      } catch (err) {
        collection.changes += changed;
        collection.firstChangeAt = firstChangeAt; // the oldest change is still not in a snapshot
        if (this.tables.get(keyOf(live)) === live) throw err;
      }
    }
  }

  /**
   * A query read the table: its last_queried_at is written within TOUCH_FLUSH_MS, at most
   * once per TOUCH_EVERY_MS per table by this instance (never a write per query).
   */
  touch(table: LiveTable): void {
    const now = performance.now();
    const last = this.touchedAt.get(table.id);
    if (last !== undefined && now - last < TOUCH_EVERY_MS) return;
    this.touchedAt.set(table.id, now);
    this.queried.add(table.id);
  }

  private scheduleTouches(): void {
    if (this.stopped) return;
    this.touchTimer = setTimeout(() => {
      this.flushTouches()
        .catch((err: unknown) => this.logger.warn({ err }, "could not write the tables' last query times; retrying later"))
        .finally(() => this.scheduleTouches());
    }, TOUCH_FLUSH_MS);
    this.touchTimer.unref();
  }

  private async flushTouches(): Promise<void> {
    if (this.queried.size === 0) return;
    const ids = [...this.queried];
    this.queried.clear();
    try {
      await this.usage.touch(ids);
    } catch (err) {
      for (const id of ids) this.queried.add(id);
      throw err;
    }
  }

  private schedule(delay = this.config.VECTOR_SYNC_INTERVAL_MS): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.syncing = this.sync()
        .catch((err: unknown) => this.logger.warn({ err }, 'vector table sync failed; retrying'))
        .finally(() => {
          this.syncing = undefined;
          // While the tables load, a round (which lists every table) runs at most once a
          // second: the instance takes no traffic yet, and the event loop goes to the loads.
          const interval = this.config.VECTOR_SYNC_INTERVAL_MS;
          this.schedule(this.listed && !this.complete ? Math.max(interval, 1000) : interval);
        });
    }, delay);
    this.timer.unref();
  }

  /** The tables held, of one project or of all; by name. */
  all(projectId?: string): LiveTable[] {
    return [...this.tables.values()]
      .filter((t) => projectId === undefined || t.projectId === projectId)
      .sort((a, b) => a.name.localeCompare(b.name) || a.projectId.localeCompare(b.projectId));
  }

  /**
   * The project's table by name; loads it when another instance created it since our last
   * sync. A table still waiting for (or in) its background load after start throws 503
   * `table_loading` and moves to the front of the queue (decision 189).
   */
  async resolve(projectId: string, name: string): Promise<LiveTable | undefined> {
    const key = tableKey(projectId, name);
    const live = this.tables.get(key);
    if (live) return live;
    if (!ownsTable(this.config.partition, name)) return undefined; // VECTOR_PARTITION: another group holds it
    if (this.waiting(projectId, name) && this.isPending(key)) throw this.loadingError(key, name);
    const head = await this.repo.findTable(projectId, name);
    if (!head) return undefined;
    const now = this.tables.get(key);
    if (now) return now;
    // Not listed yet (the first sync round is under way, or PostgreSQL failed it): the sync
    // loop queues it; until then it is loading like the others.
    if (this.waiting(projectId, name)) throw this.loadingError(key, name);
    // Created elsewhere since the last round, after start (a new table, small): loaded now,
    // as before; the background load, if one is under way for it, is the same promise.
    return this.load(head);
  }

  /**
   * The table is this instance's but not held yet because the load after start has not
   * reached it (or the tables were not listed yet): routes of its rows answer 503
   * `table_loading`, its description comes from PostgreSQL. Nothing is promoted by asking.
   * Never after the load after start completed: a table created elsewhere since is loaded
   * on its first request, as it always was.
   */
  waiting(projectId: string, name: string): boolean {
    const key = tableKey(projectId, name);
    if (this.complete || this.tables.has(key) || !ownsTable(this.config.partition, name)) return false;
    return this.isPending(key) || !this.listed;
  }

  /** Waiting for its background load, in it, or waiting to retry a failed one. */
  isPending(key: string): boolean {
    return this.queue.get(key) !== undefined || this.background.has(key) || this.failed.has(key);
  }

  /**
   * 503 `table_loading` for a table not loaded yet, with an estimate of when it will be:
   * its place in the queue over the loads at once, times the mean load so far (1–30 s).
   */
  private loadingError(key: string, name: string): VectorError {
    const queued = this.queue.promote(key);
    const place = queued ? (this.queue.position(key) ?? 0) : -1;
    const meanMs = this.loadsDone > 0 ? this.loadMsTotal / this.loadsDone : 1000;
    const rounds = place < 0 ? 1 : Math.floor(place / this.config.VECTOR_LOAD_CONCURRENCY) + 1;
    const seconds = Math.min(30, Math.max(1, Math.ceil((rounds * meanMs) / 1000)));
    const where = this.background.has(key)
      ? 'it is being loaded now'
      : place >= 0
        ? 'it is next in the queue'
        : 'it will be loaded shortly';
    return new VectorError(
      'table_loading',
      `Table '${name}' is not loaded into this instance's memory yet: the instance has just started and loads its tables in the background (${where}). Retry after ${seconds} s.`,
      { param: 'table', headers: { 'Retry-After': String(seconds) } },
    );
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
    if (seq > current.appliedSeq && !(await this.catchUp(current, this.repo.pool, seq))) {
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
  async catchUpLocked(table: LiveTable, tx: Tx, seq: bigint): Promise<LiveTable | undefined> {
    const current = await this.current(table);
    if (!current) return undefined;
    if (seq - 1n > current.appliedSeq && !(await this.catchUp(current, tx, seq - 1n))) throw new ChangeLogGap(current.name);
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
    this.forgetPending(key, id);
    const live = this.tables.get(key);
    if (!live || (id !== undefined && live.id !== id)) return;
    this.tables.delete(key);
    live.collection.close();
    void this.snapshots.forget(live.id);
  }

  /** A table not held any more waits for no load (a load under way is not registered when it ends). */
  private forgetPending(key: string, id?: string): void {
    const matches = (head: TableHead | undefined): boolean => head !== undefined && (id === undefined || head.id === id);
    if (matches(this.queue.get(key))) this.queue.remove(key);
    if (matches(this.failed.get(key)?.head)) this.failed.delete(key);
    const loading = this.background.get(key);
    if (loading !== undefined && (id === undefined || loading === id)) this.cancelled.add(loading);
    this.checkComplete();
  }

  /** After a local insert committed. */
  applyInsert(table: LiveTable, seq: bigint, rows: readonly CollectionRow[]): Promise<void> {
    return table.mutex.run(() => {
      table.collection.insert(rows, toSeq(seq));
      if (seq === table.appliedSeq + 1n) table.appliedSeq = seq;
    });
  }

  /** After a local delete committed. */
  applyDelete(table: LiveTable, seq: bigint, labels: readonly number[]): Promise<void> {
    return table.mutex.run(() => {
      table.collection.deleteLabels(labels, toSeq(seq));
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
    return this.install(this.build(head, collection, appliedSeq, snapshot));
  }

  private build(head: TableHead, collection: VectorCollection, appliedSeq: bigint, snapshot?: SnapshotMark): LiveTable {
    return {
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
  }

  /** Serves `live` from now on (replacing an earlier memory of the table). */
  private install(live: LiveTable): LiveTable {
    this.rowsInFlight.delete(live.id); // counted as held from now on
    const previous = this.tables.get(keyOf(live));
    if (previous && previous !== live) previous.collection.close();
    this.tables.set(keyOf(live), live);
    return live;
  }

  /**
   * Applies the change log to a loaded table, then serves it and applies what committed
   * meanwhile: so a table is held (and counted loaded) only once caught up, and a write
   * committed here after it is served reaches it directly. false: the log has a gap, nothing
   * is served.
   */
  private async caughtUpThenInstalled(live: LiveTable): Promise<boolean> {
    if (!(await this.catchUp(live, this.repo.pool))) return false;
    this.install(live);
    await this.catchUp(live, this.repo.pool); // a gap here cannot be: the log was complete a moment ago
    return true;
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
        const live = this.build(head, collection, BigInt(mark.seq), mark);
        this.rowsInFlight.set(head.id, collection.size);
        try {
          if (await this.caughtUpThenInstalled(live)) return live;
        } catch (err) {
          collection.close();
          throw err;
        } finally {
          this.rowsInFlight.delete(head.id);
        }
        collection.close();
        // The log after the snapshot was pruned: only the rows can be trusted.
        this.logger.warn(
          { table: head.name, project: head.projectId },
          'change log no longer reaches back to the snapshot; loading the rows',
        );
      }
      const collection = this.newCollection(head, true);
      let after = -1;
      let rows = 0;
      try {
        for (;;) {
          // Shutting down: a load of millions of rows stops between pages.
          if (this.stopped) throw new Error(`shutting down: the load of table '${head.name}' stopped`);
          const page = await this.repo.rowsPage(head.id, after, LOAD_PAGE);
          // As of head.seq at least (the log after it is replayed next; newer seqs win).
          collection.insert(toCollectionRows(page), toSeq(head.seq));
          rows += page.length;
          this.rowsInFlight.set(head.id, rows);
          if (page.length < LOAD_PAGE) break;
          after = page[page.length - 1].label;
        }
      } catch (err) {
        collection.close();
        throw err;
      } finally {
        this.rowsInFlight.delete(head.id);
      }
      collection.warm(); // one background build over all rows, not one per page
      const live = this.build(head, collection, head.seq);
      this.rowsInFlight.set(head.id, collection.size);
      try {
        // A gap here cannot be: head is read just before the rows (changes after its seq are
        // moments old), so the log reaches back to it.
        if (!(await this.caughtUpThenInstalled(live))) throw new ChangeLogGap(head.name);
      } catch (err) {
        if (this.tables.get(keyOf(head)) !== live) collection.close();
        throw err;
      } finally {
        this.rowsInFlight.delete(head.id);
      }
      this.logger.log({ table: head.name, project: head.projectId, rows: collection.size }, 'vector table loaded');
      return live;
    })().finally(() => this.loading.delete(head.id));
    this.loading.set(head.id, work);
    return work;
  }

  /**
   * Applies every committed change after `appliedSeq`, in seq order, up to `target`.
   * Returns false when changes are missing (pruned from the log): the caller reloads. `db`:
   * the pool, or the transaction of a write that holds the table's lock.
   */
  private catchUp(table: LiveTable, db: Db, target?: bigint): Promise<boolean> {
    return table.mutex.run(async () => {
      for (;;) {
        const changes = await this.repo.changesSince(db, table.id, table.appliedSeq, 1000);
        for (const change of changes) {
          if (change.seq !== table.appliedSeq + 1n) return false;
          if (target !== undefined && change.seq > target) return true;
          if (change.op === 'insert') {
            const rows = await this.repo.rowsByLabels(db, table.id, change.labels);
            table.collection.insert(toCollectionRows(rows), toSeq(change.seq));
          } else {
            table.collection.deleteLabels(change.labels, toSeq(change.seq));
          }
          table.appliedSeq = change.seq;
        }
        if (changes.length < 1000) return target === undefined || table.appliedSeq >= target;
      }
    });
  }

  /**
   * One round of multi-instance sync: new, dropped and changed tables. Tables not held are
   * queued for the background loads (most recently queried first), not loaded here, so a
   * round never waits for a large load; a table created and dropped elsewhere leaves the
   * queue as it leaves the listing.
   */
  private async sync(): Promise<void> {
    const epoch = ++this.epoch;
    const heads = await this.repo.listTables();
    const keys = new Set<string>();
    const fresh: Array<{ key: string; head: TableHead }> = [];
    const now = performance.now();
    for (const head of heads) {
      if (this.stopped) return;
      if (!ownsTable(this.config.partition, head.name)) continue; // VECTOR_PARTITION: another group holds it
      const key = keyOf(head);
      keys.add(key);
      const live = this.tables.get(key);
      if (!live) {
        if (this.background.has(key) || this.queue.get(key)?.id === head.id) continue;
        const failed = this.failed.get(key);
        if (failed && failed.head.id === head.id && failed.retryAt > now) continue;
        this.failed.delete(key);
        fresh.push({ key, head });
      } else if (live.id !== head.id) await this.load(head);
      else if (head.seq > live.appliedSeq && !(await this.catchUp(live, this.repo.pool, head.seq))) {
        this.logger.warn({ table: head.name, project: head.projectId }, 'change log has a gap (pruned); reloading the table');
        await this.load(head);
      }
    }
    // Waiting tables dropped elsewhere (or created again under another id, queued anew below).
    for (const key of [...this.queue.keys()]) if (!keys.has(key)) this.queue.remove(key);
    for (const key of [...this.failed.keys()]) if (!keys.has(key)) this.failed.delete(key);
    if (fresh.length > 0) {
      const lastQueried = await this.usage.lastQueried(fresh.map((f) => f.head.id));
      for (const { key, head } of fresh) this.queue.add(key, head, lastQueried.get(head.id) ?? null);
      if (!this.listed)
        this.logger.log(
          { tables: fresh.length, concurrency: this.config.VECTOR_LOAD_CONCURRENCY },
          'loading vector tables in the background',
        );
    }
    this.listed = true;
    this.pump();
    for (const live of this.tables.values()) {
      // Tables registered during this round (created here meanwhile) are not judged by it.
      if (!keys.has(keyOf(live)) && live.registeredEpoch < epoch) this.dropped(live.projectId, live.name);
    }
    this.checkComplete();
  }

  /** Starts background loads from the queue while fewer than VECTOR_LOAD_CONCURRENCY run. */
  private pump(): void {
    while (!this.stopped && this.background.size < this.config.VECTOR_LOAD_CONCURRENCY) {
      const head = this.queue.take();
      if (!head) break;
      const key = keyOf(head);
      if (this.tables.get(key)?.id === head.id) continue; // loaded meanwhile (a reload, a create)
      this.background.set(key, head.id);
      const work: Promise<void> = this.loadInBackground(head).finally(() => {
        this.background.delete(key);
        this.backgroundWork.delete(work);
        this.pump();
        this.checkComplete();
      });
      this.backgroundWork.add(work);
    }
  }

  /**
   * One table's background load, from its head as committed now (the queued one may be
   * minutes old: its seq would ask the change log for more than it keeps). A failed load
   * waits LOAD_RETRY_MS, then the sync loop queues it again.
   */
  private async loadInBackground(queued: TableHead): Promise<void> {
    const key = keyOf(queued);
    const started = performance.now();
    try {
      const head = await this.repo.findTable(queued.projectId, queued.name);
      if (!head || head.id !== queued.id || this.cancelled.has(queued.id)) return; // dropped meanwhile
      await this.load(head);
      this.loadsDone++;
      this.loadMsTotal += performance.now() - started;
      if (this.cancelled.has(head.id)) this.dropped(head.projectId, head.name, head.id);
    } catch (err) {
      if (this.stopped) return;
      this.loadFailures++;
      this.failed.set(key, { head: queued, retryAt: performance.now() + LOAD_RETRY_MS });
      this.logger.warn(
        { err, table: queued.name, project: queued.projectId },
        'could not load a vector table; retrying in a few seconds',
      );
    } finally {
      this.cancelled.delete(queued.id);
    }
  }

  /** Latches `complete` once the tables were listed and none waits, loads or failed. */
  private checkComplete(): void {
    if (this.complete || !this.listed) return;
    if (this.queue.size > 0 || this.background.size > 0 || this.failed.size > 0) return;
    this.complete = true;
    const p = this.progress();
    this.logger.log(
      { tables: p.tables_loaded, rows: p.rows_loaded, ms: p.elapsed_ms, failures: p.load_failures },
      'every vector table is loaded: ready',
    );
  }
}
