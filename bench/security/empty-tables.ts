/**
 * What an empty table costs in memory (issue 31: 300 empty 4096-d hnsw tables took
 * vector-api from 349 to 1,259 MB): creates BENCH_TABLES empty tables' collections as
 * vector-api does on `POST /v1/tables` (a VectorCollection, its status read for the answer)
 * and prints the process's RSS before and after.
 *
 *   node --expose-gc bench/ts-run.mjs bench/security/empty-tables.ts
 *   BENCH_TABLES=300 BENCH_DIM=4096 BENCH_INDEX=hnsw ... to change the load
 */
import { VectorCollection } from '../../apps/vector-api/src/engine/vector-collection';
import type { IndexKind } from '../../apps/vector-api/src/engine/types';

const TABLES = Number(process.env.BENCH_TABLES ?? 300);
const DIM = Number(process.env.BENCH_DIM ?? 4096);
const INDEX = (process.env.BENCH_INDEX ?? 'hnsw') as IndexKind;

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(0);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

async function main(): Promise<void> {
  gc();
  const before = process.memoryUsage().rss;
  const tables: VectorCollection[] = [];
  for (let i = 0; i < TABLES; i++) {
    const c = new VectorCollection(DIM, INDEX);
    c.status(); // the create's answer shows the index status
    tables.push(c);
  }
  await sleep(3000); // worker threads (hnsw) start and allocate their graphs meanwhile
  gc();
  const after = process.memoryUsage().rss;
  process.stdout.write(
    `[empty-tables] ${TABLES} empty ${DIM}-d ${INDEX} tables: RSS ${mb(before)} → ${mb(after)} MB ` +
      `(+${mb(after - before)} MB, ${((after - before) / TABLES / 1024).toFixed(0)} KiB per table)\n`,
  );
  for (const t of tables) t.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
