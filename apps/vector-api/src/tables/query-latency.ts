import { Clock } from '@app/platform';
import { Injectable } from '@nestjs/common';

/** How far back GET /v1/tables/{table}/stats reaches, in one-minute buckets. */
export const LATENCY_WINDOW_MINUTES = 60;
const MINUTE_MS = 60_000;
/** Samples kept per table and minute (a uniform reservoir beyond that): p95 of 512 is close enough for a chart. */
const RESERVOIR = 512;

interface Bucket {
  /** Start of the minute, ms since the epoch. */
  readonly start: number;
  count: number;
  max: number;
  readonly samples: number[];
}

export interface LatencyBucket {
  readonly start: number;
  readonly queries: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

/** The q-quantile (nearest rank) of sorted values. */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

/**
 * The engine time of each query of each table, per minute, for the console's latency chart
 * (contract, "Console (web UI)": "a table's query latency"). Kept in this instance's memory
 * only, for the last hour: with several instances each shows the queries it answered
 * (docs/vector.md, "Query latency"). Bounded: at most 60 buckets of 512 samples per table
 * queried within the hour; tables not queried for an hour are forgotten at the next minute.
 */
@Injectable()
export class QueryLatency {
  private readonly tables = new Map<string, Bucket[]>();
  private sweptMinute = 0;

  constructor(private readonly clock: Clock) {}

  /** One query of table `tableId` took `ms` milliseconds in the engine. */
  record(tableId: string, ms: number): void {
    const minute = Math.floor(this.clock.nowMs() / MINUTE_MS) * MINUTE_MS;
    if (minute !== this.sweptMinute) this.sweep(minute);
    let buckets = this.tables.get(tableId);
    if (!buckets) {
      buckets = [];
      this.tables.set(tableId, buckets);
    }
    let bucket = buckets[buckets.length - 1];
    if (!bucket || bucket.start !== minute) {
      bucket = { start: minute, count: 0, max: 0, samples: [] };
      buckets.push(bucket);
      while (buckets.length > LATENCY_WINDOW_MINUTES) buckets.shift();
    }
    bucket.count += 1;
    bucket.max = Math.max(bucket.max, ms);
    if (bucket.samples.length < RESERVOIR) bucket.samples.push(ms);
    else {
      const slot = Math.floor(Math.random() * bucket.count);
      if (slot < RESERVOIR) bucket.samples[slot] = ms;
    }
  }

  /** The table's minutes with queries in the last hour, oldest first. */
  recent(tableId: string): LatencyBucket[] {
    const oldest = this.oldestKept(Math.floor(this.clock.nowMs() / MINUTE_MS) * MINUTE_MS);
    return (this.tables.get(tableId) ?? [])
      .filter((b) => b.start >= oldest)
      .map((b) => {
        const sorted = [...b.samples].sort((x, y) => x - y);
        return { start: b.start, queries: b.count, p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), max: b.max };
      });
  }

  /** A deleted table's history goes with it. */
  forget(tableId: string): void {
    this.tables.delete(tableId);
  }

  private oldestKept(minute: number): number {
    return minute - (LATENCY_WINDOW_MINUTES - 1) * MINUTE_MS;
  }

  /** Once a minute: drop buckets that left the window, and tables with none left. */
  private sweep(minute: number): void {
    this.sweptMinute = minute;
    const oldest = this.oldestKept(minute);
    for (const [id, buckets] of this.tables) {
      while (buckets.length > 0 && (buckets[0]?.start ?? 0) < oldest) buckets.shift();
      if (buckets.length === 0) this.tables.delete(id);
    }
  }
}
