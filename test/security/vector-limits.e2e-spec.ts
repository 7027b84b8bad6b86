/**
 * Issue 14, finding 3: a hostile filter must not freeze vector-api. A 2.4 MB filter with
 * 100,000 keys on a 5,000-row table took 7.8 s (another token's GET waited 7.5 s), and the
 * cost grew faster than the size (25k/50k/100k keys → 0.6/1.3/5.1 s to answer 400):
 * class-transformer copies an object in O(keys²) before anything checked it. Filters now
 * have size limits (docs/vector.md, "Filters"), checked in one linear pass before any
 * other work, answering 400 `filter_too_complex`; queries run sliced. Behaviour is
 * asserted; durations are logged (docs/reliability.md has the measured numbers).
 */
import { performance } from 'node:perf_hooks';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { MAX_FILTER } from '../../apps/vector-api/src/engine/filter-limits';
import { type ErrorRes, newToken, rng, startVectorApp, type VectorTestApp, vec } from '../vector-api/support';

const DIM = 8;
const ROWS = 5000;

const log = (line: string): void => void process.stdout.write(`[vector-limits] ${line}\n`);

interface Timed {
  readonly status: number;
  readonly body: unknown;
  readonly ms: number;
  /** performance.now() when the response arrived, to compare arrival order. */
  readonly at: number;
}

async function timed(
  app: NestFastifyApplication,
  token: string,
  method: 'GET' | 'POST',
  url: string,
  payload?: string | object,
): Promise<Timed> {
  const started = performance.now();
  const res = await app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
  });
  const at = performance.now();
  return { status: res.statusCode, body: res.body ? res.json<unknown>() : undefined, ms: at - started, at };
}

const errorOf = (r: Timed): ErrorRes['error'] => (r.body as ErrorRes).error;

/**
 * Hostile key counts that still fit the 1 MiB body limit of every route but inserts (the
 * probe's 100,000-key, 2.4 MB filter is now refused by that limit first: see the 413 case).
 * 30,000 keys cost the old code's validation well over a second.
 */
const HOSTILE_KEYS = 30_000;

/** A filter of `keys` equality conditions, as the hostile probe sent (≈ 2.4 MB at 100,000). */
function manyKeys(keys: number): Record<string, string> {
  const filter: Record<string, string> = {};
  for (let i = 0; i < keys; i++) filter[`field_${i}`] = `value_${i}`;
  return filter;
}

