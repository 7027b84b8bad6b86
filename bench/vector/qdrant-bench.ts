/**
 * The Qdrant-compatible route against our own (issue 34: "a query through
 * /collections/{c}/points/query costs within 10 % of the same query through /v1"). One real
 * vector-api (child process, scratch database, as http-bench.ts starts it), ONE hnsw table filled
 * through /v1, and the same query vectors sent both ways over HTTP on 127.0.0.1 at the same
 * concurrency, the two routes taking turns in every round (http-load.ts, µs timings):
 *   v1:     POST /v1/tables/bench/query               {vector, n: 10}            Authorization: Bearer
 *   qdrant: POST /collections/bench/points/query      {query: vector, limit: 10} api-key
 * Neither asks for vectors or metadata (the rows have none), so the answers carry the same ids and
 * scores; a probe checks that before measuring.
 *
 *   BENCH_VECTOR_ONLY=qdrant npm run bench:vector
 * with BENCH_HTTP_SECONDS (5), BENCH_HTTP_ROUNDS (3), BENCH_HTTP_CONNECTIONS (1,8,32),
 * BENCH_VECTOR_HTTP_ROWS (20,000), BENCH_CPU_PROF_DIR (a CPU profile of the service).
 */
import type { Dataset } from './datasets';
import { httpLoad } from './http-load';
import { envNumber, expectOk, fillHnswTable, type LoadResult, median, medianLoad } from './http-bench';
import { startScratchVectorApi } from './scratch-vector-api';

export interface QdrantLevel {
  readonly connections: number;
  readonly v1: LoadResult;
  readonly qdrant: LoadResult;
  /** Median over the rounds of qdrant q/s ÷ v1 q/s (target ≥ 0.9). */
  readonly qpsRatio: number;
  /** Median over the rounds of qdrant p50 ÷ v1 p50 (target ≤ 1.1). */
  readonly p50Ratio: number;
}

export interface QdrantBenchResult {
  readonly description: string;
  readonly rows: number;
  readonly seconds: number;
  readonly rounds: number;
  readonly levels: QdrantLevel[];
}

async function call(method: string, url: string, body: unknown, headers: Record<string, string>): Promise<unknown> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url} → ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

