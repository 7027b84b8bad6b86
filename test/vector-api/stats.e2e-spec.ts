import { consoleSession } from '../support/console';
import { client, type Call, type ErrorRes, newProject, startVectorApp, type VectorTestApp } from './support';

interface Stats {
  name: string;
  window_minutes: number;
  scope: string;
  query_latency: Array<{ start: string; queries: number; p50_ms: number; p95_ms: number; max_ms: number }>;
}

/** GET /v1/tables/{table}/stats: the query latency the console charts (docs/vector.md, "Query latency"). */
describe('vector-api table stats (GET /v1/tables/{table}/stats)', () => {
  let t: VectorTestApp;
  let call: Call;
  let other: Call;
  let projectId: string;

  beforeAll(async () => {
    t = await startVectorApp();
    const project = await newProject(t.app, 'stats');
    projectId = project.id;
    call = client(t.app, project.token);
    other = client(t.app, (await newProject(t.app, 'stats-other')).token);
    expect((await call('POST', '/v1/tables', { name: 'lat', dimension: 2 })).status).toBe(201);
    const rows = Array.from({ length: 20 }, (_, i) => ({ id: `r${i}`, embedding: [1, i], metadata: { even: i % 2 === 0 } }));
    expect((await call('POST', '/v1/tables/lat/insert', { rows })).status).toBe(201);
  });
  afterAll(() => t.close());

  it('a table without queries has an empty history', async () => {
    const res = await call<Stats>('GET', '/v1/tables/lat/stats');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'lat', window_minutes: 60, scope: 'instance', query_latency: [] });
  });

  it('counts every query (each of a batch) in its minute, with p50 ≤ p95 ≤ max', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await call('POST', '/v1/tables/lat/query', { vector: [1, i], n: 3 })).status).toBe(200);
    }
    const batch = await call('POST', '/v1/tables/lat/query', {
      queries: [
        { vector: [1, 0], n: 2 },
        { vector: [0, 1], n: 2, filter: { even: true } },
      ],
    });
    expect(batch.status).toBe(200);
    // a refused query is not counted
    expect((await call('POST', '/v1/tables/lat/query', { vector: [1, 2, 3], n: 1 })).status).toBe(400);

    const res = await call<Stats>('GET', '/v1/tables/lat/stats');
    expect(res.status).toBe(200);
    const buckets = res.body.query_latency;
    // the five queries fall in one minute, or two if a minute turned meanwhile
    expect(buckets.reduce((sum, b) => sum + b.queries, 0)).toBe(5);
    for (const b of buckets) {
      expect(new Date(b.start).getUTCSeconds()).toBe(0);
      expect(b.p50_ms).toBeGreaterThanOrEqual(0);
      expect(b.p95_ms).toBeGreaterThanOrEqual(b.p50_ms);
      expect(b.max_ms).toBeGreaterThanOrEqual(b.p95_ms);
    }
    const starts = buckets.map((b) => Date.parse(b.start));
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
  });

  it('works for a console session of the project, like a token', async () => {
    const session = await consoleSession(t.app, 'vector', projectId);
    const res = await t.app.inject({ method: 'GET', url: '/v1/tables/lat/stats', headers: { cookie: session.cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.json<Stats>().name).toBe('lat');
  });

  it("answers 404 resource_missing for a missing table and for another project's", async () => {
    for (const [caller, url] of [
      [call, '/v1/tables/nope/stats'],
      [other, '/v1/tables/lat/stats'],
    ] as const) {
      const res = await caller<ErrorRes>('GET', url);
      expect([res.status, res.body.error.code, res.body.error.param]).toEqual([404, 'resource_missing', 'table']);
    }
  });

  it('answers 401 without a credential', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/tables/lat/stats' });
    expect(res.statusCode).toBe(401);
    expect(res.json<ErrorRes>().error.code).toBe('authentication_required');
  });

  it("a table deleted and created again starts without the old one's history", async () => {
    expect((await call('DELETE', '/v1/tables/lat')).status).toBe(200);
    expect((await call('POST', '/v1/tables', { name: 'lat', dimension: 2 })).status).toBe(201);
    const res = await call<Stats>('GET', '/v1/tables/lat/stats');
    expect(res.body.query_latency).toEqual([]);
  });
});
