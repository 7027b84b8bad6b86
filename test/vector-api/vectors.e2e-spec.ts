import { client, type Call, type ErrorRes, newToken, rng, startVectorApp, vec, type VectorTestApp } from './support';

interface QueryRes {
  results: Array<{ id: string; score: number; metadata: Record<string, unknown> }>;
  latency_ms: number;
}

const cos = (a: number[], b: number[]): number => {
  let d = 0;
  let na = 0;
  let nb = 0;
  a.forEach((x, i) => {
    d += x * b[i];
    na += x * x;
    nb += b[i] ** 2;
  });
  return d / Math.sqrt(na * nb);
};

/** The four rows most tests query: a ≈ b (cosine 0.99), c orthogonal, d opposite. */
const SAMPLE = [
  { id: 'a', embedding: [1, 0, 0, 0], metadata: { genre: 'jazz', year: 1959, tags: ['live', 'mono'] } },
  { id: 'b', embedding: [0.9, 0.1, 0, 0], metadata: { genre: 'rock', year: 1969 } },
  { id: 'c', embedding: [0, 1, 0, 0] },
  { id: 'd', embedding: [-1, 0, 0, 0], metadata: { genre: 'jazz', year: 1970, tags: ['studio'] } },
];

describe('vector-api vectors (insert, query, delete)', () => {
  let t: VectorTestApp;
  let call: Call;
  /** A fresh flat table holding SAMPLE, for each test (tests here insert and delete). */
  let flat: string;
  let tables = 0;
  beforeAll(async () => {
    t = await startVectorApp();
    call = client(t.app, await newToken(t.app));
    for (const [name, index] of [
      ['ivf_t', 'ivf'],
      ['hnsw_t', 'hnsw'],
    ] as const)
      expect((await call('POST', '/v1/tables', { name, dimension: 4, index })).status).toBe(201);
  });
  beforeEach(async () => {
    flat = `flat_${++tables}`;
    expect((await call('POST', '/v1/tables', { name: flat, dimension: 4, index: 'flat' })).status).toBe(201);
    expect((await call('POST', `/v1/tables/${flat}/insert`, { rows: SAMPLE })).status).toBe(201);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('insert', () => {
    it('inserts a batch (201 {inserted}) and counts rows', async () => {
      expect((await call('POST', '/v1/tables', { name: 'fresh', dimension: 4 })).status).toBe(201);
      const res = await call('POST', '/v1/tables/fresh/insert', { rows: SAMPLE });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ inserted: 4 });
      expect((await call<{ rows: number }>('GET', '/v1/tables/fresh')).body.rows).toBe(4);
    });

    it('409 for ids already in the table, naming them; nothing of the batch is inserted', async () => {
      const res = await call<ErrorRes>('POST', `/v1/tables/${flat}/insert`, {
        rows: [
          { id: 'new1', embedding: [1, 1, 0, 0] },
          { id: 'a', embedding: [1, 1, 0, 0] },
          { id: 'c', embedding: [1, 1, 0, 0] },
        ],
      });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_already_exists' });
      expect(res.body.error.ids?.sort()).toEqual(['a', 'c']);
      expect((await call<{ rows: number }>('GET', `/v1/tables/${flat}`)).body.rows).toBe(4);
      const q = await call<QueryRes>('POST', `/v1/tables/${flat}/query`, { vector: [1, 1, 0, 0], n: 10 });
      expect(q.body.results.map((r) => r.id)).not.toContain('new1');
    });

    it.each<[string, unknown[], string, string, string[]]>([
      [
        'a dimension mismatch',
        [
          { id: 'ok1', embedding: [1, 2, 3, 4] },
          { id: 'short', embedding: [1, 2, 3] },
          { id: 'long', embedding: [1, 2, 3, 4, 5] },
        ],
        'dimension_mismatch',
        'rows[1].embedding',
        ['short', 'long'],
      ],
      [
        'a duplicate id within the batch',
        [
          { id: 'x', embedding: [1, 2, 3, 4] },
          { id: 'y', embedding: [1, 2, 3, 4] },
          { id: 'x', embedding: [4, 3, 2, 1] },
        ],
        'parameter_invalid',
        'rows[2].id',
        ['x'],
      ],
      [
        'a non-finite number (1e999 parses to Infinity)',
        [
          { id: 'ok2', embedding: [1, 2, 3, 4] },
          { id: 'inf', embedding: [1, 2, 3, '__INF__'] },
        ],
        'parameter_invalid',
        'rows[1].embedding',
        ['inf'],
      ],
      ['a string in an embedding', [{ id: 's', embedding: [1, '2', 3, 4] }], 'parameter_invalid', 'rows[0].embedding', ['s']],
      [
        'a null metadata value (nested objects are fine, null only through the Qdrant API)',
        [
          { id: 'ok3', embedding: [1, 2, 3, 4], metadata: { a: { b: [1, { c: 'x' }] } } },
          { id: 'm', embedding: [1, 2, 3, 4], metadata: { a: { b: null } } },
        ],
        'parameter_invalid',
        'rows[1].metadata.a.b',
        ['m'],
      ],
    ])('400 for %s, naming the offending ids; nothing is inserted', async (_label, rows, code, param, ids) => {
      const body = JSON.stringify({ rows }).replace('"__INF__"', '1e999');
      const res = await t.app.inject({
        method: 'POST',
        url: `/v1/tables/${flat}/insert`,
        headers: { authorization: `Bearer ${await newToken(t.app)}`, 'content-type': 'application/json' },
        payload: body,
      });
      expect(res.statusCode).toBe(400);
      const error = res.json<ErrorRes>().error;
      expect(error).toMatchObject({ type: 'invalid_request_error', code, param });
      expect(error.ids).toEqual(ids);
      expect((await call<{ rows: number }>('GET', `/v1/tables/${flat}`)).body.rows).toBe(4);
    });

    it.each<[string, unknown, string, string]>([
      ['no rows field', {}, 'rows', 'parameter_missing'],
      ['an empty batch', { rows: [] }, 'rows', 'parameter_invalid'],
      ['a row without id', { rows: [{ embedding: [1, 2, 3, 4] }] }, 'rows[0].id', 'parameter_missing'],
      ['a row without embedding', { rows: [{ id: 'q' }] }, 'rows[0].embedding', 'parameter_missing'],
      [
        'an unknown row field',
        { rows: [{ id: 'q', embedding: [1, 2, 3, 4], vector: [1] }] },
        'rows[0].vector',
        'parameter_unknown',
      ],
      ['a numeric id', { rows: [{ id: 7, embedding: [1, 2, 3, 4] }] }, 'rows[0].id', 'parameter_invalid'],
      [
        'an array as metadata',
        { rows: [{ id: 'q', embedding: [1, 2, 3, 4], metadata: [1] }] },
        'rows[0].metadata',
        'parameter_invalid',
      ],
    ])('400 for %s', async (_label, body, param, code) => {
      const res = await call<ErrorRes>('POST', `/v1/tables/${flat}/insert`, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code, param });
    });

    it('accepts 1000 rows in one request and refuses 1001', async () => {
      await call('POST', '/v1/tables', { name: 'bulk', dimension: 2 });
      const rows = (n: number, p: string): unknown[] =>
        Array.from({ length: n }, (_, i) => ({ id: `${p}${i}`, embedding: [1, i] }));
      expect((await call('POST', '/v1/tables/bulk/insert', { rows: rows(1000, 'a') })).body).toEqual({ inserted: 1000 });
      const res = await call<ErrorRes>('POST', '/v1/tables/bulk/insert', { rows: rows(1001, 'b') });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'rows' });
    });

    it('400 for a body that is not JSON or not an object', async () => {
      const token = await newToken(t.app);
      const bad = await t.app.inject({
        method: 'POST',
        url: `/v1/tables/${flat}/insert`,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: '{"rows": [',
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json<ErrorRes>().error.code).toBe('invalid_json');
      const arr = await t.app.inject({
        method: 'POST',
        url: `/v1/tables/${flat}/insert`,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: '[]',
      });
      expect(arr.statusCode).toBe(400);
      expect(arr.json<ErrorRes>().error.code).toBe('body_invalid');
    });
  });

  describe('query', () => {
    it('returns the n most similar, best first, with cosine scores clamped to [0, 1] and integer latency_ms', async () => {
      const started = performance.now();
      const res = await call<QueryRes>('POST', `/v1/tables/${flat}/query`, { vector: [1, 0, 0, 0], n: 10 });
      const elapsedMs = performance.now() - started;
      expect(res.status).toBe(200);
      expect(res.body.results.map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
      expect(res.body.results[0]).toEqual({ id: 'a', score: 1, metadata: { genre: 'jazz', year: 1959, tags: ['live', 'mono'] } });
      expect(res.body.results[1]?.score).toBeCloseTo(cos([1, 0, 0, 0], [0.9, 0.1, 0, 0]), 6);
      expect(res.body.results[2]).toEqual({ id: 'c', score: 0, metadata: {} });
      expect(res.body.results[3]?.score).toBe(0); // cosine −1 clamps to 0
      // whole milliseconds, measured inside the request: never more than the round trip seen here
      expect(Number.isInteger(res.body.latency_ms)).toBe(true);
      expect(res.body.latency_ms).toBeGreaterThanOrEqual(0);
      expect(res.body.latency_ms).toBeLessThanOrEqual(Math.ceil(elapsedMs));
    });

    it('n limits the results', async () => {
      const res = await call<QueryRes>('POST', `/v1/tables/${flat}/query`, { vector: [1, 0, 0, 0], n: 2 });
      expect(res.body.results.map((r) => r.id)).toEqual(['a', 'b']);
    });

    it.each<[string, unknown, string[]]>([
      ['equality', { genre: 'jazz' }, ['a', 'd']],
      ['array contains', { tags: 'studio' }, ['d']],
      ['$in', { genre: { $in: ['rock', 'pop'] } }, ['b']],
      ['$ne (rows without the field match)', { genre: { $ne: 'jazz' } }, ['b', 'c']],
      ['range', { year: { $gte: 1960, $lt: 2000 } }, ['b', 'd']],
      ['$gt/$lte', { year: { $gt: 1959, $lte: 1969 } }, ['b']],
      ['several keys', { genre: 'jazz', year: { $lt: 1960 } }, ['a']],
      ['no match', { genre: 'blues' }, []],
    ])('filters: %s', async (_label, filter, ids) => {
      const res = await call<QueryRes>('POST', `/v1/tables/${flat}/query`, { vector: [1, 0, 0, 0], n: 10, filter });
      expect(res.status).toBe(200);
      expect(res.body.results.map((r) => r.id)).toEqual(ids);
    });

    it.each<[string, unknown, string, string]>([
      ['a dimension mismatch', { vector: [1, 0, 0], n: 1 }, 'vector', 'dimension_mismatch'],
      ['n = 0', { vector: [1, 0, 0, 0], n: 0 }, 'n', 'parameter_invalid'],
      ['n = 1001', { vector: [1, 0, 0, 0], n: 1001 }, 'n', 'parameter_invalid'],
      ['a fractional n', { vector: [1, 0, 0, 0], n: 1.5 }, 'n', 'parameter_invalid'],
      ['a missing n', { vector: [1, 0, 0, 0] }, 'n', 'parameter_missing'],
      ['a missing vector', { n: 1 }, 'vector', 'parameter_missing'],
      ['a string in the vector', { vector: [1, 0, 'x', 0], n: 1 }, 'vector', 'parameter_invalid'],
      ['an unknown index', { vector: [1, 0, 0, 0], n: 1, index: 'lsh' }, 'index', 'parameter_invalid'],
      [
        'an unknown operator',
        { vector: [1, 0, 0, 0], n: 1, filter: { year: { $regex: '9' } } },
        'filter.year.$regex',
        'parameter_invalid',
      ],
      [
        'a non-numeric range',
        { vector: [1, 0, 0, 0], n: 1, filter: { year: { $gt: '1960' } } },
        'filter.year.$gt',
        'parameter_invalid',
      ],
      ['a null condition', { vector: [1, 0, 0, 0], n: 1, filter: { genre: null } }, 'filter.genre', 'parameter_invalid'],
      ['a non-object filter', { vector: [1, 0, 0, 0], n: 1, filter: 'genre=jazz' }, 'filter', 'parameter_invalid'],
      ['an unknown field', { vector: [1, 0, 0, 0], n: 1, top_k: 3 }, 'top_k', 'parameter_unknown'],
    ])('400 for %s', async (_label, body, param, code) => {
      const res = await call<ErrorRes>('POST', `/v1/tables/${flat}/query`, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param });
    });

    it('every index returns exactly min(n, matching rows) filtered results in exact order; per-query index override', async () => {
      const rand = rng(5);
      const rows = Array.from({ length: 300 }, (_, i) => ({
        id: `r${i}`,
        embedding: vec(rand, 4),
        metadata: { bucket: i % 10, rare: i % 100 === 3 },
      }));
      for (const table of ['ivf_t', 'hnsw_t']) {
        expect((await call('POST', `/v1/tables/${table}/insert`, { rows })).status).toBe(201);
      }
      const q = vec(rand, 4);
      const expected = rows
        .filter((r) => r.metadata.rare)
        .map((r) => ({ id: r.id, score: cos(q, r.embedding) }))
        .sort((a, b) => b.score - a.score)
        .map((r) => r.id);
      for (const table of ['ivf_t', 'hnsw_t']) {
        for (const index of ['flat', 'ivf', 'hnsw', undefined]) {
          const res = await call<QueryRes>('POST', `/v1/tables/${table}/query`, {
            vector: q,
            n: 10,
            filter: { rare: true },
            ...(index ? { index } : {}),
          });
          expect(res.status).toBe(200);
          expect(res.body.results.map((r) => r.id)).toEqual(expected);
          const wide = await call<QueryRes>('POST', `/v1/tables/${table}/query`, {
            vector: q,
            n: 40,
            filter: { bucket: 3 },
            ...(index ? { index } : {}),
          });
          expect(wide.body.results).toHaveLength(30);
          const scores = wide.body.results.map((r) => r.score);
          expect(scores).toEqual([...scores].sort((a, b) => b - a));
        }
      }
    });
  });

  describe('delete', () => {
    it('200 {deleted, not_found}; deleted ids are never returned and can be inserted again', async () => {
      const res = await call('DELETE', `/v1/tables/${flat}/vectors`, { ids: ['a', 'zz', 'a', 'b'] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: 2, not_found: ['zz'] });
      const q = await call<QueryRes>('POST', `/v1/tables/${flat}/query`, { vector: [1, 0, 0, 0], n: 10 });
      expect(q.body.results.map((r) => r.id)).toEqual(['c', 'd']);
      const f = await call<QueryRes>('POST', `/v1/tables/${flat}/query`, {
        vector: [1, 0, 0, 0],
        n: 10,
        filter: { genre: 'jazz' },
      });
      expect(f.body.results.map((r) => r.id)).toEqual(['d']);
      expect((await call<{ rows: number }>('GET', `/v1/tables/${flat}`)).body.rows).toBe(2);
      expect((await call('POST', `/v1/tables/${flat}/insert`, { rows: [{ id: 'a', embedding: [0, 0, 1, 0] }] })).status).toBe(
        201,
      );
      const again = await call<QueryRes>('POST', `/v1/tables/${flat}/query`, { vector: [0, 0, 1, 0], n: 1 });
      expect(again.body.results).toEqual([{ id: 'a', score: 1, metadata: {} }]);
    });

    it('reports every id as not found when none exist', async () => {
      const res = await call('DELETE', `/v1/tables/${flat}/vectors`, { ids: ['nope1', 'nope2'] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: 0, not_found: ['nope1', 'nope2'] });
    });

    it.each<[string, unknown, string, string]>([
      ['a missing ids field', {}, 'ids', 'parameter_missing'],
      ['an empty ids array', { ids: [] }, 'ids', 'parameter_invalid'],
      ['a non-string id', { ids: [1] }, 'ids[0]', 'parameter_invalid'],
    ])('400 for %s', async (_label, body, param, code) => {
      const res = await call<ErrorRes>('DELETE', `/v1/tables/${flat}/vectors`, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code, param });
    });
  });
});