export async function benchQdrantRoute(
  ds: Dataset,
  options: { readonly seconds: number; readonly log: (msg: string) => void },
): Promise<QdrantBenchResult> {
  const seconds = envNumber('BENCH_HTTP_SECONDS', options.seconds);
  const rounds = Math.round(envNumber('BENCH_HTTP_ROUNDS', 3));
  const connectionLevels = (process.env.BENCH_HTTP_CONNECTIONS ?? '1,8,32').split(',').map((c) => {
    const n = Number(c.trim());
    if (!Number.isInteger(n) || n < 1) throw new Error(`BENCH_HTTP_CONNECTIONS: "${c}" is not a connection count`);
    return n;
  });
  const rows = Math.min(ds.rows, envNumber('BENCH_VECTOR_HTTP_ROWS', 20_000));
  const dim = ds.dim;
  const queryCount = Math.min(64, ds.queryCount);
  const vectors = Array.from({ length: queryCount }, (_, i) => Array.from(ds.queries.subarray(i * dim, (i + 1) * dim)));
  const v1Bodies = vectors.map((vector) => JSON.stringify({ vector, n: 10 }));
  const qdrantBodies = vectors.map((vector) => JSON.stringify({ query: vector, limit: 10 }));

  // BENCH_CPU_PROF_DIR: the service runs under --cpu-prof (summarise with bench/http/cpu-profile.ts).
  const profileDir = process.env.BENCH_CPU_PROF_DIR;
  const api = await startScratchVectorApi({
    prefix: 'bench_qdrant',
    execArgv: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-interval=250'] : [],
  });
  try {
    const base = api.base;

    const { token } = (await expectOk('POST', `${base}/admin/v1/tokens`, { name: 'bench-qdrant' }, 'dev-admin-key')) as {
      token: string;
    };
    const bearer = { authorization: `Bearer ${token}` };
    const apiKey = { 'api-key': token };
    await fillHnswTable(base, token, ds, rows);
    options.log(`qdrant: ${rows} rows inserted through /v1, the hnsw index ready`);

    // The two routes must answer the same neighbours, or the comparison is meaningless.
    const ours = (await call('POST', `${base}/v1/tables/bench/query`, JSON.parse(v1Bodies[0]), bearer)) as {
      results: Array<{ id: string }>;
    };
    const theirs = (await call('POST', `${base}/collections/bench/points/query`, JSON.parse(qdrantBodies[0]), apiKey)) as {
      result: { points: Array<{ id: string | number }> };
    };
    const a = ours.results.map((r) => r.id);
    const b = theirs.result.points.map((p) => String(p.id));
    if (JSON.stringify(a) !== JSON.stringify(b))
      throw new Error(`the routes disagree: /v1 ${a.join(',')} vs qdrant ${b.join(',')}`);

    const targets = {
      v1: { url: `${base}/v1/tables/bench/query`, headers: bearer, bodies: v1Bodies },
      qdrant: { url: `${base}/collections/bench/points/query`, headers: apiKey, bodies: qdrantBodies },
    };
    const keys = ['v1', 'qdrant'] as const;
    const levels: QdrantLevel[] = [];
    for (const connections of connectionLevels) {
      for (const key of keys) await httpLoad({ ...targets[key], connections, seconds: Math.min(1, seconds) }); // warm-up
      const runs = { v1: [] as LoadResult[], qdrant: [] as LoadResult[] };
      const qpsRatios: number[] = [];
      const p50Ratios: number[] = [];
      for (let round = 0; round < rounds; round++) {
        // The routes take turns, the first one alternating, so outside load does not land on one side only.
        const order = round % 2 === 0 ? keys : [...keys].reverse();
        const got: Partial<Record<(typeof keys)[number], LoadResult>> = {};
        for (const key of order) {
          const r = await httpLoad({ ...targets[key], connections, seconds });
          got[key] = {
            requestsPerSecond: r.requestsPerSecond,
            latencyP50: r.latencyP50,
            latencyP99: r.latencyP99,
            errors: r.errors,
          };
          runs[key].push(got[key]);
        }
        if (got.v1 && got.qdrant) {
          qpsRatios.push(got.qdrant.requestsPerSecond / got.v1.requestsPerSecond);
          p50Ratios.push(got.qdrant.latencyP50 / got.v1.latencyP50);
        }
      }
      const level: QdrantLevel = {
        connections,
        v1: medianLoad(runs.v1),
        qdrant: medianLoad(runs.qdrant),
        qpsRatio: median(qpsRatios),
        p50Ratio: median(p50Ratios),
      };
      levels.push(level);
      options.log(
        `qdrant ${connections} conn: /v1 ${level.v1.requestsPerSecond.toFixed(0)} q/s p50 ${level.v1.latencyP50.toFixed(2)} ms; ` +
          `qdrant ${level.qdrant.requestsPerSecond.toFixed(0)} q/s p50 ${level.qdrant.latencyP50.toFixed(2)} ms; ` +
          `q/s ratio ${level.qpsRatio.toFixed(3)}, p50 ratio ${level.p50Ratio.toFixed(3)}`,
      );
    }
    const description =
      `${rows.toLocaleString('en-US')} rows of ${ds.name} in one hnsw table, ${queryCount} query vectors (10 neighbours) sent as ` +
      `POST /v1/tables/bench/query and as POST /collections/bench/points/query to the same vector-api, same connections, ` +
      `${rounds} rounds of ${seconds} s in which the two routes take turns (after a warm-up); medians of the rounds.`;
    return { description, rows, seconds, rounds, levels };
  } finally {
    await api.stop();
  }
}
