/**
 * The HTTP benchmark's baseline: a bare Fastify route doing the same engine search as
 * vector-api's query endpoint (VectorCollection.query on the same rows and index), with no
 * auth, validation, rate limiting or logging. Run as a child of http-bench.ts:
 *   node bench/ts-run.mjs bench/vector/bare-server.ts <rows.f32> <dim> <queries.f32>
 * It reports { port, engineQps } over IPC once the index is built.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
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

  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 });
  app.post('/query', async (request, reply) => {
    const body = request.body as { vector?: unknown; n?: unknown };
    if (!Array.isArray(body.vector) || typeof body.n !== 'number') return reply.code(400).send({ error: 'bad request' });
    const t = performance.now();
    const { hits } = await collection.query(body.vector as number[], body.n);
    return reply.send({ results: hits, latency_ms: Math.round(performance.now() - t) });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.send?.({ port, engineQps });
  process.on('disconnect', () => {
    void app.close().then(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`bare-server failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
