import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { client, type Call, type ErrorRes, eventually, newToken, rng, startVectorApp, vec, type VectorTestApp } from './support';

interface QueryRes {
  results: Array<{ id: string; score: number; metadata: Record<string, unknown> }>;
}

const ids = (res: { body: QueryRes }): string[] => res.body.results.map((r) => r.id).sort();

describe('vector-api durability: a restart keeps acknowledged writes', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('rebuilds every table from PostgreSQL: rows, metadata, deletes and labels', async () => {
    const rand = rng(17);
    const rows = Array.from({ length: 60 }, (_, i) => ({
      id: `p${i}`,
      embedding: vec(rand, 8),
      metadata: { even: i % 2 === 0, i },
    }));
    const deleted = ['p0', 'p1', 'p2', 'p3', 'p4'];

    const first = await startVectorApp({}, db);
    const token = await newToken(first.app);
    let call = client(first.app, token);
    for (const index of ['flat', 'ivf', 'hnsw']) {
      expect((await call('POST', '/v1/tables', { name: `keep-${index}`, dimension: 8, index })).status).toBe(201);
      expect((await call('POST', `/v1/tables/keep-${index}/insert`, { rows })).status).toBe(201);
      expect((await call('DELETE', `/v1/tables/keep-${index}/vectors`, { ids: deleted })).body).toEqual({
        deleted: 5,
        not_found: [],
      });
    }
    const q = vec(rand, 8);
    const before = await call<QueryRes>('POST', '/v1/tables/keep-hnsw/query', { vector: q, n: 10, filter: { even: true } });
    await first.close();

    const second = await startVectorApp({}, db);
    try {
      call = client(second.app, token);
      for (const index of ['flat', 'ivf', 'hnsw']) {
        const table = await call<{ rows: number; index: string; dimension: number }>('GET', `/v1/tables/keep-${index}`);
        expect(table.body).toMatchObject({ rows: 55, index, dimension: 8 });
        const all = await call<QueryRes>('POST', `/v1/tables/keep-${index}/query`, { vector: q, n: 100 });
        expect(ids(all)).toEqual(
          rows
            .map((r) => r.id)
            .filter((id) => !deleted.includes(id))
            .sort(),
        );
        const one = all.body.results.find((r) => r.id === 'p7');
        expect(one?.metadata).toEqual({ even: false, i: 7 });
      }
      const after = await call<QueryRes>('POST', '/v1/tables/keep-hnsw/query', { vector: q, n: 10, filter: { even: true } });
      expect(after.body.results).toEqual(before.body.results);
      // Labels continue after the restart: a deleted id comes back, an existing one is refused.
      expect((await call('POST', '/v1/tables/keep-flat/insert', { rows: [{ id: 'p0', embedding: q }] })).status).toBe(201);
      const dup = await call<ErrorRes>('POST', '/v1/tables/keep-flat/insert', { rows: [{ id: 'p9', embedding: q }] });
      expect(dup.status).toBe(409);
      const top = await call<QueryRes>('POST', '/v1/tables/keep-flat/query', { vector: q, n: 1 });
      expect(top.body.results[0]?.id).toBe('p0');
    } finally {
      await second.close();
    }
  });
});

