/**
 * Issue 31, "one vector project can stall or nearly crash the shared vector-api":
 * - a 202-byte batch (7 queries, n = 4) over rows with huge metadata answered 500 after
 *   6.9 s (`RangeError: Invalid string length` in JSON.stringify). An answer is now measured
 *   from its hits before it is built: over VECTOR_MAX_RESPONSE_BYTES → 400
 *   `response_too_large` naming what to lower. Large answers under the bound are sent in
 *   slices, byte for byte what JSON.stringify writes.
 * - rows with many distinct values grew the inverted index without bound. Past
 *   VECTOR_INDEX_MAX_DISTINCT_VALUES_PER_KEY a key is scanned instead: never refused, the
 *   same answers.
 * Limits are lowered through configuration (a 600 KB answer bound, 50 values per key);
 * docs/reliability.md has the measured figures at the defaults.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { InsertAdmission } from '../../apps/vector-api/src/tables/insert-admission';
import { LiveTables } from '../../apps/vector-api/src/tables/live-tables';
import { type Call, client, newToken, rng, startVectorApp, type VectorTestApp, vec } from '../vector-api/support';

const DIM = 4;
const ROWS = 60;
const CONTENT_BYTES = 30_000;
const MAX_RESPONSE = 600_000;
const MAX_DISTINCT = 50;

interface Hit {
  readonly id: string;
  readonly score: number;
  readonly metadata?: Record<string, unknown>;
}
interface ErrorBody {
  readonly error: { readonly code: string; readonly param?: string; readonly message: string };
}

/** LangChain's shape: `content` unique on every row (a 30 KB chunk of text, as `chunk`, a short unique key filters can name), and a few shared keys. */
const content = (i: number): string => `${'lorem ipsum '.repeat(CONTENT_BYTES / 12)}#${i}`;

