import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { vectorService } from '../../apps/vector-api/src/service';
import { startTestApp } from '../support/app';
import { createTestDatabase, queryAt, type TestDatabase } from '../support/database';
import { type Call, client, eventually, newProject, startVectorApp, type VectorTestApp } from './support';

/**
 * Start serving at once (issue 32, point 7; decisions 186–190): vector-api opens its port
 * before its tables are loaded, answers liveness at once and readiness 503 with the loading
 * progress, refuses the routes of a table's rows with 503 `table_loading` until that table
 * is loaded, loads the most recently queried tables first, and answers exactly once loaded.
 *
 * The load is held, not raced: the test holds an ACCESS EXCLUSIVE lock on `vector_changes`,
 * which every table load reads last (its catch-up), so no table can finish loading until the
 * test releases it, whatever the machine's speed. One load at a time (VECTOR_LOAD_CONCURRENCY=1)
 * makes the load order observable in the log.
 */
const DIM = 4;
const TABLES = ['t0', 't1', 't2', 't3', 't4', 't5'];
const ROWS = 30;

interface ErrorBody {
  error: { code: string; message: string; param?: string; checks?: Record<string, string>; loading?: Record<string, number> };
}
interface TableBody {
  name: string;
  rows: number;
  index_status: { state: string };
}
interface QueryBody {
  results: Array<{ id: string; score: number }>;
}

function embedding(table: number, row: number): number[] {
  return [1 + table, row + 1, (row % 3) - 1, table === row % 6 ? 2 : 0.5];
}

