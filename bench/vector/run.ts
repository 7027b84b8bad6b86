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
 *
 * Needs PostgreSQL and Redis for the HTTP part only (DATABASE_URL / REDIS_URL, defaults
 * postgresql://postgres@127.0.0.1:5432/postgres and redis://127.0.0.1:6379).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simdSupported } from '../../apps/vector-api/src/engine/simd/scan-kernel';
import { CACHE_DIR, loadMnist, loadWink } from './datasets';
import { benchDataset, type DatasetResult } from './engine-bench';
import { benchHttp, type HttpResult } from './http-bench';
import { type Bandwidth, machineInfo, measureBandwidth } from './measure';
import { type BenchReport, writeReport } from './report';

const quick = process.env.BENCH_VECTOR_QUICK === '1';
const withHttp = process.env.BENCH_VECTOR_HTTP !== '0';

async function main(): Promise<void> {
  const started = Date.now();
  const log = (msg: string): void => {
    process.stderr.write(`[bench:vector] ${msg} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  };
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
  await writeReport(report);
  log(`done: docs/benchmarks.md, docs/benchmarks-vector.svg, .data/bench-vector/results.json`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:vector failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