describe('vector-api: bounded answers and the distinct-value budget (issue 31)', () => {
  let t: VectorTestApp;
  let app: NestFastifyApplication;
  let call: Call;
  let token: string;

  beforeAll(async () => {
    t = await startVectorApp({
      VECTOR_RATE_LIMIT_PER_MINUTE: '100000',
      VECTOR_MAX_RESPONSE_BYTES: String(MAX_RESPONSE),
      VECTOR_INDEX_MAX_DISTINCT_VALUES_PER_KEY: String(MAX_DISTINCT),
      VECTOR_INSERT_BYTES_IN_FLIGHT: '1024',
    });
    app = t.app;
    token = await newToken(app, 'answers');
    call = client(app, token);
    expect((await call('POST', '/v1/tables', { name: 'docs', dimension: DIM })).status).toBe(201);
    const rand = rng(31);
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      id: `d${i}`,
      embedding: vec(rand, DIM),
      metadata: { content: content(i), chunk: `c${i}`, source: `doc${i % 5}`, page: i % 40 },
    }));
    for (let start = 0; start < ROWS; start += 20) {
      expect((await call('POST', '/v1/tables/docs/insert', { rows: rows.slice(start, start + 20) })).status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  const query = (n: number, extra: Record<string, unknown> = {}) => ({ vector: vec(rng(n), DIM), n, ...extra });

  it("the probe's batch (7 queries, n = 4) over large metadata → 400 response_too_large naming the batch and n, not a 500", async () => {
    const res = await call<ErrorBody>('POST', '/v1/tables/docs/query', { queries: Array.from({ length: 7 }, () => query(4)) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'response_too_large', param: 'queries' });
    expect(res.body.error.message).toContain('VECTOR_MAX_RESPONSE_BYTES');
    expect(res.body.error.message).toContain('batch size');
    expect(res.body.error.message).toMatch(/lower n/);
  });

  it('one query over the bound → 400 naming n and include_metadata; the same without metadata answers', async () => {
    const res = await call<ErrorBody>('POST', '/v1/tables/docs/query', query(30));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'response_too_large', param: 'n' });
    expect(res.body.error.message).toContain('include_metadata: false');
    const slim = await call<{ results: Hit[] }>('POST', '/v1/tables/docs/query', query(30, { include_metadata: false }));
    expect(slim.status).toBe(200);
    expect(slim.body.results).toHaveLength(30);
  });

  it('embeddings that make most of an answer → param include_values; without them it answers', async () => {
    const wide = 1024;
    expect((await call('POST', '/v1/tables', { name: 'wide', dimension: wide })).status).toBe(201);
    const rand = rng(7);
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: `w${i}`, embedding: vec(rand, wide) }));
    expect((await call('POST', '/v1/tables/wide/insert', { rows })).status).toBe(201);
    const ask = { vector: vec(rand, wide), n: 40 };
    const res = await call<ErrorBody>('POST', '/v1/tables/wide/query', { ...ask, include_values: true });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'response_too_large', param: 'include_values' });
    expect(res.body.error.message).toContain('include_values');
    expect((await call('POST', '/v1/tables/wide/query', ask)).status).toBe(200);
  });

  it('an answer under the bound but large is sent in slices, byte for byte what JSON.stringify writes', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/tables/docs/query',
      headers: { authorization: `Bearer ${token}` },
      payload: query(15),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['transfer-encoding']).toBe('chunked'); // streamed: ≈ 450 KB, past the 256 KB threshold
    const body = res.json<{ results: Hit[]; latency_ms: number }>();
    expect(res.body).toBe(JSON.stringify(body));
    expect(body.results).toHaveLength(15);
    expect(body.results.every((h) => typeof h.metadata?.content === 'string')).toBe(true);

    const fetched = await app.inject({
      method: 'POST',
      url: '/v1/tables/docs/fetch',
      headers: { authorization: `Bearer ${token}` },
      payload: { ids: Array.from({ length: ROWS }, (_, i) => `d${i}`) },
    });
    expect(fetched.statusCode).toBe(200);
    expect(fetched.headers['transfer-encoding']).toBe('chunked');
    const rows = fetched.json<{ rows: Array<{ id: string; metadata: { content: string } }> }>().rows;
    expect(fetched.body).toBe(JSON.stringify({ rows, not_found: [] }));
    expect(rows.map((r) => r.metadata.content)).toEqual(Array.from({ length: ROWS }, (_, i) => content(i)));
  });

  it('a key unique on every row passes the distinct-value budget: it is scanned, never refused, and filters stay exact', async () => {
    const live = app
      .get(LiveTables)
      .all()
      .find((x) => x.name === 'docs');
    expect(live).toBeDefined();
    const stats = live?.collection.metadataIndexStats();
    expect(stats?.scannedKeys).toBe(2); // content and chunk: 60 distinct values each, over 50
    expect(stats?.distinctValues).toBe(5 + 40); // source and page stay indexed

    // After a delete and an update, filters on the scanned key still answer exactly.
    expect((await call('DELETE', '/v1/tables/docs/vectors', { ids: ['d7'] })).status).toBe(200);
    expect((await call('PATCH', '/v1/tables/docs/vectors/d8', { metadata: { chunk: 'c7' } })).status).toBe(200);
    const count = async (filter: unknown): Promise<number> =>
      (await call<{ count: number }>('POST', '/v1/tables/docs/count', { filter })).body.count;
    expect(await count({ chunk: 'c7' })).toBe(1);
    expect(await count({ chunk: 'c8' })).toBe(0);
    expect(await count({ chunk: { $in: ['c1', 'c2', 'nope'] } })).toBe(2);
    expect(await count({ chunk: { $ne: 'c1' }, source: 'doc1' })).toBe(11); // d1 left out, d6…d56 stay
    expect(await count({ $or: [{ chunk: 'c3' }, { page: { $gte: 38 } }] })).toBe(3);
    const hits = await call<{ results: Hit[] }>('POST', '/v1/tables/docs/query', query(5, { filter: { chunk: 'c7' } }));
    expect(hits.body.results.map((h) => h.id)).toEqual(['d8']);
  });

  it('inserts are admitted by a budget of body bytes in flight: concurrent ones take turns, none is refused, every byte comes back', async () => {
    const admission = app.get(InsertAdmission);
    const bodies = [0, 1, 2].map((k) => ({
      rows: Array.from({ length: 25 }, (_, i) => ({
        id: `adm${k}-${i}`,
        embedding: vec(rng(100 + k * 25 + i), DIM),
        metadata: { content: content(1000 + i) },
      })),
    }));
    const answers = await Promise.all(bodies.map((b) => call('POST', '/v1/tables/docs/insert', b)));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    const largest = Math.max(...bodies.map((b) => Buffer.byteLength(JSON.stringify(b))));
    // Over the 1 KB budget, each body was admitted alone: never two in flight at once.
    expect(admission.budget.maxInFlight).toBeLessThanOrEqual(largest);
    expect(admission.budget.inFlight).toBe(0);
    expect(admission.budget.queued).toBe(0);
  });
});
