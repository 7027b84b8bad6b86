import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import { QdrantClient, QdrantClientResourceExhaustedError } from '@qdrant/js-client-rest';
import { newProject, startVectorApp, type VectorTestApp } from './support';

// The official Qdrant JS client, unmodified, against vector-api listening on 127.0.0.1
// (docs/qdrant.md): every route it calls, ids of both kinds, filters, scroll, count,
// payload edits, isolation, auth, scores.

/** The error a client call threw (its status and Qdrant body), or a failure when it did not throw. */
async function failure(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await call;
  } catch (err) {
    const e = err as { status?: number; message?: string; data?: { status?: { error?: string } } };
    return { status: e.status ?? 0, message: e.data?.status?.error ?? e.message ?? '' };
  }
  throw new Error('expected the call to fail');
}

interface Scored {
  id: number | string;
  score: number;
  payload?: Record<string, unknown>;
}

describe('Qdrant-compatible API through @qdrant/js-client-rest', () => {
  let t: VectorTestApp;
  let url: string;
  let key: string;

  /** A route the 1.19 client no longer wraps (legacy search, recommend…), called over HTTP with the api-key header. */
  const http = async (
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: { result?: unknown; status: unknown } }> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as { result?: unknown; status: unknown } };
  };
  const search = async (c: string, body: unknown): Promise<Scored[]> => {
    const res = await http('POST', `/collections/${c}/points/search`, body);
    if (res.status !== 200) throw Object.assign(new Error('search failed'), { status: res.status, data: res.body });
    return res.body.result as Scored[];
  };
  let client: QdrantClient;
  let other: QdrantClient;
  let warn: jest.SpiedFunction<typeof console.warn>;

  beforeAll(async () => {
    t = await startVectorApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const mine = await newProject(t.app, 'qdrant-a');
    key = mine.token;
    const theirs = await newProject(t.app, 'qdrant-b');
    warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    client = new QdrantClient({ url, apiKey: mine.token });
    other = new QdrantClient({ url, apiKey: theirs.token });
  });

  afterAll(async () => {
    warn.mockRestore();
    await t.close();
  });

  it('GET / answers a compatible version (the client does not warn about it)', async () => {
    const res = await fetch(`${url}/`);
    expect(await res.json()).toEqual({ title: 'vector-api', version: '1.19.0' });
    const versionWarnings = warn.mock.calls.filter(
      (c) => String(c[0]).includes('incompatible') || String(c[0]).includes('Failed to obtain'),
    );
    expect(versionWarnings).toEqual([]);
  });

  it('creates, describes, lists and checks collections; refuses what it does not support', async () => {
    expect(await client.createCollection('Docs.v1', { vectors: { size: 3, distance: 'Cosine' } })).toBe(true);
    expect(await client.collectionExists('Docs.v1')).toEqual({ exists: true });
    expect(await client.collectionExists('nope')).toEqual({ exists: false });
    const { collections } = await client.getCollections();
    expect(collections.map((c) => c.name)).toContain('Docs.v1');
    const info = await client.getCollection('Docs.v1');
    expect(info).toMatchObject({ status: 'green', optimizer_status: 'ok', points_count: 0 });
    expect(info.config.params.vectors).toEqual({ size: 3, distance: 'Cosine' });
    const again = await failure(client.createCollection('Docs.v1', { vectors: { size: 3, distance: 'Cosine' } }));
    expect(again.status).toBe(409);
    expect(again.message).toContain('already exists');
    const manhattan = await failure(client.createCollection('m', { vectors: { size: 3, distance: 'Manhattan' } }));
    expect(manhattan).toMatchObject({ status: 400 });
    expect(manhattan.message).toContain('Manhattan');
    const named = await failure(client.createCollection('n', { vectors: { a: { size: 3, distance: 'Cosine' } } }));
    expect(named.message).toContain('Named vectors');
    const sparse = await failure(
      client.createCollection('s', { vectors: { size: 3, distance: 'Cosine' }, sparse_vectors: { text: {} } }),
    );
    expect(sparse.message).toContain('sparse_vectors');
  });

  it('upserts points with integer and UUID ids, retrieves, queries, searches and scores as Qdrant', async () => {
    const uuid = '9F1B2C3D-4E5F-4A6B-8C7D-0E1F2A3B4C5D';
    const res = await client.upsert('Docs.v1', {
      wait: true,
      points: [
        { id: 1, vector: [1, 0, 0], payload: { source: 'a', n: 1 } },
        { id: 2, vector: [0, 1, 0], payload: { source: 'b', n: 2 } },
        { id: uuid, vector: [-1, 0, 0], payload: { source: 'c', n: 3 } },
      ],
    });
    expect(res).toMatchObject({ status: 'completed' });
    await client.upsert('Docs.v1', {
      batch: {
        ids: [4, 5],
        vectors: [
          [0, 0, 1],
          [1, 1, 0],
        ],
        payloads: [{ source: 'a', n: 4 }, null],
      },
    });

    const got = await client.retrieve('Docs.v1', { ids: [1, uuid, 99], with_vector: true });
    expect(got.map((p) => p.id)).toEqual([1, uuid.toLowerCase()]);
    expect(got[0]).toMatchObject({ payload: { source: 'a', n: 1 }, vector: [1, 0, 0] });

    const hits = await search('Docs.v1', { vector: [1, 0, 0], limit: 5, with_payload: true });
    expect(hits[0]).toMatchObject({ id: 1, score: expect.closeTo(1, 5), payload: { source: 'a', n: 1 } });
    // Cosine similarity, not clamped: the opposite vector scores -1.
    expect(hits[hits.length - 1]).toMatchObject({ id: uuid.toLowerCase(), score: expect.closeTo(-1, 5) });

    const q = await client.query('Docs.v1', {
      query: [1, 0, 0],
      limit: 2,
      filter: { must: [{ key: 'source', match: { value: 'a' } }] },
    });
    expect(q.points.map((p) => p.id)).toEqual([1, 4]);
    const any = await client.query('Docs.v1', {
      query: { nearest: [0, 1, 0] },
      filter: {
        must: [
          { key: 'source', match: { any: ['b', 'c'] } },
          { key: 'n', range: { gte: 2, lt: 3 } },
        ],
      },
      with_payload: true,
    });
    expect(any.points).toEqual([expect.objectContaining({ id: 2, payload: { source: 'b', n: 2 } })]);
    // has_id, is_empty, is_null, except, text, min_should and must_not reach the engine once the
    // filter language's extension (issue 34) is merged: their translation is unit-tested (qdrant-filter.spec.ts).

    const batch = await http('POST', '/collections/Docs.v1/points/search/batch', {
      searches: [
        { vector: [0, 0, 1], limit: 1 },
        { vector: [0, 1, 0], limit: 1 },
      ],
    });
    expect((batch.body.result as Scored[][]).map((b) => b[0]?.id)).toEqual([4, 2]);
    const qb = await client.queryBatch('Docs.v1', { searches: [{ query: [0, 0, 1], limit: 1 }] });
    expect(qb[0].points[0]?.id).toBe(4);

    expect(await client.count('Docs.v1', { exact: true })).toEqual({ count: 5 });
    expect(await client.count('Docs.v1', { filter: { must: [{ key: 'source', match: { value: 'a' } }] } })).toEqual({ count: 2 });
  });

  it('euclid scores are the distance, lowest first; dot the dot product', async () => {
    await client.createCollection('euclid', { vectors: { size: 2, distance: 'Euclid' } });
    await client.upsert('euclid', {
      points: [
        { id: 1, vector: [3, 4] },
        { id: 2, vector: [1, 0] },
        { id: 3, vector: [0, 0] },
      ],
    });
    const hits = await search('euclid', { vector: [0, 0], limit: 3 });
    expect(hits.map((h) => h.id)).toEqual([3, 2, 1]);
    expect(hits.map((h) => h.score)).toEqual([0, 1, 5]);
    await client.createCollection('dot', { vectors: { size: 2, distance: 'Dot' } });
    await client.upsert('dot', { points: [{ id: 1, vector: [3, 4] }] });
    expect((await search('dot', { vector: [2, 1] }))[0]?.score).toBeCloseTo(10, 5);
  });

  it('scrolls through a whole collection without skipping or repeating', async () => {
    await client.createCollection('scroll', { vectors: { size: 2, distance: 'Cosine' } });
    const ids = Array.from({ length: 57 }, (_, i) => i + 1);
    await client.upsert('scroll', { points: ids.map((id) => ({ id, vector: [1, id], payload: { even: id % 2 === 0 } })) });
    const seen: Array<string | number> = [];
    let offset: string | number | null | undefined = undefined;
    do {
      const page: Awaited<ReturnType<QdrantClient['scroll']>> = await client.scroll('scroll', {
        limit: 10,
        ...(offset == null ? {} : { offset }),
      });
      seen.push(...page.points.map((p) => p.id));
      offset = page.next_page_offset as string | number | null | undefined;
    } while (offset != null);
    expect([...seen].sort((a, b) => Number(a) - Number(b))).toEqual(ids);
    expect(new Set(seen).size).toBe(ids.length);
    const evens = await client.scroll('scroll', { filter: { must: [{ key: 'even', match: { value: true } }] }, limit: 100 });
    expect(evens.points).toHaveLength(28);
    expect(evens.next_page_offset).toBeNull();
    const order = await failure(client.scroll('scroll', { order_by: 'even' }));
    expect(order.message).toContain('order_by');
  });

  it('answers every filter condition over nested payloads (with nulls) as Qdrant defines it', async () => {
    const uuid = '0b9e8c36-61f8-4c35-9a0b-2d8c3c2e4f10';
    await client.createCollection('filters', { vectors: { size: 2, distance: 'Cosine' } });
    await client.upsert('filters', {
      wait: true,
      points: [
        { id: 1, vector: [1, 0], payload: { meta: { source: 'a', year: 2020 }, tags: ['x', 'y'], title: 'Alpha beta' } },
        { id: 2, vector: [0, 1], payload: { meta: { source: 'b', year: 2022 }, tags: ['y'], title: 'Gamma', note: null } },
        {
          id: 3,
          vector: [1, 1],
          payload: {
            meta: { source: 'a', year: 2024 },
            tags: [],
            title: 'beta gamma',
            authors: [{ name: 'ann' }, { name: 'bob' }],
          },
        },
        { id: uuid, vector: [1, 2], payload: { meta: null, title: 'Delta' } },
        { id: 5, vector: [2, 1], payload: { title: 'alpha', authors: [{ name: 'cy' }] } },
      ],
    });
    type Filter = NonNullable<Parameters<QdrantClient['scroll']>[1]>['filter'];
    const select = async (filter: Filter): Promise<string[]> => {
      const page = await client.scroll('filters', { filter, limit: 100, with_payload: false });
      const counted = await client.count('filters', { filter, exact: true });
      expect(counted.count).toBe(page.points.length); // count and scroll agree
      return page.points.map((p) => String(p.id)).sort();
    };
    const cases: Array<[string, Filter, string[]]> = [
      ['match.value on a nested key', { must: [{ key: 'meta.source', match: { value: 'a' } }] }, ['1', '3']],
      ['match.any', { must: [{ key: 'meta.source', match: { any: ['b', 'z'] } }] }, ['2']],
      [
        'match.except (a missing or null field does not match)',
        { must: [{ key: 'meta.source', match: { except: ['a'] } }] },
        ['2'],
      ],
      ['match.text (a case-sensitive substring)', { must: [{ key: 'title', match: { text: 'beta' } }] }, ['1', '3']],
      ['range', { must: [{ key: 'meta.year', range: { gte: 2022 } }] }, ['2', '3']],
      ['is_empty (missing, null or [])', { must: [{ is_empty: { key: 'tags' } }] }, ['3', '5', uuid].sort()],
      ['is_null', { must: [{ is_null: { key: 'note' } }] }, ['2']],
      ['is_null of a nested object', { must: [{ is_null: { key: 'meta' } }] }, [uuid]],
      ['has_id with both kinds of ids', { must: [{ has_id: [1, uuid] }] }, ['1', uuid].sort()],
      ['must_not', { must_not: [{ key: 'meta.source', match: { value: 'a' } }] }, ['2', '5', uuid].sort()],
      [
        'should',
        {
          should: [
            { key: 'meta.year', range: { lt: 2021 } },
            { key: 'title', match: { text: 'Delta' } },
          ],
        },
        ['1', uuid].sort(),
      ],
      [
        'min_should',
        {
          min_should: {
            conditions: [
              { key: 'meta.source', match: { value: 'a' } },
              { key: 'meta.year', range: { gte: 2022 } },
              { key: 'tags', match: { any: ['y'] } },
            ],
            min_count: 2,
          },
        },
        ['1', '2', '3'],
      ],
      [
        'a Filter as a condition, arrays of objects with and without []',
        {
          must: [
            {
              should: [
                { key: 'authors[].name', match: { value: 'bob' } },
                { key: 'authors.name', match: { value: 'cy' } },
              ],
            },
          ],
        },
        ['3', '5'],
      ],
    ];
    for (const [name, filter, expected] of cases) {
      expect([name, await select(filter)]).toEqual([name, expected]);
    }
    // Nulls are kept in payloads written through this API.
    const [two] = await client.retrieve('filters', { ids: [2], with_payload: true });
    expect(two.payload).toEqual({ meta: { source: 'b', year: 2022 }, tags: ['y'], title: 'Gamma', note: null });
    // A query takes the same filters.
    const near = await client.query('filters', {
      query: [1, 0],
      filter: { must: [{ key: 'meta.source', match: { value: 'a' } }] },
    });
    expect(near.points.map((p) => p.id)).toEqual([1, 3]);
    // params: hnsw_ef sets the search's ef (bounded), exact scans exactly; the answer is the same here.
    for (const params of [{ hnsw_ef: 128 }, { exact: true }]) {
      const got = await client.query('filters', { query: [1, 0], limit: 5, params });
      expect(got.points.map((p) => String(p.id))).toEqual(['1', '5', '3', uuid, '2']);
    }
    for (const hnsw_ef of [0, 4097]) {
      const refused = await failure(client.query('filters', { query: [1, 0], params: { hnsw_ef } }));
      expect([refused.status, refused.message]).toEqual([400, expect.stringContaining('params.hnsw_ef')]);
    }
  });

  it('refuses a payload string or key PostgreSQL cannot store (a lone surrogate, NUL) with a 400 naming it', async () => {
    await client.createCollection('unicode', { vectors: { size: 2, distance: 'Cosine' } });
    await client.upsert('unicode', { wait: true, points: [{ id: 1, vector: [1, 0], payload: { ok: 'fine' } }] });
    const lone = await failure(
      client.upsert('unicode', { points: [{ id: 2, vector: [1, 0], payload: { a: { b: 'x\ud800' } } }] }),
    );
    expect(lone.status).toBe(400);
    expect(lone.message).toContain('points[0].payload.a.b');
    const nul = await failure(client.setPayload('unicode', { points: [1], payload: { n: [1, { ['k\u0000']: 1 }] } }));
    expect(nul.status).toBe(400);
    const [one] = await client.retrieve('unicode', { ids: [1, 2] });
    expect(one.payload).toEqual({ ok: 'fine' });
    expect((await client.count('unicode', {})).count).toBe(1);
  });

  it('upserts more than 1000 points in one request (no row cap, only the body limit), all or nothing', async () => {
    await client.createCollection('many', { vectors: { size: 2, distance: 'Dot' } });
    const ids = Array.from({ length: 1500 }, (_, i) => i + 1);
    await client.upsert('many', {
      wait: true,
      batch: { ids, vectors: ids.map((i) => [1, i]), payloads: ids.map((i) => ({ i })) },
    });
    expect((await client.count('many', {})).count).toBe(1500);
    // One bad vector refuses the whole request: nothing of it is written.
    const bad = await failure(
      client.upsert('many', { points: [...ids.map((id) => ({ id: id + 5000, vector: [1, 1] })), { id: 9999, vector: [1] }] }),
    );
    expect(bad.status).toBe(400);
    expect((await client.count('many', {})).count).toBe(1500);
  });

  it('edits payloads: set, overwrite, delete keys, clear; deletes points by id and by filter', async () => {
    await client.createCollection('payload', { vectors: { size: 2, distance: 'Cosine' } });
    await client.upsert('payload', {
      points: [
        { id: 1, vector: [1, 0], payload: { a: 1, b: 'x' } },
        { id: 2, vector: [0, 1], payload: { a: 2 } },
      ],
    });
    await client.setPayload('payload', { payload: { c: true }, points: [1] });
    expect((await client.retrieve('payload', { ids: [1] }))[0]?.payload).toEqual({ a: 1, b: 'x', c: true });
    await client.overwritePayload('payload', { payload: { z: 9 }, filter: { must: [{ key: 'a', match: { value: 2 } }] } });
    expect((await client.retrieve('payload', { ids: [2] }))[0]?.payload).toEqual({ z: 9 });
    await client.deletePayload('payload', { keys: ['b'], points: [1] });
    expect((await client.retrieve('payload', { ids: [1] }))[0]?.payload).toEqual({ a: 1, c: true });
    await client.clearPayload('payload', { points: [1] });
    expect((await client.retrieve('payload', { ids: [1] }))[0]?.payload).toEqual({});
    const missing = await failure(client.setPayload('payload', { payload: { c: 1 }, points: [77] }));
    expect(missing.status).toBe(404);
    expect(await client.createPayloadIndex('payload', { field_name: 'a', field_schema: 'integer', wait: false })).toMatchObject({
      status: 'acknowledged',
    });
    expect(await client.deletePayloadIndex('payload', 'a')).toMatchObject({ status: 'completed' });
    await client.delete('payload', { points: [1] });
    await client.delete('payload', { filter: { must: [{ key: 'z', match: { value: 9 } }] } });
    expect(await client.count('payload')).toEqual({ count: 0 });
    const point = await failure(client.api().getPoint({ collection_name: 'payload', id: 1 }));
    expect(point.status).toBe(404);
  });

  it('GET /collections/{c}/points/{id} returns the point', async () => {
    const res = await client.api().getPoint({ collection_name: 'Docs.v1', id: 2 });
    expect(res.data.result).toMatchObject({ id: 2, payload: { source: 'b', n: 2 }, vector: [0, 1, 0] });
  });

  it("another project's collection is 404 like a missing one; a bad key is 401; a bad id is 400", async () => {
    expect(await other.collectionExists('Docs.v1')).toEqual({ exists: false });
    const foreign = await failure(other.getCollection('Docs.v1'));
    expect(foreign.status).toBe(404);
    expect(foreign.message).toContain("Collection `Docs.v1` doesn't exist");
    const missing = await failure(search('missing', { vector: [1, 0, 0] }));
    expect(missing.status).toBe(404);
    const bad = new QdrantClient({ url, apiKey: 'vt_not_a_key', checkCompatibility: false });
    const denied = await failure(bad.getCollections());
    expect(denied.status).toBe(401);
    const badId = await failure(client.upsert('Docs.v1', { points: [{ id: 'not-a-uuid', vector: [1, 0, 0] }] }));
    expect(badId.status).toBe(400);
    expect(badId.message).toContain('not a valid point ID');
  });

  it('refuses recommend, discover, groups and named vectors with a 400 naming them', async () => {
    const recommend = await http('POST', '/collections/Docs.v1/points/recommend', { positive: [1], limit: 1 });
    expect(recommend).toMatchObject({ status: 400, body: { status: { error: expect.stringContaining('Recommend') } } });
    const discover = await http('POST', '/collections/Docs.v1/points/discover', { target: 1, limit: 1 });
    expect(discover).toMatchObject({ status: 400, body: { status: { error: expect.stringContaining('Discover') } } });
    expect((await failure(client.queryGroups('Docs.v1', { query: [1, 0, 0], group_by: 'source' }))).message).toContain('Grouped');
    const unknown = await http('GET', '/collections/Docs.v1/nothing-here');
    expect(unknown).toMatchObject({ status: 404, body: { status: { error: expect.stringContaining('not a route') } } });
    expect((await failure(client.query('Docs.v1', { query: { recommend: { positive: [1] } } }))).message).toContain('Recommend');
    expect((await failure(client.query('Docs.v1', { query: [1, 0, 0], using: 'text' }))).message).toContain('named vectors');
    const mmr = await failure(
      client.query('Docs.v1', { query: { nearest: [1, 0, 0], mmr: { diversity: 0.5, candidates_limit: 5 } } }),
    );
    expect(mmr).toMatchObject({ status: 400, message: expect.stringContaining('MMR') });
  });

  it('the api-key header and Authorization: Bearer both authenticate', async () => {
    const { token } = await newProject(t.app, 'qdrant-bearer');
    const res = await fetch(`${url}/collections`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ result: { collections: [] }, status: 'ok' });
  });

  it("renders the platform's own errors in Qdrant's body: malformed JSON 400, body too large 413, no key 401", async () => {
    const bad = await t.app.inject({
      method: 'POST',
      url: '/collections/Docs.v1/points/query',
      headers: { 'api-key': key, 'content-type': 'application/json' },
      payload: '{"query": [1,',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ status: { error: expect.stringContaining('invalid_json') }, time: expect.any(Number) });
    const big = await t.app.inject({
      method: 'POST',
      url: '/collections/Docs.v1/points/query',
      headers: { 'api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: [1, 0, 0], pad: 'x'.repeat(t.config.VECTOR_QUERY_BODY_LIMIT_BYTES) }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toMatchObject({ status: { error: expect.stringContaining('body_too_large') } });
    const none = await t.app.inject({ method: 'GET', url: '/collections' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ status: { error: expect.stringContaining('authentication_required') } });
    const query = await t.app.inject({ method: 'GET', url: '/collections?wait=maybe', headers: { 'api-key': key } });
    expect(query.statusCode).toBe(400);
    expect(query.json()).toMatchObject({ status: { error: expect.any(String) } });
  });

  it('drops a collection (DELETE true, then false)', async () => {
    expect(await client.deleteCollection('euclid')).toBe(true);
    expect(await client.deleteCollection('euclid')).toBe(false);
  });
});

describe('Qdrant-compatible API: the rate limit', () => {
  it("answers 429 with Retry-After in Qdrant's body, which the client turns into a resource-exhausted error", async () => {
    const t = await startVectorApp({ VECTOR_RATE_LIMIT_PER_MINUTE: '3' });
    const silence = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
      const { token } = await newProject(t.app, 'qdrant-rl');
      const client = new QdrantClient({ url, apiKey: token, checkCompatibility: false });
      let last: unknown;
      for (let i = 0; i < 10 && last === undefined; i++) {
        try {
          await client.getCollections();
        } catch (err) {
          last = err;
        }
      }
      expect(last).toBeInstanceOf(QdrantClientResourceExhaustedError);
      const res = await fetch(`${url}/collections`, { headers: { 'api-key': token } });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toMatch(/^[0-9]+$/);
      expect(await res.json()).toMatchObject({ status: { error: expect.stringContaining('rate_limit') } });
    } finally {
      silence.mockRestore();
      await t.close();
    }
  });
});