describe('vector-api starts serving before its tables are loaded', () => {
  let db: TestDatabase;
  let token: string;
  let projectId: string;
  let writer: VectorTestApp; // another instance, already running, sharing the database
  let callWriter: Call;

  beforeAll(async () => {
    db = await createTestDatabase();
    writer = await startVectorApp({}, db);
    ({ id: projectId, token } = await newProject(writer.app, 'startup'));
    callWriter = client(writer.app, token);
    for (const [i, name] of TABLES.entries()) {
      expect(
        (await callWriter('POST', '/v1/tables', { name, dimension: DIM, index: i % 2 === 0 ? 'flat' : 'hnsw' })).status,
      ).toBe(201);
      const rows = Array.from({ length: ROWS }, (_, r) => ({ id: `${name}-${r}`, embedding: embedding(i, r), metadata: { r } }));
      expect((await callWriter('POST', `/v1/tables/${name}/insert`, { rows })).status).toBe(201);
    }
    // Creation times one second apart (the tie-break among never-queried tables: newest first),
    // and last query times: t3 most recent, then t1, then t5; the others never queried.
    for (const [i, name] of TABLES.entries()) {
      await queryAt(
        db.url,
        `UPDATE vector_tables SET created_at = now() - make_interval(mins => 10, secs => $1) WHERE name = $2`,
        [100 - i, name],
      );
    }
    await queryAt(
      db.url,
      `UPDATE vector_tables SET last_queried_at = CASE name
         WHEN 't3' THEN now() - interval '1 minute'
         WHEN 't1' THEN now() - interval '1 hour'
         WHEN 't5' THEN now() - interval '1 day' END
       WHERE name IN ('t3', 't1', 't5')`,
    );
  });

  afterAll(async () => {
    await writer?.close();
    await db?.drop();
  });

  it('listens, answers live at once and ready 503 with progress, 503 table_loading per table, then loads in order and answers exactly', async () => {
    const lock = new Client({ connectionString: db.url });
    await lock.connect();
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE vector_changes IN ACCESS EXCLUSIVE MODE');
    let released = false;
    const release = async (): Promise<void> => {
      if (released) return;
      released = true;
      await lock.query('COMMIT');
      await lock.end();
    };

    const t = await startTestApp(
      vectorService,
      { VECTOR_LOAD_CONCURRENCY: '1', VECTOR_SYNC_INTERVAL_MS: '100' },
      { db, waitForData: false },
    );
    let pendingWrite: Promise<{ status: number }> | undefined;
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
      const http = async <T>(
        method: string,
        path: string,
        body?: unknown,
      ): Promise<{ status: number; body: T; headers: Headers }> => {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await res.text();
        return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, headers: res.headers };
      };

      // The port answers: liveness 200, readiness 503 with the progress of the load.
      expect((await http('GET', '/health/live')).status).toBe(200);
      let progress: Record<string, number> | undefined;
      expect(
        await eventually(async () => {
          const ready = await http<ErrorBody>('GET', '/health/ready');
          expect(ready.status).toBe(503); // nothing can finish loading while the lock is held
          progress = ready.body.error.loading;
          return progress?.tables_total === TABLES.length && progress.tables_loading === 1;
        }, 600),
      ).toBe(true);
      const ready = await http<ErrorBody>('GET', '/health/ready');
      expect(ready.body.error.code).toBe('service_unavailable');
      expect(ready.body.error.checks).toBeDefined(); // each dependency's state (up here, unless the machine stalls a ping)
      expect(ready.body.error.loading).toMatchObject({ tables_loaded: 0, tables_total: TABLES.length, tables_loading: 1 });
      expect(Number(ready.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

      // A query on a table not loaded yet: 503 table_loading with Retry-After (and the table moves up the queue).
      const refused = await http<ErrorBody>('POST', '/v1/tables/t0/query', { vector: embedding(0, 0), n: 3 });
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('table_loading');
      expect(refused.body.error.param).toBe('table');
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(30);
      // A write too, and it changes nothing.
      const write = await http<ErrorBody>('POST', '/v1/tables/t0/insert', { rows: [{ id: 'late', embedding: [1, 1, 1, 1] }] });
      expect(write.status).toBe(503);
      expect(write.body.error.code).toBe('table_loading');
      expect(await queryAt(db.url, `SELECT 1 FROM vector_rows WHERE id = 'late'`)).toEqual([]);

      // The catalogue answers at once: a table's description from PostgreSQL, the list, a 404.
      const described = await http<TableBody>('GET', '/v1/tables/t0');
      expect(described.status).toBe(200);
      expect(described.body).toMatchObject({ name: 't0', rows: ROWS, index_status: { state: 'loading' } });
      const listed = await http<{ data: TableBody[] }>('GET', '/v1/tables');
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((d) => d.name)).toEqual(TABLES);
      expect(listed.body.data.every((d) => d.index_status.state === 'loading' && d.rows === ROWS)).toBe(true);
      expect((await http('GET', '/v1/tables/nope')).status).toBe(404);

      // The Qdrant-compatible API answers from the catalogue too, never a 503 (LlamaIndex takes any
      // error of getCollection for "missing" and would create the collection again): yellow while loading.
      type Envelope<T> = { result: T; status: string };
      const collection = await http<Envelope<{ status: string; points_count: number }>>('GET', '/collections/t0');
      expect(collection.status).toBe(200);
      expect(collection.body.result).toMatchObject({ status: 'yellow', points_count: ROWS });
      const collections = await http<Envelope<{ collections: Array<{ name: string }> }>>('GET', '/collections');
      expect(collections.body.result.collections.map((c) => c.name).sort()).toEqual([...TABLES].sort());
      expect((await http<Envelope<{ exists: boolean }>>('GET', '/collections/t0/exists')).body.result).toEqual({ exists: true });

      // A table created on this instance while it loads is served at once (its writes wait for
      // the test's lock like every write, so it is queried empty here and written after).
      expect((await http('POST', '/v1/tables', { name: 'fresh', dimension: DIM })).status).toBe(201);
      const empty = await http<QueryBody>('POST', '/v1/tables/fresh/query', { vector: [1, 0, 0, 0], n: 1 });
      expect(empty.status).toBe(200);
      expect(empty.body.results).toEqual([]);

      // Another instance creates a table meanwhile: the list shows it (from PostgreSQL) and the
      // sync loop queues it (the progress counts it: six tables, 'fresh' and 'elsewhere').
      expect((await callWriter('POST', '/v1/tables', { name: 'elsewhere', dimension: DIM })).status).toBe(201);
      const names = (await http<{ data: TableBody[] }>('GET', '/v1/tables')).body.data.map((d) => d.name);
      expect(names).toEqual([...TABLES.slice(0, 1), 'elsewhere', ...TABLES.slice(1), 'fresh'].sort());
      expect(
        await eventually(
          async () => (await http<ErrorBody>('GET', '/health/ready')).body.error.loading?.tables_total === TABLES.length + 2,
          600,
        ),
      ).toBe(true);
      // …and writes to a table this instance is still loading (it commits after the lock goes).
      pendingWrite = callWriter('POST', '/v1/tables/t1/insert', { rows: [{ id: 'from-writer', embedding: embedding(1, 99) }] });

      await release();

      // Ready once every table is loaded.
      expect(await eventually(async () => (await http('GET', '/health/ready')).status === 200, 600, 100)).toBe(true);
      expect((await pendingWrite).status).toBe(201);
      expect((await http('POST', '/v1/tables/fresh/insert', { rows: [{ id: 'f', embedding: [1, 0, 0, 0] }] })).status).toBe(201);
      expect(
        (await http<QueryBody>('POST', '/v1/tables/fresh/query', { vector: [1, 0, 0, 0], n: 1 })).body.results[0],
      ).toMatchObject({
        id: 'f',
        score: 1,
      });

      // Loaded in order: the one in progress at the lock (most recently queried), the one a
      // request asked for, then by last query, then never-queried ones newest first.
      const order = t.logs
        .filter((l) => l.msg === 'vector table loaded' && l.project === projectId)
        .map((l) => l.table)
        .filter((name) => name !== 'fresh');
      expect(order).toEqual(['t3', 't0', 't1', 't5', 'elsewhere', 't4', 't2']);

      // Never queried so far (the refused query above did not count).
      const before = await queryAt<{ at: Date | null }>(
        db.url,
        `SELECT last_queried_at AS at FROM vector_tables WHERE name = 't4'`,
      );
      expect(before[0].at).toBeNull();

      // Exact answers from every table, the other instance's write included (caught up).
      for (const [i, name] of TABLES.entries()) {
        const q = await http<QueryBody>('POST', `/v1/tables/${name}/query`, { vector: embedding(i, 7), n: 3, index: 'flat' });
        expect(q.status).toBe(200);
        expect(q.body.results[0]).toMatchObject({ id: `${name}-7` });
        const count = await http<{ count: number }>('POST', `/v1/tables/${name}/count`, {});
        expect(count.body.count).toBe(name === 't1' ? ROWS + 1 : ROWS);
      }
      expect(
        (await http<QueryBody>('POST', '/v1/tables/t1/query', { vector: embedding(1, 99), n: 1, index: 'flat' })).body.results[0],
      ).toMatchObject({ id: 'from-writer' });
      expect((await http<TableBody>('GET', '/v1/tables/t0')).body.index_status.state).not.toBe('loading');

      // A query writes the table's last query time (batched; flushed at shutdown at the latest).
      await t.close();
      const after = await queryAt<{ at: Date | null }>(
        db.url,
        `SELECT last_queried_at AS at FROM vector_tables WHERE name = 't4'`,
      );
      expect(after[0].at).not.toBeNull();
    } finally {
      await release();
      await pendingWrite?.catch(() => undefined);
      await t.close().catch(() => undefined);
    }
  }, 120_000);

  it('a starting instance without tables is ready as soon as it has listed them', async () => {
    const other = await createTestDatabase();
    const t = await startTestApp(vectorService, {}, { db: other, waitForData: false });
    try {
      expect(await eventually(async () => (await t.app.inject({ method: 'GET', url: '/health/ready' })).statusCode === 200)).toBe(
        true,
      );
    } finally {
      await t.close();
      await other.drop();
    }
  });
});