describe('vector-api: two instances on one database stay consistent', () => {
  let db: TestDatabase;
  let a: VectorTestApp;
  let b: VectorTestApp;
  let callA: Call;
  let callB: Call;
  beforeAll(async () => {
    db = await createTestDatabase();
    a = await startVectorApp({}, db);
    b = await startVectorApp({}, db);
    const token = await newToken(a.app);
    callA = client(a.app, token);
    callB = client(b.app, token);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await db.drop();
  });

  it('a table, inserts and deletes made through one are visible through the other', async () => {
    expect((await callA('POST', '/v1/tables', { name: 'shared', dimension: 3, index: 'hnsw' })).status).toBe(201);
    expect((await callB<{ name: string }>('GET', '/v1/tables/shared')).body.name).toBe('shared');
    // B has loaded the table; now A writes and B must catch up from the change sequence.
    expect(
      (await callA('POST', '/v1/tables/shared/insert', { rows: [{ id: 'x', embedding: [1, 0, 0], metadata: { k: 'v' } }] }))
        .status,
    ).toBe(201);
    const seen = await eventually(async () =>
      ids(await callB<QueryRes>('POST', '/v1/tables/shared/query', { vector: [1, 0, 0], n: 5 })).includes('x'),
    );
    expect(seen).toBe(true);
    const filtered = await callB<QueryRes>('POST', '/v1/tables/shared/query', { vector: [1, 0, 0], n: 5, filter: { k: 'v' } });
    expect(filtered.body.results).toEqual([{ id: 'x', score: 1, metadata: { k: 'v' } }]);

    expect((await callB('DELETE', '/v1/tables/shared/vectors', { ids: ['x'] })).body).toEqual({ deleted: 1, not_found: [] });
    const gone = await eventually(
      async () => ids(await callA<QueryRes>('POST', '/v1/tables/shared/query', { vector: [1, 0, 0], n: 5 })).length === 0,
    );
    expect(gone).toBe(true);
  });

  it('an id inserted through both at once is stored once; the other gets 409', async () => {
    await callA('POST', '/v1/tables', { name: 'race', dimension: 2 });
    const [r1, r2] = await Promise.all([
      callA('POST', '/v1/tables/race/insert', { rows: [{ id: 'same', embedding: [1, 0] }] }),
      callB('POST', '/v1/tables/race/insert', { rows: [{ id: 'same', embedding: [0, 1] }] }),
    ]);
    expect([r1.status, r2.status].sort()).toEqual([201, 409]);
    const converged = await eventually(async () => {
      const qa = await callA<QueryRes>('POST', '/v1/tables/race/query', { vector: [1, 1], n: 5 });
      const qb = await callB<QueryRes>('POST', '/v1/tables/race/query', { vector: [1, 1], n: 5 });
      return JSON.stringify(qa.body.results) === JSON.stringify(qb.body.results) && qa.body.results.length === 1;
    });
    expect(converged).toBe(true);
  });

  it('many interleaved writes through both converge to the same contents', async () => {
    await callB('POST', '/v1/tables', { name: 'mix', dimension: 4, index: 'ivf' });
    const rand = rng(3);
    for (let round = 0; round < 5; round++) {
      const rowsA = Array.from({ length: 20 }, (_, i) => ({ id: `a${round}-${i}`, embedding: vec(rand, 4) }));
      const rowsB = Array.from({ length: 20 }, (_, i) => ({ id: `b${round}-${i}`, embedding: vec(rand, 4) }));
      await Promise.all([
        callA('POST', '/v1/tables/mix/insert', { rows: rowsA }),
        callB('POST', '/v1/tables/mix/insert', { rows: rowsB }),
      ]);
      await Promise.all([
        callA('DELETE', '/v1/tables/mix/vectors', { ids: [`b${round}-0`, `a${round}-1`] }),
        callB('DELETE', '/v1/tables/mix/vectors', { ids: [`a${round}-2`] }),
      ]);
    }
    const q = vec(rand, 4);
    const converged = await eventually(async () => {
      const qa = ids(await callA<QueryRes>('POST', '/v1/tables/mix/query', { vector: q, n: 1000 }));
      const qb = ids(await callB<QueryRes>('POST', '/v1/tables/mix/query', { vector: q, n: 1000 }));
      return qa.length === 185 && JSON.stringify(qa) === JSON.stringify(qb);
    });
    expect(converged).toBe(true);
  });

  it('a table dropped through one disappears from the other', async () => {
    await callA('POST', '/v1/tables', { name: 'drop-me', dimension: 2 });
    expect((await callB('GET', '/v1/tables/drop-me')).status).toBe(200);
    expect((await callA('DELETE', '/v1/tables/drop-me')).status).toBe(200);
    const gone = await eventually(async () => (await callB('GET', '/v1/tables/drop-me')).status === 404);
    expect(gone).toBe(true);
  });

  it('an instance that finds a gap in the change log (pruned changes) reloads the table', async () => {
    await callA('POST', '/v1/tables', { name: 'gappy', dimension: 2 });
    expect((await callB('GET', '/v1/tables/gappy')).status).toBe(200);
    // Another writer committed two inserts; the first one's change record is already pruned.
    const f32 = (x: number, y: number): Buffer => {
      const b = Buffer.alloc(8);
      b.writeFloatLE(x, 0);
      b.writeFloatLE(y, 4);
      return b;
    };
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      await pg.query('BEGIN');
      const { rows } = await pg.query<{ id: string; seq: string }>(
        `UPDATE vector_tables SET seq = seq + 2, next_label = next_label + 2 WHERE name = 'gappy' RETURNING id, seq::text`,
      );
      const { id, seq } = rows[0];
      await pg.query(
        `INSERT INTO vector_rows (table_id, id, label, embedding) VALUES ($1, 'pruned', 0, $2), ($1, 'kept', 1, $3)`,
        [id, f32(1, 0), f32(0, 1)],
      );
      await pg.query(`INSERT INTO vector_changes (table_id, seq, op, labels) VALUES ($1, $2, 'insert', '{1}')`, [id, seq]);
      await pg.query('COMMIT');
    } finally {
      await pg.end();
    }
    const reloaded = await eventually(
      async () => ids(await callB<QueryRes>('POST', '/v1/tables/gappy/query', { vector: [1, 1], n: 5 })).join() === 'kept,pruned',
    );
    expect(reloaded).toBe(true);
  });
});
