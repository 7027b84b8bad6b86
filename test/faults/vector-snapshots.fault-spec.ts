import { Client } from 'pg';
import { createTestDatabase, queryAt, type TestDatabase } from '../support/database';
import { type Auth, newVectorToken } from './support/fixtures';
import { call, must } from './support/http';
import { assertBuilt, queuePrefix, type ServiceProcess, sleep, startService } from './support/processes';

/**
 * Table snapshots across real process deaths: a vector-api loads its tables from the newest
 * usable snapshot and the change log after it; a corrupt, partial or killed-midway snapshot
 * costs a rebuild, never a wrong answer. Answers are compared with the exact (`flat`) scan
 * of the same table, which the contract promises exact.
 */
const DIM = 16;
const TABLE = 'snap';

interface TableRes {
  rows: number;
  index_status: { state: string; details: Record<string, number> };
}
interface QueryRes {
  results: Array<{ id: string; score: number }>;
}

function vector(seed: number): number[] {
  let s = seed * 2654435761;
  const out: number[] = [];
  for (let i = 0; i < DIM; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    // a few clusters, so that hnsw and exact agree on most neighbours
    out.push(((seed % 7) - 3 + ((s % 1000) / 1000 - 0.5) * 0.8) * (i % 3 === 0 ? 1 : 0.3));
  }
  return out;
}

