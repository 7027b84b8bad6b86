import { partitionOf } from '../../apps/vector-api/src/tables/partition';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { client, type Call, type ErrorRes, eventually, newToken, rng, startVectorApp, vec, type VectorTestApp } from './support';

interface TableRes {
  name: string;
  rows: number;
  index_status: { state: string; details: Record<string, number> };
}
interface QueryRes {
  results: Array<{ id: string }>;
}

const DIM = 4;
/** Three tables of each partition of two (checked below with partitionOf). */
const TABLES = ['articles', 'docs_2024-v1', 'images-prod', 'embeddings_en', 'user-42', 'abcde'];
const owner = (name: string): 1 | 2 => (partitionOf(name, 2) === 1 ? 1 : 2);
/** Table i gets i + 1 rows. */
const rowsOf = (i: number): Array<{ id: string; embedding: number[] }> => {
  const rand = rng(100 + i);
  return Array.from({ length: i + 1 }, (_, r) => ({ id: `r${r}`, embedding: vec(rand, DIM) }));
};

describe('vector-api split into two partitions (VECTOR_PARTITION=1/2 and 2/2) on one database', () => {
  let db: TestDatabase;
  const apps: VectorTestApp[] = [];
  const calls: Record<1 | 2, Call> = {} as Record<1 | 2, Call>;

  const heldCount = async (p: 1 | 2): Promise<number> => {
    const res = await apps[p - 1]?.app.inject({ method: 'GET', url: '/metrics' });
    const line = /^vector_tables_held\{[^}]*\} (\d+)$/m.exec(res?.body ?? '');
    if (!line) throw new Error('vector_tables_held is not in /metrics');
    return Number(line[1]);
  };
  const list = async (p: 1 | 2): Promise<TableRes[]> => {
    const res = await calls[p]<{ data: TableRes[] }>('GET', '/v1/tables');
    expect(res.status).toBe(200);
    return res.body.data;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    apps.push(await startVectorApp({ VECTOR_PARTITION: '1/2' }, db), await startVectorApp({ VECTOR_PARTITION: '2/2' }, db));
    const token = await newToken(apps[0].app);
    calls[1] = client(apps[0].app, token);
    calls[2] = client(apps[1].app, token);
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    await db.drop();
  });

  it('the tables used here fall three into each partition', () => {
    expect(TABLES.map(owner).sort()).toEqual([1, 1, 1, 2, 2, 2]);
  });

  it('creates tables through either instance; only the owner holds one it created', async () => {
    for (const [i, name] of TABLES.entries()) {
      const through = ((i % 2) + 1) as 1 | 2;
      const res = await calls[through]<TableRes>('POST', '/v1/tables', { name, dimension: DIM });
      expect(res.status).toBe(201);
      expect(res.body.rows).toBe(0);
      expect(res.body.index_status).toEqual(
        owner(name) === through
          ? { state: 'ready', details: expect.any(Object) as unknown }
          : { state: 'not_loaded', details: { partition: owner(name) } },
      );
    }
  });

  it('inserts into and queries each table through its owner', async () => {
    for (const [i, name] of TABLES.entries()) {
      const call = calls[owner(name)];
      const rows = rowsOf(i);
      expect((await call('POST', `/v1/tables/${name}/insert`, { rows })).status).toBe(201);
      const res = await call<QueryRes>('POST', `/v1/tables/${name}/query`, { vector: rows[0]?.embedding, n: 100 });
      expect(res.status).toBe(200);
      expect(res.body.results.map((r) => r.id).sort()).toEqual(rows.map((r) => r.id).sort());
      expect((await call<TableRes>('GET', `/v1/tables/${name}`)).body.rows).toBe(i + 1);
    }
  });

  it('the other instance answers 421 table_not_in_partition on every route of a table, existing or not', async () => {
    for (const name of [...TABLES, 'no-such-table']) {
      const other = owner(name) === 1 ? 2 : 1;
      const routes: Array<[method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown]> = [
        ['GET', `/v1/tables/${name}`],
        ['POST', `/v1/tables/${name}/insert`, { rows: [{ id: 'z', embedding: [1, 0, 0, 0] }] }],
        ['POST', `/v1/tables/${name}/query`, { vector: [1, 0, 0, 0], n: 1 }],
        ['DELETE', `/v1/tables/${name}/vectors`, { ids: ['r0'] }],
      ];
      for (const [method, path, body] of routes) {
        const res = await calls[other]<ErrorRes>(method, path, body);
        expect({ route: `${method} ${path}`, status: res.status }).toEqual({ route: `${method} ${path}`, status: 421 });
        expect(res.body.error).toEqual({
          type: 'invalid_request_error',
          code: 'table_not_in_partition',
          message: `Table '${name}' belongs to partition ${owner(name)}/2; this instance serves partition ${other}/2 (VECTOR_PARTITION). Send its requests through the partition proxy.`,
          param: 'table',
          request_id: expect.stringMatching(/^req_/) as unknown,
        });
      }
    }
    // nothing reached the rows: r0 is still in every table
    for (const [i, name] of TABLES.entries()) {
      expect((await calls[owner(name)]<TableRes>('GET', `/v1/tables/${name}`)).body.rows).toBe(i + 1);
    }
  });

  it('GET /v1/tables on both lists every table with its row count; each holds only its own', async () => {
    const expected = TABLES.map((name, i) => [name, i + 1] as const).sort(([a], [b]) => a.localeCompare(b));
    for (const p of [1, 2] as const) {
      const data = await list(p);
      expect(data.map((t) => [t.name, t.rows])).toEqual(expected);
      for (const t of data) {
        if (owner(t.name) === p) expect(t.index_status.state).not.toBe('not_loaded');
        else expect(t.index_status).toEqual({ state: 'not_loaded', details: { partition: owner(t.name) } });
      }
      expect(await heldCount(p)).toBe(3);
    }
  });

  it("each instance's sync loads the tables of its partition created elsewhere, and never the others'", async () => {
    const theirs = { 1: 'sync-b', 2: 'sync-a' } as const; // created through the instance that does not own it
    expect([owner(theirs[1]), owner(theirs[2])]).toEqual([2, 1]);
    expect((await calls[1]('POST', '/v1/tables', { name: theirs[1], dimension: DIM })).status).toBe(201);
    expect((await calls[2]('POST', '/v1/tables', { name: theirs[2], dimension: DIM })).status).toBe(201);
    // No request for these tables reaches their owners: only the sync loop can load them.
    const stateIn = async (p: 1 | 2, name: string): Promise<string | undefined> =>
      (await list(p)).find((t) => t.name === name)?.index_status.state;
    expect(await eventually(async () => (await stateIn(1, theirs[2])) === 'ready')).toBe(true);
    expect(await eventually(async () => (await stateIn(2, theirs[1])) === 'ready')).toBe(true);
    // Both have synced since both tables exist: each holds its own four, not the other's.
    expect(await stateIn(1, theirs[1])).toBe('not_loaded');
    expect(await stateIn(2, theirs[2])).toBe('not_loaded');
    expect([await heldCount(1), await heldCount(2)]).toEqual([4, 4]);
  });

  it('deletes a table through the instance that does not hold it; its owner lets it go', async () => {
    const name = TABLES.find((t) => owner(t) === 2) ?? '';
    expect((await calls[1]('DELETE', `/v1/tables/${name}`)).body).toEqual({ name, deleted: true });
    expect((await list(1)).map((t) => t.name)).not.toContain(name);
    expect((await list(2)).map((t) => t.name)).not.toContain(name);
    expect(await eventually(async () => (await heldCount(2)) === 3)).toBe(true);
    expect((await calls[2]('GET', `/v1/tables/${name}`)).status).toBe(404);
  });
});
