/**
 * The HTTP benchmark's baselines, two bare Fastify routes with no auth, validation, rate
 * limiting or logging, on the same rows as vector-api's table:
 * - `POST /raw`: raw hnswlib-node in this process (HierarchicalNSW, the engine's default M,
 *   efConstruction and seed, ef = max(n, efSearch) as vector-api asks): the issue-32 targets'
 *   baseline;
 * - `POST /query`: the engine's own search (VectorCollection.query on the same rows and
 *   index), as before issue 32.
 * Both answer `{ results: [{ id, score }], latency_ms }` like vector-api. Run as a child of
 * http-bench.ts:
 *   node bench/ts-run.mjs bench/vector/bare-server.ts <rows.f32> <dim> <queries.f32>
 * It reports { port, engineQps, rawQps } over IPC once both indexes are built.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import hnswlib from 'hnswlib-node';
import { DEFAULT_HNSW_OPTIONS } from '../../apps/vector-api/src/engine/hnsw-index';
import { VectorCollection } from '../../apps/vector-api/src/engine/vector-collection';

function readF32(path: string): Float32Array {
  const buf = readFileSync(path);
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}

async function main(): Promise<void> {
  const [rowsPath, dimText, queriesPath] = process.argv.slice(3);
  const dim = Number(dimText);
  const data = readF32(rowsPath);
  const queries = readF32(queriesPath);
  const rows = data.length / dim;
  const collection = new VectorCollection(dim, 'hnsw', { deferIndex: true });
  for (let start = 0; start < rows; start += 1000) {
    const batch = [];
    for (let r = start; r < Math.min(rows, start + 1000); r++)
      batch.push({ id: `v${r}`, label: r, embedding: data.subarray(r * dim, (r + 1) * dim) });
    collection.insert(batch);
  }
  collection.warm();
  await collection.idle();

  // The engine alone, same process, same queries as the HTTP load (plain arrays, as parsed JSON is).
  const plain = Array.from({ length: queries.length / dim }, (_, i) => Array.from(queries.subarray(i * dim, (i + 1) * dim)));
  let done = 0;
  const start = performance.now();
  while (performance.now() - start < 2000) await collection.query(plain[done++ % plain.length], 10);
  const engineQps = done / ((performance.now() - start) / 1000);

  // Raw hnswlib-node on the same rows, same order, same graph parameters.
  const { m, efConstruction, seed, efSearch } = DEFAULT_HNSW_OPTIONS;
  const graph = new hnswlib.HierarchicalNSW('cosine', dim);
  graph.initIndex({ maxElements: rows, m, efConstruction, randomSeed: seed, allowReplaceDeleted: false });
  for (let r = 0; r < rows; r++) graph.addPoint(Array.from(data.subarray(r * dim, (r + 1) * dim)), r);
  let ef = -1;
  const rawSearch = (vector: number[], n: number): { neighbors: number[]; distances: number[] } => {
    const want = Math.max(n, efSearch);
    if (want !== ef) graph.setEf((ef = want));
    return graph.searchKnn(vector, Math.min(n, rows));
  };
  let rawDone = 0;
  const rawStart = performance.now();
  while (performance.now() - rawStart < 2000) rawSearch(plain[rawDone++ % plain.length], 10);
  const rawQps = rawDone / ((performance.now() - rawStart) / 1000);
  const ids = Array.from({ length: rows }, (_, r) => `v${r}`);

  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 });
  app.post('/query', async (request, reply) => {
    const body = request.body as { vector?: unknown; n?: unknown };
    if (!Array.isArray(body.vector) || typeof body.n !== 'number') return reply.code(400).send({ error: 'bad request' });
    const t = performance.now();
    const { hits } = await collection.query(body.vector as number[], body.n);
    return reply.send({ results: hits, latency_ms: Math.round(performance.now() - t) });
  });
  app.post('/raw', async (request, reply) => {
    const body = request.body as { vector?: unknown; n?: unknown };
    if (!Array.isArray(body.vector) || typeof body.n !== 'number') return reply.code(400).send({ error: 'bad request' });
    const t = performance.now();
    const { neighbors, distances } = rawSearch(body.vector as number[], body.n);
    const results = neighbors.map((label, i) => ({ id: ids[label], score: Math.min(1, Math.max(0, 1 - distances[i])) }));
    return reply.send({ results, latency_ms: Math.round(performance.now() - t) });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.send?.({ port, engineQps, rawQps });
  process.on('disconnect', () => {
    void app.close().then(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`bare-server failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