describe('vector-api table snapshots across restarts and crashes', () => {
  let db: TestDatabase;
  let service: ServiceProcess | undefined;
  let auth: Auth;
  const env = (extra: Record<string, string> = {}): Parameters<typeof startService>[1] => ({
    DATABASE_URL: db.url,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: queuePrefix('snap'),
    VECTOR_SNAPSHOT_CHECK_MS: '200',
    VECTOR_SNAPSHOT_MIN_CHANGES: '1000',
    VECTOR_SNAPSHOT_MAX_AGE_MS: '1800000',
    ...extra,
  });

  beforeAll(async () => {
    assertBuilt();
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await service?.kill();
    service = undefined;
  });
  afterAll(async () => {
    await db?.drop();
  });

  const table = async (): Promise<TableRes> =>
    (await must(call(service!.baseUrl, 'GET', `/v1/tables/${TABLE}`, { headers: auth }), 200)).json as TableRes;

  async function until(what: string, check: (t: TableRes) => boolean, timeoutMs = 60_000): Promise<TableRes> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const t = await table();
      if (check(t)) return t;
      if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(t)}`);
      await sleep(100);
    }
  }

  /** No tables, a service that will not snapshot on its own, and an empty hnsw table TABLE. */
  async function freshHnswTable(): Promise<ServiceProcess> {
    await queryAt(db.url, `DELETE FROM vector_tables`);
    const started = await startService('vector-api', env({ VECTOR_SNAPSHOT_MIN_CHANGES: '100000' }));
    service = started;
    auth = await newVectorToken(started.baseUrl);
    await must(
      call(started.baseUrl, 'POST', '/v1/tables', { headers: auth, body: { name: TABLE, dimension: DIM, index: 'hnsw' } }),
      201,
    );
    return started;
  }

  async function insert(from: number, to: number): Promise<void> {
    for (let start = from; start < to; start += 500) {
      const rows = [];
      for (let i = start; i < Math.min(to, start + 500); i++) rows.push({ id: `r${i}`, embedding: vector(i), metadata: { i } });
      await must(call(service!.baseUrl, 'POST', `/v1/tables/${TABLE}/insert`, { headers: auth, body: { rows } }), 201);
    }
  }

  async function remove(ids: string[]): Promise<void> {
    await must(call(service!.baseUrl, 'DELETE', `/v1/tables/${TABLE}/vectors`, { headers: auth, body: { ids } }), 200);
  }

  async function query(seed: number, index?: string): Promise<string[]> {
    const body = { vector: vector(seed), n: 10, ...(index ? { index } : {}) };
    const res = await must(call(service!.baseUrl, 'POST', `/v1/tables/${TABLE}/query`, { headers: auth, body }), 200);
    return (res.json as QueryRes).results.map((r) => r.id);
  }

  /** Every live id is found by the index (its own vector is its nearest), none of the deleted ones. */
  async function expectTable(alive: (i: number) => boolean, upTo: number): Promise<void> {
    for (let i = 0; i < upTo; i += 97) {
      const ids = await query(i);
      const exact = await query(i, 'flat');
      expect(ids.some((id) => !alive(Number(id.slice(1))))).toBe(false);
      expect(exact.some((id) => !alive(Number(id.slice(1))))).toBe(false);
      // hnsw may differ from exact on ties deep in the list; the best hit is the row itself
      if (alive(i)) expect(ids).toContain(`r${i}`);
    }
  }

  it('loads the snapshot and replays the changes after it; a corrupt one is skipped (rebuilt, still right)', async () => {
    service = await startService('vector-api', env());
    auth = await newVectorToken(service.baseUrl);
    await must(
      call(service.baseUrl, 'POST', '/v1/tables', { headers: auth, body: { name: TABLE, dimension: DIM, index: 'hnsw' } }),
      201,
    );
    await insert(0, 3000);
    const written = await until('a snapshot', (t) => (t.index_status.details.snapshot_seq ?? -1) >= 1);
    // Written once VECTOR_SNAPSHOT_MIN_CHANGES (1000) rows were in: at least their vectors.
    expect(written.index_status.details.snapshot_bytes).toBeGreaterThan(1000 * DIM * 4);
    // After the snapshot: more rows and deletes (fewer than a snapshot's worth: only in the log).
    await insert(3000, 3300);
    await remove(['r1', 'r2', 'r3', 'r3001']);
    const before = await table();
    expect(before.index_status.details.snapshot_seq).toBeLessThan(before.index_status.details.applied_seq);
    await service.kill();

    service = await startService('vector-api', env());
    const loaded = await until('index complete after the restart', (t) => t.index_status.state === 'ready');
    expect(loaded.rows).toBe(3296);
    expect(loaded.index_status.details).toMatchObject({ from_snapshot: 1, applied_seq: before.index_status.details.applied_seq });
    const alive = (i: number): boolean => i < 3300 && ![1, 2, 3, 3001].includes(i);
    await expectTable(alive, 3300);
    await service.kill();

    // One stored byte flipped: the checksum refuses the snapshot, the table is rebuilt from its rows.
    await queryAt(
      db.url,
      `UPDATE vector_snapshot_chunks SET data = set_byte(data, 100, (get_byte(data, 100) + 1) % 256)
       WHERE snapshot_id IN (SELECT id FROM vector_snapshots WHERE published_at IS NOT NULL)`,
    );
    service = await startService('vector-api', env({ VECTOR_SNAPSHOT_CHECK_MS: '600000' }));
    const rebuilt = await until('index complete after a corrupt snapshot', (t) => t.index_status.state === 'ready');
    expect(rebuilt.rows).toBe(3296);
    expect(rebuilt.index_status.details.from_snapshot).toBe(0);
    await expectTable(alive, 3300);
  });

  it('a process killed while it writes a snapshot leaves nothing half-published; the next start is right', async () => {
    service = await freshHnswTable();
    await insert(0, 20_000);
    await until('index complete', (t) => t.index_status.state === 'ready', 120_000);
    await service.kill();
    // Restarted with a snapshot due at once, while the test holds a lock that makes the
    // snapshot's chunk inserts wait: killed with the snapshot begun and not published.
    const blocker = new Client({ connectionString: db.url });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE vector_snapshot_chunks IN SHARE MODE');
      service = await startService('vector-api', env({ VECTOR_SNAPSHOT_MIN_CHANGES: '1' }));
      const deadline = Date.now() + 60_000;
      let begun = false;
      while (!begun && Date.now() < deadline) {
        const rows = await queryAt<{ n: string }>(
          db.url,
          `SELECT count(*) AS n FROM vector_snapshots WHERE published_at IS NULL`,
        );
        begun = Number(rows[0]?.n) > 0;
        if (!begun) await sleep(50);
      }
      expect(begun).toBe(true);
      await service.kill();
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    const published = await queryAt<{ n: string }>(
      db.url,
      `SELECT count(*) AS n FROM vector_snapshots WHERE published_at IS NOT NULL`,
    );
    expect(Number(published[0]?.n)).toBe(0);

    service = await startService('vector-api', env({ VECTOR_SNAPSHOT_CHECK_MS: '600000' }));
    // No usable snapshot: the graph is rebuilt, and queries meanwhile are answered exactly.
    const building = await table();
    expect(building.index_status.state).toBe('building');
    expect(building.index_status.details.pending).toBeGreaterThan(0);
    // (the same rows; equal scores may come in either order, computed by two scan kernels)
    for (const seed of [5, 500, 5000]) expect((await query(seed)).sort()).toEqual((await query(seed, 'flat')).sort());
    const t = await until('index complete after the kill', (s) => s.index_status.state === 'ready', 120_000);
    expect(t.rows).toBe(20_000);
    expect(t.index_status.details.from_snapshot).toBe(0);
    await expectTable((i) => i < 20_000, 20_000);
  });

  it('a process killed while an hnsw graph build runs (rows being added, rows deleted meanwhile): the next start is right', async () => {
    service = await freshHnswTable();
    await insert(0, 6_000);
    await until(
      'first graph built',
      (t) => t.index_status.state === 'ready' && (t.index_status.details.points ?? 0) > 0,
      120_000,
    );
    // A build extending the graph is under way when the process is killed (rows are added
    // until one is seen running); rows of the graph and rows being built are deleted meanwhile.
    let upTo = 6_000;
    let building = false;
    while (!building && upTo < 30_000) {
      await insert(upTo, upTo + 3_000);
      upTo += 3_000;
      building = ((await table()).index_status.details.building ?? 0) > 0;
    }
    expect(building).toBe(true);
    const gone = [1, 2, 3, 6_001, 6_002, upTo - 1];
    await remove(gone.map((i) => `r${i}`));
    expect((await query(upTo - 2)).includes(`r${upTo - 2}`)).toBe(true);
    await service.kill();

    service = await startService('vector-api', env({ VECTOR_SNAPSHOT_CHECK_MS: '600000' }));
    const t = await until('index complete after the kill', (s) => s.index_status.state === 'ready', 120_000);
    expect(t.rows).toBe(upTo - gone.length);
    await expectTable((i) => i < upTo && !gone.includes(i), upTo);
  });
});
