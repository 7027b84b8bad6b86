import {
  client,
  type Call,
  type ErrorRes,
  eventually,
  newProject,
  rng,
  startVectorApp,
  type VectorTestApp,
  vec,
} from './support';

interface Hit {
  id: string;
  score: number;
  metadata?: Record<string, unknown>;
  embedding?: number[];
}
interface Fetched {
  rows: Array<{ id: string; metadata: Record<string, unknown>; embedding?: number[] }>;
  not_found: string[];
}

const f32 = (values: number[]): number[] => Array.from(Float32Array.from(values));

describe('vector-api: upsert, fetch, update, delete by filter, list ids, count, batch queries', () => {
  let t: VectorTestApp;
  let call: Call;

  beforeAll(async () => {
    t = await startVectorApp();
    call = client(t.app, (await newProject(t.app, 'more')).token);
  });
  afterAll(async () => {
    await t.close();
  });

  async function table(name: string, dimension = 3, extra: Record<string, unknown> = {}): Promise<void> {
    const res = await call('POST', '/v1/tables', { name, dimension, ...extra });
    expect(res.status).toBe(201);
  }

  describe('POST …/upsert', () => {
    it('inserts new ids and overwrites existing ones (embedding and metadata), in one answer', async () => {
      await table('up');
      expect(
        (
          await call('POST', '/v1/tables/up/insert', {
            rows: [{ id: 'a', embedding: [1, 0, 0], metadata: { v: 1, keep: 'no' } }],
          })
        ).status,
      ).toBe(201);
      const res = await call('POST', '/v1/tables/up/upsert', {
        rows: [
          { id: 'a', embedding: [0, 1, 0], metadata: { v: 2 } },
          { id: 'b', embedding: [0, 0, 1] },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ upserted: 2, inserted: 1, updated: 1 });
      const got = await call<Fetched>('POST', '/v1/tables/up/fetch', { ids: ['a', 'b'], include_values: true });
      expect(got.body.rows).toEqual([
        { id: 'a', metadata: { v: 2 }, embedding: [0, 1, 0] },
        { id: 'b', metadata: {}, embedding: [0, 0, 1] },
      ]);
      const q = await call<{ results: Hit[] }>('POST', '/v1/tables/up/query', { vector: [0, 1, 0], n: 1 });
      expect(q.body.results[0]).toMatchObject({ id: 'a', score: 1, metadata: { v: 2 } });
      expect((await call<{ rows: number }>('GET', '/v1/tables/up')).body.rows).toBe(2);
    });

    it('is all or nothing: one bad row rejects the batch, existing rows keep their values', async () => {
      await table('up-atomic');
      await call('POST', '/v1/tables/up-atomic/insert', { rows: [{ id: 'a', embedding: [1, 0, 0] }] });
      const res = await call<ErrorRes>('POST', '/v1/tables/up-atomic/upsert', {
        rows: [
          { id: 'a', embedding: [0, 1, 0] },
          { id: 'c', embedding: [0, 1] },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'dimension_mismatch', param: 'rows[1].embedding', ids: ['c'] });
      const dupe = await call<ErrorRes>('POST', '/v1/tables/up-atomic/upsert', {
        rows: [
          { id: 'a', embedding: [0, 1, 0] },
          { id: 'a', embedding: [0, 0, 1] },
        ],
      });
      expect(dupe.status).toBe(400);
      expect(dupe.body.error).toMatchObject({ code: 'parameter_invalid', param: 'rows[1].id' });
      const got = await call<Fetched>('POST', '/v1/tables/up-atomic/fetch', { ids: ['a', 'c'], include_values: true });
      expect(got.body).toEqual({ rows: [{ id: 'a', metadata: {}, embedding: [1, 0, 0] }], not_found: ['c'] });
      const missing = await call<ErrorRes>('POST', '/v1/tables/nope/upsert', { rows: [{ id: 'a', embedding: [1] }] });
      expect(missing.status).toBe(404);
    });
  });

  describe('POST …/fetch', () => {
    it('returns rows in the order asked, not_found for the others, embeddings only when asked (as stored, float32)', async () => {
      await table('fe');
      await call('POST', '/v1/tables/fe/insert', {
        rows: [
          { id: 'x', embedding: [0.1, 0.2, 0.3], metadata: { t: ['a', 'b'] } },
          { id: 'y', embedding: [1, 2, 3] },
        ],
      });
      const plain = await call<Fetched>('POST', '/v1/tables/fe/fetch', { ids: ['y', 'nope', 'x', 'y'] });
      expect(plain.status).toBe(200);
      expect(plain.body).toEqual({
        rows: [
          { id: 'y', metadata: {} },
          { id: 'x', metadata: { t: ['a', 'b'] } },
        ],
        not_found: ['nope'],
      });
      const values = await call<Fetched>('POST', '/v1/tables/fe/fetch', { ids: ['x'], include_values: true });
      expect(values.body.rows[0]?.embedding).toEqual(f32([0.1, 0.2, 0.3]));
    });

    it('validates ids (1–1000 strings) and include_values', async () => {
      for (const [body, param] of [
        [{ ids: [] }, 'ids'],
        [{ ids: Array.from({ length: 1001 }, (_, i) => `i${i}`) }, 'ids'],
        [{ ids: [1] }, 'ids[0]'],
        [{ ids: ['a'], include_values: 'yes' }, 'include_values'],
        [{}, 'ids'],
      ] as const) {
        const res = await call<ErrorRes>('POST', '/v1/tables/fe/fetch', body);
        expect([res.status, res.body.error.param]).toEqual([400, param]);
      }
    });
  });

  describe('PATCH …/vectors/{id}', () => {
    it('merges metadata (null removes a key) and replaces the embedding, keeping the row', async () => {
      await table('pa');
      await call('POST', '/v1/tables/pa/insert', {
        rows: [
          { id: 'r', embedding: [1, 0, 0], metadata: { a: 1, b: 'x', c: [1] } },
          { id: 's', embedding: [0, 0, 1] },
        ],
      });
      const res = await call('PATCH', '/v1/tables/pa/vectors/r', { metadata: { b: null, d: true, a: 2 } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: 'r', metadata: { a: 2, c: [1], d: true } });
      const emb = await call('PATCH', '/v1/tables/pa/vectors/r', { embedding: [0, 1, 0] });
      expect(emb.status).toBe(200);
      const q = await call<{ results: Hit[] }>('POST', '/v1/tables/pa/query', { vector: [0, 1, 0], n: 1, filter: { d: true } });
      expect(q.body.results).toEqual([{ id: 'r', score: 1, metadata: { a: 2, c: [1], d: true } }]);
      const byOld = await call<{ results: Hit[] }>('POST', '/v1/tables/pa/query', {
        vector: [0, 0, 1],
        n: 10,
        filter: { b: 'x' },
      });
      expect(byOld.body.results).toEqual([]);
      expect((await call<{ rows: number }>('GET', '/v1/tables/pa')).body.rows).toBe(2);
    });

    it('updates a row whose id has the longest length (512 characters, astral ones too)', async () => {
      const long = 'x'.repeat(512);
      const astral = '😀'.repeat(512);
      await call('POST', '/v1/tables/pa/insert', {
        rows: [
          { id: long, embedding: [1, 1, 0] },
          { id: astral, embedding: [1, 0, 1] },
        ],
      });
      for (const id of [long, astral]) {
        const res = await call('PATCH', `/v1/tables/pa/vectors/${encodeURIComponent(id)}`, { metadata: { long: true } });
        expect([res.status, res.body]).toEqual([200, { id, metadata: { long: true } }]);
      }
    });

    it('answers 404 for an unknown id, 400 for a wrong dimension, bad metadata, or an empty body', async () => {
      const missing = await call<ErrorRes>('PATCH', '/v1/tables/pa/vectors/nope', { metadata: { a: 1 } });
      expect(missing.status).toBe(404);
      expect(missing.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
      const dim = await call<ErrorRes>('PATCH', '/v1/tables/pa/vectors/r', { embedding: [1, 2] });
      expect([dim.status, dim.body.error.code, dim.body.error.param]).toEqual([400, 'dimension_mismatch', 'embedding']);
      // null inside an array is refused (null as a key's value removes it: merge patch)
      const meta = await call<ErrorRes>('PATCH', '/v1/tables/pa/vectors/r', { metadata: { a: { nested: [null] } } });
      expect([meta.status, meta.body.error.code, meta.body.error.param]).toEqual([
        400,
        'parameter_invalid',
        'metadata.a.nested[0]',
      ]);
      const empty = await call<ErrorRes>('PATCH', '/v1/tables/pa/vectors/r', {});
      expect([empty.status, empty.body.error.code]).toEqual([400, 'parameter_missing']);
      const extra = await call<ErrorRes>('PATCH', '/v1/tables/pa/vectors/r', { metadata: {}, id: 'z' });
      expect([extra.status, extra.body.error.code]).toEqual([400, 'parameter_unknown']);
      expect((await call<ErrorRes>('PATCH', '/v1/tables/nope/vectors/r', { metadata: {} })).status).toBe(404);
    });
  });

  describe('DELETE …/vectors by filter', () => {
    it('deletes exactly the matching rows ($or, $nin, $exists), reports the count, not_found empty', async () => {
      await table('df', 2);
      const rows = Array.from({ length: 50 }, (_, i) => ({
        id: `d${i}`,
        embedding: [1, i],
        metadata: i % 5 === 0 ? { kind: 'old' } : { kind: i % 2 === 0 ? 'even' : 'odd', n: i },
      }));
      expect((await call('POST', '/v1/tables/df/insert', { rows })).status).toBe(201);
      const res = await call('DELETE', '/v1/tables/df/vectors', { filter: { kind: 'old' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: 10, not_found: [] });
      expect((await call('POST', '/v1/tables/df/count', {})).body).toEqual({ count: 40 });
      const none = await call('DELETE', '/v1/tables/df/vectors', { filter: { kind: 'old' } });
      expect(none.body).toEqual({ deleted: 0, not_found: [] });
      const ids = await call<{ ids: string[] }>('GET', '/v1/tables/df/vectors?limit=1000');
      expect(ids.body.ids).toHaveLength(40);
      expect(ids.body.ids.some((id) => ['d0', 'd5', 'd10'].includes(id))).toBe(false);
    });

    it('refuses an empty filter (it would empty the table): delete the table instead', async () => {
      const res = await call<ErrorRes>('DELETE', '/v1/tables/df/vectors', { filter: {} });
      expect([res.status, res.body.error.code, res.body.error.param]).toEqual([400, 'filter_matches_all', 'filter']);
      expect((await call('POST', '/v1/tables/df/count', {})).body).toEqual({ count: 40 });
    });

    it('needs exactly one of ids and filter; checks the filter', async () => {
      const both = await call<ErrorRes>('DELETE', '/v1/tables/df/vectors', { ids: ['d1'], filter: {} });
      expect([both.status, both.body.error.code]).toEqual([400, 'parameter_invalid']);
      const neither = await call<ErrorRes>('DELETE', '/v1/tables/df/vectors', {});
      expect([neither.status, neither.body.error.code, neither.body.error.param]).toEqual([400, 'parameter_missing', 'ids']);
      const bad = await call<ErrorRes>('DELETE', '/v1/tables/df/vectors', { filter: { n: { $gt: 'x' } } });
      expect([bad.status, bad.body.error.code, bad.body.error.param]).toEqual([400, 'parameter_invalid', 'filter.n.$gt']);
      expect((await call('POST', '/v1/tables/df/count', {})).body).toEqual({ count: 40 });
    });
  });

  describe('GET …/vectors', () => {
    it('lists ids in byte order with a cursor, and by prefix', async () => {
      await table('li', 1);
      const ids = ['b-2', 'a-1', 'a-10', 'a-2', 'B', 'c', 'a-3', 'é', 'a-%', 'a_x'];
      await call('POST', '/v1/tables/li/insert', { rows: ids.map((id) => ({ id, embedding: [1] })) });
      const bytes = [...ids].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const url: string = `/v1/tables/li/vectors?limit=3${cursor ? `&cursor=${cursor}` : ''}`;
        const res = await call<{ ids: string[]; next_cursor: string | null }>('GET', url);
        expect(res.status).toBe(200);
        seen.push(...res.body.ids);
        cursor = res.body.next_cursor;
        pages++;
      } while (cursor !== null && pages < 10);
      expect(seen).toEqual(bytes);
      expect(pages).toBe(4);
      const pre = await call<{ ids: string[]; next_cursor: string | null }>('GET', '/v1/tables/li/vectors?prefix=a-');
      expect(pre.body).toEqual({ ids: ['a-%', 'a-1', 'a-10', 'a-2', 'a-3'], next_cursor: null });
      const pct = await call<{ ids: string[] }>('GET', '/v1/tables/li/vectors?prefix=a-%25');
      expect(pct.body.ids).toEqual(['a-%']);
    });

    it('is stable under concurrent writes: ids present throughout appear once each, in order', async () => {
      await table('li-stable', 1);
      const base = Array.from({ length: 60 }, (_, i) => `k${String(i).padStart(3, '0')}`);
      await call('POST', '/v1/tables/li-stable/insert', { rows: base.map((id) => ({ id, embedding: [1] })) });
      const seen: string[] = [];
      let cursor: string | null = null;
      let round = 0;
      do {
        const page: { body: { ids: string[]; next_cursor: string | null } } = await call<{
          ids: string[];
          next_cursor: string | null;
        }>('GET', `/v1/tables/li-stable/vectors?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...page.body.ids);
        cursor = page.body.next_cursor;
        // Between pages: new ids before and after the cursor, and deletes of ids not in `base`.
        await call('POST', '/v1/tables/li-stable/insert', {
          rows: [
            { id: `k${round}a`, embedding: [1] },
            { id: `a${round}`, embedding: [1] },
          ],
        });
        round++;
      } while (cursor !== null && round < 30);
      const fromBase = seen.filter((id) => base.includes(id));
      expect(fromBase).toEqual(base);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual([...seen].sort());
    });

    it('validates limit, cursor and prefix', async () => {
      for (const [qs, param] of [
        ['limit=0', 'limit'],
        ['limit=1001', 'limit'],
        ['limit=x', 'limit'],
        ['cursor=***', 'cursor'],
        ['cursor=', 'cursor'],
        ['cursor=AA', 'cursor'], // decodes to a NUL character, which no id holds
      ] as const) {
        const res = await call<ErrorRes>('GET', `/v1/tables/li/vectors?${qs}`);
        expect([qs, res.status, res.body.error.param]).toEqual([qs, 400, param]);
      }
    });
  });

  describe('POST …/count', () => {
    it('counts every row, or the rows a filter matches, exactly', async () => {
      await table('co', 2);
      const rows = Array.from({ length: 30 }, (_, i) => ({
        id: `c${i}`,
        embedding: [1, i],
        metadata: { i, tag: i % 3 === 0 ? ['x'] : ['y'] },
      }));
      await call('POST', '/v1/tables/co/insert', { rows });
      expect((await call('POST', '/v1/tables/co/count', {})).body).toEqual({ count: 30 });
      expect((await call('POST', '/v1/tables/co/count', { filter: { tag: 'x' } })).body).toEqual({ count: 10 });
      expect((await call('POST', '/v1/tables/co/count', { filter: { $or: [{ tag: 'x' }, { i: { $lt: 2 } }] } })).body).toEqual({
        count: 11,
      });
      expect((await call('POST', '/v1/tables/co/count', { filter: { i: { $nin: [1, 2, 3] } } })).body).toEqual({ count: 27 });
      expect((await call('POST', '/v1/tables/co/count', { filter: { nope: { $exists: true } } })).body).toEqual({ count: 0 });
      const bad = await call<ErrorRes>('POST', '/v1/tables/co/count', { filter: { i: { $regex: 'x' } } });
      expect([bad.status, bad.body.error.code]).toEqual([400, 'parameter_invalid']);
      expect((await call('POST', '/v1/tables/co/count')).body).toEqual({ count: 30 }); // no body: {}
      expect((await call('POST', '/v1/tables/co/count', { filter: { tag: { $eq: 'x' } } })).body).toEqual({ count: 10 });
      const extra = await call<ErrorRes>('POST', '/v1/tables/co/count', { filter: {}, n: 1 });
      expect([extra.status, extra.body.error.code]).toEqual([400, 'parameter_unknown']);
    });
  });

  describe('POST …/query: include_values, include_metadata, batches', () => {
    it('returns embeddings with include_values and leaves metadata out with include_metadata: false', async () => {
      await table('qi', 2);
      await call('POST', '/v1/tables/qi/insert', {
        rows: [
          { id: 'p', embedding: [0.3, 0.4], metadata: { m: 1 } },
          { id: 'q', embedding: [1, 0] },
        ],
      });
      const res = await call<{ results: Hit[] }>('POST', '/v1/tables/qi/query', {
        vector: [0.3, 0.4],
        n: 2,
        include_values: true,
        include_metadata: false,
      });
      expect(res.status).toBe(200);
      expect(res.body.results.map((r) => Object.keys(r).sort())).toEqual([
        ['embedding', 'id', 'score'],
        ['embedding', 'id', 'score'],
      ]);
      expect(res.body.results[0]).toMatchObject({ id: 'p', embedding: f32([0.3, 0.4]) });
      const dflt = await call<{ results: Hit[] }>('POST', '/v1/tables/qi/query', { vector: [0.3, 0.4], n: 1 });
      expect(dflt.body.results[0]).toEqual({ id: 'p', score: 1, metadata: { m: 1 } });
    });

    it('answers a batch with one result list per query, in order', async () => {
      const res = await call<{ results: Hit[][]; latency_ms: number }>('POST', '/v1/tables/qi/query', {
        queries: [
          { vector: [1, 0], n: 1 },
          { vector: [0.3, 0.4], n: 2, filter: { m: 1 } },
          { vector: [0, 1], n: 5 },
        ],
        include_metadata: false,
      });
      expect(res.status).toBe(200);
      expect(res.body.results.map((list) => list.map((h) => h.id))).toEqual([['q'], ['p'], ['p', 'q']]);
      expect(Number.isInteger(res.body.latency_ms)).toBe(true);
    });

    it('takes a batch over 1 MiB of JSON (VECTOR_QUERY_BODY_LIMIT_BYTES) and caps the embeddings returned', async () => {
      await table('qb', 1024);
      const v = Array.from({ length: 1024 }, (_, i) => Math.sin(i) * 0.123456789);
      await call('POST', '/v1/tables/qb/insert', { rows: [{ id: 'only', embedding: v }] });
      const queries = Array.from({ length: 100 }, () => ({ vector: v, n: 1 }));
      expect(JSON.stringify({ queries }).length).toBeGreaterThan(1_048_576);
      const res = await call<{ results: Hit[][] }>('POST', '/v1/tables/qb/query', { queries });
      expect(res.status).toBe(200);
      expect(res.body.results).toHaveLength(100);
      const many = Array.from({ length: 2 }, () => ({ vector: v, n: 600 }));
      const capped = await call<ErrorRes>('POST', '/v1/tables/qb/query', { queries: many, include_values: true });
      expect([capped.status, capped.body.error.code, capped.body.error.param]).toEqual([
        400,
        'parameter_invalid',
        'include_values',
      ]);
      expect((await call('POST', '/v1/tables/qb/query', { queries: many })).status).toBe(200);
    });

    it('checks every query of a batch before running any; limits and mixing forms are 400', async () => {
      const dim = await call<ErrorRes>('POST', '/v1/tables/qi/query', {
        queries: [
          { vector: [1, 0], n: 1 },
          { vector: [1], n: 1 },
        ],
      });
      expect([dim.status, dim.body.error.code, dim.body.error.param]).toEqual([400, 'dimension_mismatch', 'queries[1].vector']);
      const filt = await call<ErrorRes>('POST', '/v1/tables/qi/query', {
        queries: [{ vector: [1, 0], n: 1, filter: { a: { $bad: 1 } } }],
      });
      expect([filt.status, filt.body.error.param]).toEqual([400, 'queries[0].filter.a.$bad']);
      const many = await call<ErrorRes>('POST', '/v1/tables/qi/query', {
        queries: Array.from({ length: 101 }, () => ({ vector: [1, 0], n: 1 })),
      });
      expect([many.status, many.body.error.param]).toEqual([400, 'queries']);
      const mixed = await call<ErrorRes>('POST', '/v1/tables/qi/query', { vector: [1, 0], queries: [{ vector: [1, 0], n: 1 }] });
      expect([mixed.status, mixed.body.error.code, mixed.body.error.param]).toEqual([400, 'parameter_invalid', 'vector']);
      const none = await call<ErrorRes>('POST', '/v1/tables/qi/query', { n: 1 });
      expect([none.status, none.body.error.code, none.body.error.param]).toEqual([400, 'parameter_missing', 'vector']);
      const noN = await call<ErrorRes>('POST', '/v1/tables/qi/query', { vector: [1, 0] });
      expect([noN.status, noN.body.error.code, noN.body.error.param]).toEqual([400, 'parameter_missing', 'n']);
      const extra = await call<ErrorRes>('POST', '/v1/tables/qi/query', { queries: [{ vector: [1, 0], n: 1, index: 'flat' }] });
      expect([extra.status, extra.body.error.code, extra.body.error.param]).toEqual([
        400,
        'parameter_unknown',
        'queries[0].index',
      ]);
    });
  });

  describe('metrics', () => {
    it.each(['flat', 'ivf', 'hnsw'] as const)('scores dot and euclidean tables by their formulas (%s)', async (index) => {
      for (const metric of ['dot', 'euclidean'] as const) {
        const name = `m-${metric}-${index}`;
        await table(name, 2, { metric, index });
        expect((await call<{ metric: string }>('GET', `/v1/tables/${name}`)).body.metric).toBe(metric);
        await call('POST', `/v1/tables/${name}/insert`, {
          rows: [
            { id: 'big', embedding: [3, 4] },
            { id: 'near', embedding: [1, 1] },
            { id: 'far', embedding: [-2, 0] },
          ],
        });
        const res = await call<{ results: Hit[] }>('POST', `/v1/tables/${name}/query`, { vector: [1, 1], n: 3 });
        expect(res.status).toBe(200);
        if (metric === 'dot') {
          expect(res.body.results.map((h) => h.id)).toEqual(['big', 'near', 'far']);
          expect(res.body.results.map((h) => h.score)).toEqual([7, 2, -2].map((x) => expect.closeTo(x, 5) as unknown));
        } else {
          expect(res.body.results.map((h) => h.id)).toEqual(['near', 'far', 'big']);
          const expected = [0, Math.sqrt(10), Math.sqrt(13)].map((d) => 1 / (1 + d));
          expect(res.body.results.map((h) => h.score)).toEqual(expected.map((x) => expect.closeTo(x, 5) as unknown));
        }
      }
    });

    it('defaults to cosine and refuses an unknown metric', async () => {
      await table('m-default', 2);
      expect((await call<{ metric: string }>('GET', '/v1/tables/m-default')).body.metric).toBe('cosine');
      const bad = await call<ErrorRes>('POST', '/v1/tables', { name: 'm-bad', dimension: 2, metric: 'manhattan' });
      expect([bad.status, bad.body.error.param]).toEqual([400, 'metric']);
    });
  });
});

describe('vector-api: two instances see upserts, updates and deletes by filter through the change log', () => {
  let one: VectorTestApp;
  let two: VectorTestApp;
  let c1: Call;
  let c2: Call;

  beforeAll(async () => {
    one = await startVectorApp();
    two = await startVectorApp({}, one.db);
    const project = await newProject(one.app, 'replicas');
    c1 = client(one.app, project.token);
    c2 = client(two.app, project.token);
  });
  afterAll(async () => {
    await two.close();
    await one.close();
  });

  it('an upsert, an update and a delete by filter through one are visible through the other within about a second', async () => {
    const rand = rng(7);
    expect((await c1('POST', '/v1/tables', { name: 'rep', dimension: 4, index: 'hnsw' })).status).toBe(201);
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: `r${i}`, embedding: vec(rand, 4), metadata: { g: i % 4 } }));
    expect((await c1('POST', '/v1/tables/rep/insert', { rows })).status).toBe(201);
    expect(
      await eventually(async () => (await c2<{ count: number }>('POST', '/v1/tables/rep/count', {})).body.count === 40),
    ).toBe(true);

    const target = [9, -9, 9, -9];
    expect(
      (await c1('POST', '/v1/tables/rep/upsert', { rows: [{ id: 'r1', embedding: target, metadata: { g: 'new' } }] })).status,
    ).toBe(200);
    expect(
      await eventually(async () => {
        const q = await c2<{ results: Hit[] }>('POST', '/v1/tables/rep/query', { vector: target, n: 1, filter: { g: 'new' } });
        return q.body.results[0]?.id === 'r1';
      }, 20),
    ).toBe(true);

    expect((await c1('PATCH', '/v1/tables/rep/vectors/r2', { metadata: { g: 'patched' } })).status).toBe(200);
    expect(
      await eventually(
        async () => (await c2<{ count: number }>('POST', '/v1/tables/rep/count', { filter: { g: 'patched' } })).body.count === 1,
        20,
      ),
    ).toBe(true);

    const del = await c1<{ deleted: number }>('DELETE', '/v1/tables/rep/vectors', { filter: { g: 0 } });
    expect(del.body.deleted).toBe(10);
    expect(
      await eventually(async () => {
        const q = await c2<{ results: Hit[] }>('POST', '/v1/tables/rep/query', { vector: target, n: 100, filter: { g: 0 } });
        return q.body.results.length === 0;
      }, 20),
    ).toBe(true);
    expect((await c2<{ count: number }>('POST', '/v1/tables/rep/count', {})).body.count).toBe(30);
  });

  it('a delete by filter through one instance sees rows written through the other just before', async () => {
    expect((await c1('POST', '/v1/tables', { name: 'rep2', dimension: 2 })).status).toBe(201);
    expect(
      (await c2('POST', '/v1/tables/rep2/insert', { rows: [{ id: 'z', embedding: [1, 0], metadata: { doomed: true } }] })).status,
    ).toBe(201);
    // Instance one may not have polled yet: the delete catches up under the table's lock first.
    const del = await c1<{ deleted: number }>('DELETE', '/v1/tables/rep2/vectors', { filter: { doomed: true } });
    expect(del.body.deleted).toBe(1);
    expect((await c2<{ count: number }>('POST', '/v1/tables/rep2/count', {})).body.count).toBe(0);
  });
});

describe('vector-api: snapshots hold upserts, updates and deletes by filter', () => {
  it('a new instance loaded from a snapshot taken after them answers as the one that wrote them', async () => {
    const env = { VECTOR_SNAPSHOT_MIN_CHANGES: '1', VECTOR_SNAPSHOT_CHECK_MS: '100' };
    const one = await startVectorApp(env);
    let two: VectorTestApp | undefined;
    try {
      const project = await newProject(one.app, 'snap');
      const c1 = client(one.app, project.token);
      expect((await c1('POST', '/v1/tables', { name: 'snap', dimension: 3, index: 'hnsw', metric: 'dot' })).status).toBe(201);
      const rows = Array.from({ length: 30 }, (_, i) => ({ id: `s${i}`, embedding: [1, i / 10, 0], metadata: { g: i % 3 } }));
      expect((await c1('POST', '/v1/tables/snap/insert', { rows })).status).toBe(201);
      expect(
        (await c1('POST', '/v1/tables/snap/upsert', { rows: [{ id: 's1', embedding: [0, 0, 5], metadata: { g: 'up' } }] }))
          .status,
      ).toBe(200);
      expect((await c1('PATCH', '/v1/tables/snap/vectors/s2', { metadata: { g: null, patched: true } })).status).toBe(200);
      expect((await c1<{ deleted: number }>('DELETE', '/v1/tables/snap/vectors', { filter: { g: 0 } })).body.deleted).toBe(10);
      // Wait for a snapshot that covers every write above (applied_seq is the last one's seq).
      const covered = await eventually(async () => {
        const d = (await c1<{ index_status: { details: Record<string, number> } }>('GET', '/v1/tables/snap')).body.index_status
          .details;
        return d.snapshot_seq !== undefined && d.snapshot_seq >= (d.applied_seq ?? Infinity);
      }, 200);
      expect(covered).toBe(true);

      two = await startVectorApp(env, one.db);
      const c2 = client(two.app, project.token);
      const table = await c2<{ rows: number; metric: string; index_status: { details: Record<string, number> } }>(
        'GET',
        '/v1/tables/snap',
      );
      expect(table.body).toMatchObject({ rows: 20, metric: 'dot' });
      expect(table.body.index_status.details.from_snapshot).toBe(1);
      const top = await c2<{ results: Hit[] }>('POST', '/v1/tables/snap/query', { vector: [0, 0, 1], n: 1 });
      expect(top.body.results[0]).toMatchObject({ id: 's1', score: 5, metadata: { g: 'up' } });
      expect((await c2('POST', '/v1/tables/snap/count', { filter: { patched: true } })).body).toEqual({ count: 1 });
      expect((await c2('POST', '/v1/tables/snap/count', { filter: { g: 0 } })).body).toEqual({ count: 0 });
      expect((await c2('POST', '/v1/tables/snap/count', { filter: { g: { $exists: false } } })).body).toEqual({ count: 1 });
    } finally {
      await two?.close();
      await one.close();
    }
  });
});
