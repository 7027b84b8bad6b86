import { client, type Call, type ErrorRes, newProject, startVectorApp, type VectorTestApp } from './support';

/**
 * Issue 34 through `/v1`: nested metadata (LangChain's `{content, metadata: {source}}`),
 * field paths in filters, the new operators, the merge-patch PATCH, and delete by a filter
 * that matches every row by its form.
 */

interface Hit {
  id: string;
  metadata?: Record<string, unknown>;
}

describe('vector-api: nested metadata and field paths', () => {
  let t: VectorTestApp;
  let call: Call;

  beforeAll(async () => {
    t = await startVectorApp();
    call = client(t.app, (await newProject(t.app, 'paths')).token);
    expect((await call('POST', '/v1/tables', { name: 'docs', dimension: 2 })).status).toBe(201);
    const res = await call('POST', '/v1/tables/docs/insert', {
      rows: [
        { id: 'a', embedding: [1, 0], metadata: { content: 'Hello vector world', metadata: { source: 'a.pdf', page: 1 } } },
        { id: 'b', embedding: [0, 1], metadata: { content: 'other', metadata: { source: 'b.pdf', page: 2 }, tags: [] } },
        { id: 'c', embedding: [1, 1], metadata: { 'metadata.source': 'a.pdf', authors: [{ name: 'ann' }, { name: 'bob' }] } },
        { id: 'd', embedding: [1, 0.5], metadata: { tags: ['x'], metadata: { source: 'c.pdf' } } },
      ],
    });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses nested metadata PostgreSQL cannot store (a lone surrogate, NUL) with a 400, on insert, upsert and PATCH', async () => {
    const lone = { id: 'bad', embedding: [1, 0], metadata: { a: { b: ['ok', 'x\ud800'] } } };
    for (const route of ['insert', 'upsert']) {
      const res = await call<ErrorRes>('POST', `/v1/tables/docs/${route}`, { rows: [lone] });
      expect([route, res.status]).toEqual([route, 400]);
    }
    const nul = await call<ErrorRes>('POST', '/v1/tables/docs/insert', {
      rows: [{ id: 'bad', embedding: [1, 0], metadata: { a: { ['k\u0000']: 1 } } }],
    });
    expect(nul.status).toBe(400);
    const patch = await call<ErrorRes>('PATCH', '/v1/tables/docs/vectors/a', { metadata: { metadata: { note: 'y\udc00' } } });
    expect(patch.status).toBe(400);
  });

  const count = async (filter: unknown): Promise<number> => {
    const res = await call<{ count: number }>('POST', '/v1/tables/docs/count', { filter });
    expect(res.status).toBe(200);
    return res.body.count;
  };
  const ids = async (filter: unknown): Promise<string[]> => {
    const res = await call<{ results: Hit[] }>('POST', '/v1/tables/docs/query', { vector: [1, 0], n: 10, filter });
    expect(res.status).toBe(200);
    return res.body.results.map((r) => r.id).sort();
  };

  it('stores nested metadata and answers it as written', async () => {
    const res = await call<{ rows: Array<{ id: string; metadata: unknown }> }>('POST', '/v1/tables/docs/fetch', { ids: ['a'] });
    expect(res.body.rows[0].metadata).toEqual({ content: 'Hello vector world', metadata: { source: 'a.pdf', page: 1 } });
  });

  it('filters by paths (nested, literal dotted key, through arrays, `[]`)', async () => {
    expect(await ids({ 'metadata.source': 'a.pdf' })).toEqual(['a', 'c']);
    expect(await ids({ 'metadata.page': { $gte: 2 } })).toEqual(['b']);
    expect(await ids({ 'authors[].name': 'bob' })).toEqual(['c']);
    expect(await count({ 'authors.name': { $in: ['ann', 'zed'] } })).toBe(1);
  });

  it('answers the new operators and filter keys', async () => {
    expect(await ids({ content: { $text: 'vector' } })).toEqual(['a']);
    expect(await ids({ 'metadata.source': { $except: ['a.pdf'] } })).toEqual(['b', 'd']);
    expect(await ids({ tags: { $isEmpty: true } })).toEqual(['a', 'b', 'c']);
    expect(await ids({ $not: { 'metadata.source': 'a.pdf' } })).toEqual(['b', 'd']);
    expect(await ids({ $hasId: ['b', 'd', 'zz'] })).toEqual(['b', 'd']);
    expect(
      await ids({
        $minShould: { filters: [{ 'metadata.source': 'a.pdf' }, { tags: { $exists: true } }, { content: 'other' }], count: 2 },
      }),
    ).toEqual(['b']);
  });

  it('400 naming the path for an unknown operator or a bad argument', async () => {
    const bad = await call<ErrorRes>('POST', '/v1/tables/docs/count', { filter: { 'metadata.source': { $like: 'a' } } });
    expect([bad.status, bad.body.error.code, bad.body.error.param]).toEqual([
      400,
      'parameter_invalid',
      'filter.metadata.source.$like',
    ]);
    expect(bad.body.error.message).toContain('$except, $text, $isNull or $isEmpty');
    const count0 = await call<ErrorRes>('POST', '/v1/tables/docs/count', { filter: { $minShould: { filters: [{}], count: 0 } } });
    expect([count0.status, count0.body.error.param]).toEqual([400, 'filter.$minShould.count']);
  });

  it('PATCH merges nested objects recursively (null removes, at any level)', async () => {
    const res = await call('PATCH', '/v1/tables/docs/vectors/b', { metadata: { metadata: { page: null, lang: 'en' } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'b', metadata: { content: 'other', metadata: { source: 'b.pdf', lang: 'en' }, tags: [] } });
    expect(await ids({ 'metadata.lang': 'en' })).toEqual(['b']);
    expect(await count({ 'metadata.page': { $exists: true } })).toBe(1);
  });

  it('refuses delete by a filter that matches every row by its form', async () => {
    const res = await call<ErrorRes>('DELETE', '/v1/tables/docs/vectors', { filter: { $not: { $hasId: [] } } });
    expect([res.status, res.body.error.code]).toEqual([400, 'filter_matches_all']);
    const either = await call<ErrorRes>('DELETE', '/v1/tables/docs/vectors', {
      filter: { $or: [{ tags: { $isEmpty: true } }, { tags: { $isEmpty: false } }] },
    });
    expect([either.status, either.body.error.code]).toEqual([400, 'filter_matches_all']);
    expect(await count({})).toBe(4);
    const del = await call('DELETE', '/v1/tables/docs/vectors', { filter: { $not: { $hasId: ['a', 'b', 'c'] } } });
    expect(del.body).toEqual({ deleted: 1, not_found: [] });
    expect(await count({})).toBe(3);
  });
});
