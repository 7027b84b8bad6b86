import { performance } from 'node:perf_hooks';
import { type CollectionRow, VectorCollection } from '../engine/vector-collection';
import { type IndexKind } from '../engine/types';
import { type LiveTable, Mutex } from './live-tables';
import { summarize } from './tables.metrics';

const DIM = 8;
const HOUR_MS = 3_600_000;
const open: VectorCollection[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

function rows(from: number, n: number): CollectionRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `r${from + i}`,
    label: from + i,
    embedding: Array.from({ length: DIM }, (_, d) => Math.sin((from + i + 1) * (d + 1))),
  }));
}

/** A table held since `sinceMs`, its last snapshot written then too. */
function table(kind: IndexKind, sinceMs: number, hnsw?: { sealRows: number }): LiveTable {
  const collection = new VectorCollection(DIM, kind, hnsw ? { hnsw } : {});
  open.push(collection);
  return {
    id: `t-${open.length}`,
    projectId: 'p',
    name: `t${open.length}`,
    dimension: DIM,
    indexKind: kind,
    metric: 'cosine',
    createdAt: new Date(),
    collection,
    appliedSeq: 0n,
    mutex: new Mutex(),
    registeredEpoch: 0,
    snapshot: { seq: 0, bytes: 0, writeMs: 0, loadMs: 0, at: sinceMs },
    since: sinceMs,
  };
}

const held = (...tables: LiveTable[]) => ({
  all: () => tables,
  progress: () => ({
    tables_loaded: tables.length,
    tables_total: tables.length,
    tables_loading: 0,
    rows_loaded: 0,
    load_failures: 0,
    elapsed_ms: 0,
  }),
});

describe('summarize (the vector-api table gauges)', () => {
  it('ages the oldest change not in a snapshot, not the last snapshot: an idle table written now is at 0', () => {
    const t = table('flat', performance.now() - 2 * HOUR_MS);
    const live = held(t);
    expect(summarize(live, true).oldestSnapshotAgeSeconds).toBe(0);
    t.collection.insert(rows(0, 3));
    const first = t.collection.firstChangeAt ?? Number.NaN;
    // two hours after the last snapshot, its first change is seconds old
    expect(summarize(live, true, first + 5_000).oldestSnapshotAgeSeconds).toBeCloseTo(5, 3);
    t.collection.insert(rows(3, 3)); // later changes keep the first one's time
    expect(summarize(live, true, first + 40 * 60_000).oldestSnapshotAgeSeconds).toBeCloseTo(2400, 3);
    t.collection.changes = 0; // a snapshot written or adopted
    expect(t.collection.firstChangeAt).toBeUndefined();
    expect(summarize(live, true, first + 40 * 60_000).oldestSnapshotAgeSeconds).toBe(0);
    t.collection.insert(rows(6, 1));
    expect(summarize(live, false, first + 40 * 60_000).oldestSnapshotAgeSeconds).toBe(0); // VECTOR_SNAPSHOTS=false
  });

  it('ages the longest-running index build, and is 0 once the builds are done', async () => {
    const t = table('hnsw', performance.now(), { sealRows: 16 });
    const live = held(t, table('flat', performance.now()));
    expect(summarize(live, true).oldestBuildSeconds).toBe(0);
    const before = performance.now();
    t.collection.insert(rows(0, 200)); // past sealRows: a build is scheduled at once
    const startedAt = t.collection.buildStartedAt();
    expect(startedAt).toBeDefined();
    expect(startedAt ?? 0).toBeGreaterThanOrEqual(before);
    expect(summarize(live, true, (startedAt ?? 0) + 1_900_000).oldestBuildSeconds).toBeCloseTo(1900, 3);
    await t.collection.idle();
    expect(t.collection.buildStartedAt()).toBeUndefined();
    expect(summarize(live, true).oldestBuildSeconds).toBe(0);
  });
});
