import { MetricsService } from '@app/platform';
import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { Gauge } from 'prom-client';
import { VectorConfig } from '../config';
import { type IndexState } from '../engine/types';
import { LiveTables } from './live-tables';

/** The states `vector_tables{state}` reports: a held table's index state, or `loading` (listed, its load after start not done). */
export const TABLE_STATES = ['ready', 'building', 'exact', 'loading'] as const satisfies ReadonlyArray<IndexState | 'loading'>;

/** What the gauges read at one scrape: one pass over the held tables, O(tables), no I/O. */
export interface TablesSummary {
  readonly byState: Record<(typeof TABLE_STATES)[number], number>;
  /** Rows not yet in their table's index (hnsw's pending rows; every row of an ivf table while it trains). */
  readonly backlogRows: number;
  /** Age in seconds of the oldest change not yet in a snapshot, over the held tables; 0 when none. */
  readonly oldestSnapshotAgeSeconds: number;
  /** Age in seconds of the longest-running index build (queued or running), over the held tables; 0 when none. */
  readonly oldestBuildSeconds: number;
}

export function summarize(
  live: Pick<LiveTables, 'all' | 'progress'>,
  snapshots: boolean,
  nowMs = performance.now(),
): TablesSummary {
  const byState = { ready: 0, building: 0, exact: 0, loading: 0 };
  let backlogRows = 0;
  let oldestChange = 0;
  let oldestBuild = 0;
  for (const t of live.all()) {
    const status = t.collection.status();
    byState[status.state]++;
    if (status.state === 'building') backlogRows += status.details.pending ?? status.details.rows ?? 0;
    const firstChangeAt = t.collection.firstChangeAt;
    if (snapshots && firstChangeAt !== undefined) oldestChange = Math.max(oldestChange, nowMs - firstChangeAt);
    const buildStartedAt = t.collection.buildStartedAt();
    if (buildStartedAt !== undefined) oldestBuild = Math.max(oldestBuild, nowMs - buildStartedAt);
  }
  const progress = live.progress();
  byState.loading = Math.max(0, progress.tables_total - progress.tables_loaded);
  return { byState, backlogRows, oldestSnapshotAgeSeconds: oldestChange / 1000, oldestBuildSeconds: oldestBuild / 1000 };
}

/**
 * The vector tables of this instance, aggregated (table names are tenant-chosen: never a
 * label; per-table detail is in `GET .../tables` and the console), read at scrape time from
 * memory. With `VECTOR_PARTITION` only its partition's tables (docs/scaling.md).
 * - `vector_tables_held`: tables held in memory;
 * - `vector_tables{state}`: held tables by index state, and `loading` ones;
 * - `vector_index_build_backlog_rows`: rows on their way into an index, summed;
 * - `vector_index_build_oldest_seconds`: how long the longest-running index build has run
 *   (an hnsw build from when it was queued for a build slot, a first ivf training); 0 when
 *   none. A steady stream of short builds keeps it low, unlike `vector_tables{state="building"}`;
 * - `vector_snapshot_oldest_age_seconds`: age of the oldest change not yet in a snapshot of
 *   its table (since the change, or since the load for changes replayed then; a restart
 *   replays the change log since the last snapshot, and the log keeps an hour). A table
 *   idle for hours then written starts from 0. 0 with `VECTOR_SNAPSHOTS=false`.
 */
@Injectable()
export class TablesMetrics {
  constructor(metrics: MetricsService, live: LiveTables, config: VectorConfig) {
    const registers = [metrics.registry];
    // one summary per scrape, shared by the gauges collected in that scrape: a scrape collects
    // them in one turn of the event loop, so the summary is dropped at the next turn (a TTL
    // would hand a later scrape a stale one)
    let cached: TablesSummary | undefined;
    const summary = (): TablesSummary => {
      if (cached === undefined) {
        cached = summarize(live, config.VECTOR_SNAPSHOTS);
        setImmediate(() => {
          cached = undefined;
        });
      }
      return cached;
    };
    new Gauge({
      name: 'vector_tables_held',
      help: 'Tables this instance holds in memory (with VECTOR_PARTITION: only its partition)',
      registers,
      collect() {
        this.set(live.all().length);
      },
    });
    new Gauge({
      name: 'vector_tables',
      help: 'Tables of this instance by index state (ready, building, exact = small table answered exactly, loading = not loaded yet after start)',
      labelNames: ['state'],
      registers,
      collect() {
        const { byState } = summary();
        for (const state of TABLE_STATES) this.set({ state }, byState[state]);
      },
    });
    new Gauge({
      name: 'vector_index_build_backlog_rows',
      help: 'Rows not yet in their table index (queries scan them exactly), summed over the tables of this instance',
      registers,
      collect() {
        this.set(summary().backlogRows);
      },
    });
    new Gauge({
      name: 'vector_index_build_oldest_seconds',
      help: 'Seconds the longest-running index build of this instance has run (queued or running; hnsw build, first ivf training); 0 when none',
      registers,
      collect() {
        this.set(summary().oldestBuildSeconds);
      },
    });
    new Gauge({
      name: 'vector_snapshot_oldest_age_seconds',
      help: 'Age of the oldest change not yet in a snapshot of its table (changes replayed at load count from the load); 0 when none',
      registers,
      collect() {
        this.set(summary().oldestSnapshotAgeSeconds);
      },
    });
  }
}