describe('vector-api: filter limits (issue 14, finding 3)', () => {
  let t: VectorTestApp;
  let hostile: string;
  let other: string;
  const query = (filter: unknown) => ({ vector: vec(rng(1), DIM), n: 10, filter });

  beforeAll(async () => {
    t = await startVectorApp({ VECTOR_RATE_LIMIT_PER_MINUTE: '100000' });
    hostile = await newToken(t.app, 'hostile');
    other = await newToken(t.app, 'other');
    expect((await timed(t.app, other, 'POST', '/v1/tables', { name: 'big', dimension: DIM })).status).toBe(201);
    const rand = rng(42);
    for (let start = 0; start < ROWS; start += 1000) {
      const rows = Array.from({ length: 1000 }, (_, i) => ({
        id: `r${start + i}`,
        embedding: vec(rand, DIM),
        metadata: { k: (start + i) % 10, u: start + i, tags: ['a', (start + i) % 2 === 0 ? 'even' : 'odd'] },
      }));
      expect((await timed(t.app, other, 'POST', '/v1/tables/big/insert', { rows })).status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  it.each<[string, () => string, string]>([
    ['30,000 keys', () => JSON.stringify(query(manyKeys(HOSTILE_KEYS))), 'filter'],
    [
      '100,000 $in values',
      () => JSON.stringify(query({ u: { $in: Array.from({ length: 100_000 }, (_, i) => i) } })),
      'filter.u.$in',
    ],
    [
      'nesting 1,000 deep',
      () => `{"vector":${JSON.stringify(vec(rng(1), DIM))},"n":10,"filter":${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}}`,
      `filter${'.a'.repeat(MAX_FILTER.nesting)}`,
    ],
    ['a 100,000-character value', () => JSON.stringify(query({ k: 'x'.repeat(100_000) })), 'filter.k'],
  ])(
    '%s → 400 filter_too_complex naming where',
    async (name, body, param) => {
      const payload = body();
      const res = await timed(t.app, hostile, 'POST', '/v1/tables/big/query', payload);
      log(`${name}: ${(payload.length / 1e6).toFixed(2)} MB body → ${res.status} in ${res.ms.toFixed(0)} ms`);
      expect(res.status).toBe(400);
      expect(errorOf(res)).toMatchObject({ type: 'invalid_request_error', code: 'filter_too_complex', param });
    },
    60_000,
  );

  it('refuses one key or value over each limit, and accepts a filter at the limits', async () => {
    const atLimit: Record<string, unknown> = { u: { $in: Array.from({ length: MAX_FILTER.valuesPerArray }, (_, i) => i) } };
    for (let i = 0; (Object.keys(atLimit).length + 1) * 2 <= MAX_FILTER.keys; i++) atLimit[`missing_${i}`] = { $ne: 1 };
    const ok = await timed(t.app, other, 'POST', '/v1/tables/big/query', query(atLimit));
    expect(ok.status).toBe(200);
    expect((ok.body as { results: unknown[] }).results).toHaveLength(10);

    const overKeys = { ...atLimit, one_more: 1, and_another: 2 };
    const tooMany = await timed(t.app, other, 'POST', '/v1/tables/big/query', query(overKeys));
    expect(errorOf(tooMany)).toMatchObject({ code: 'filter_too_complex', param: 'filter' });

    const overValues = { u: { $in: Array.from({ length: MAX_FILTER.valuesPerArray + 1 }, (_, i) => i) } };
    const tooLong = await timed(t.app, other, 'POST', '/v1/tables/big/query', query(overValues));
    expect(errorOf(tooLong)).toMatchObject({ code: 'filter_too_complex', param: 'filter.u.$in' });

    const longString = await timed(
      t.app,
      other,
      'POST',
      '/v1/tables/big/query',
      query({ ['k'.repeat(MAX_FILTER.stringLength + 1)]: 1 }),
    );
    expect(errorOf(longString)).toMatchObject({ code: 'filter_too_complex' });
  });

  it("the probe's 100,000-key filter (2.4 MB, within the query route's 16 MiB) → 400 filter_too_complex; past the limit → 413", async () => {
    const payload = JSON.stringify(query(manyKeys(100_000)));
    const res = await timed(t.app, hostile, 'POST', '/v1/tables/big/query', payload);
    log(`100,000 keys: ${(payload.length / 1e6).toFixed(2)} MB body → ${res.status} in ${res.ms.toFixed(0)} ms`);
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatchObject({ type: 'invalid_request_error', code: 'filter_too_complex', param: 'filter' });
    const huge = JSON.stringify(query(manyKeys(700_000)));
    expect(huge.length).toBeGreaterThan(16 * 1024 * 1024);
    const refused = await timed(t.app, hostile, 'POST', '/v1/tables/big/query', huge);
    expect(refused.status).toBe(413);
    expect(errorOf(refused)).toMatchObject({ type: 'invalid_request_error', code: 'body_too_large' });
  });

  /** `body` with 30,000 unknown keys added (50,000 took class-transformer 1.3 s to copy before any check). */
  const withJunk = (body: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = { ...body };
    for (let i = 0; i < HOSTILE_KEYS; i++) out[`junk_${i}`] = i;
    return out;
  };

  it.each<[string, 'POST' | 'DELETE', string, () => object, string]>([
    ['query', 'POST', '/v1/tables/big/query', () => withJunk({ vector: vec(rng(1), DIM), n: 1 }), 'junk_0'],
    ['insert', 'POST', '/v1/tables/big/insert', () => withJunk({ rows: [] }), 'junk_0'],
    [
      'an insert row',
      'POST',
      '/v1/tables/big/insert',
      () => ({ rows: [withJunk({ id: 'junk', embedding: vec(rng(1), DIM) })] }),
      'rows[0].junk_0',
    ],
    ['table creation', 'POST', '/v1/tables', () => withJunk({ name: 'junk', dimension: DIM }), 'junk_0'],
    ['vector deletion', 'DELETE', '/v1/tables/big/vectors', () => withJunk({ ids: ['r1'] }), 'junk_0'],
  ])(
    '%s with 30,000 unknown keys → 400 parameter_unknown, nothing changed',
    async (name, method, url, body, param) => {
      const started = performance.now();
      const res = await t.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${hostile}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body()),
      });
      log(`${name} with 30,000 unknown keys → ${res.statusCode} in ${(performance.now() - started).toFixed(0)} ms`);
      expect(res.statusCode).toBe(400);
      expect(res.json<ErrorRes>().error).toMatchObject({ code: 'parameter_unknown', param });
      const tables = await timed(t.app, other, 'GET', '/v1/tables');
      expect((tables.body as { data: Array<{ name: string; rows: number }> }).data).toEqual([
        expect.objectContaining({ name: 'big', rows: ROWS }),
      ]);
    },
    60_000,
  );

  it('another token is answered while hostile filters are processed', async () => {
    const bodies = [
      JSON.stringify(query(manyKeys(HOSTILE_KEYS))),
      JSON.stringify(query({ u: { $in: Array.from({ length: 100_000 }, (_, i) => i) } })),
    ];
    // The worst allowed filter: every key a condition every row meets (the planner checks each row).
    const broad: Record<string, unknown> = { k: { $gte: 0 }, u: { $gte: 0 }, tags: { $in: ['a'] } };
    for (let i = 0; Object.keys(broad).length * 2 < MAX_FILTER.keys; i++) broad[`missing_${i}`] = { $ne: 1 };
    const started = performance.now();
    const hostileRequests = [
      ...bodies.map((b) => timed(t.app, hostile, 'POST', '/v1/tables/big/query', b)),
      timed(t.app, hostile, 'POST', '/v1/tables/big/query', { vector: vec(rng(2), DIM), n: 1000, filter: broad }),
    ];
    const get = timed(t.app, other, 'GET', '/v1/tables');
    const small = timed(t.app, other, 'POST', '/v1/tables/big/query', { vector: vec(rng(3), DIM), n: 5, filter: { k: 3 } });
    const [h1, h2, h3, g, s] = await Promise.all([...hostileRequests, get, small]);
    const lastHostile = Math.max(h1.at, h2.at, h3.at);
    log(
      `hostile: 30k keys ${h1.status} in ${h1.ms.toFixed(0)} ms, 100k $in ${h2.status} in ${h2.ms.toFixed(0)} ms, ` +
        `broad allowed filter ${h3.status} in ${h3.ms.toFixed(0)} ms; other token: GET /v1/tables ${g.status} in ${g.ms.toFixed(0)} ms, ` +
        `small query ${s.status} in ${s.ms.toFixed(0)} ms; other answered ${g.at <= lastHostile ? 'before' : 'after'} the last hostile response ` +
        `(${(lastHostile - started).toFixed(0)} ms)`,
    );
    expect(errorOf(h1).code).toBe('filter_too_complex');
    expect(errorOf(h2).code).toBe('filter_too_complex');
    expect(h3.status).toBe(200);
    expect((h3.body as { results: unknown[] }).results).toHaveLength(1000);
    expect(g.status).toBe(200);
    expect((g.body as { data: Array<{ name: string }> }).data.map((x) => x.name)).toEqual(['big']);
    expect(s.status).toBe(200);
    expect((s.body as { results: Array<{ metadata: { k: number } }> }).results.every((r) => r.metadata.k === 3)).toBe(true);
  }, 120_000);
});
