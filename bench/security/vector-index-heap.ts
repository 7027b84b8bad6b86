/**
 * The inverted index's heap alone (issue 31): 1000 rows each carrying 2,400 distinct tags
 * (≈ 35 KB) and a 40 KB unique `content` (LangChain's shape), added to a MetadataIndex
 * with its default budget; the rows are built and measured before, so the figure is the
 * index's own. In-process, no service.
 *
 *   node --expose-gc bench/ts-run.mjs bench/security/vector-index-heap.ts                 (this checkout)
 *   node --expose-gc bench/ts-run.mjs bench/security/vector-index-heap.ts --root <dir>    (another checkout)
 */
import { join, resolve } from 'node:path';
import type * as Filter from '../../apps/vector-api/src/engine/filter';

type FilterModule = typeof Filter;

const rootArg = process.argv.indexOf('--root');
const ROOT = resolve(rootArg > 0 ? (process.argv[rootArg + 1] ?? '.') : join(__dirname, '..', '..'));
const ROWS = 1000;
const TAGS = 2400;

async function main(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const { MetadataIndex } = (await import(join(ROOT, 'apps/vector-api/src/engine/filter.ts'))) as FilterModule;
  const rows = Array.from({ length: ROWS }, (_, i) => ({
    tags: Array.from({ length: TAGS }, (_, j) => `row${i}:${j}`),
    content: `${'lorem ipsum '.repeat(3300)}${i}`,
  }));
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const index = new MetadataIndex();
  const started = performance.now();
  rows.forEach((m, label) => index.add(label, m));
  const ms = performance.now() - started;
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  process.stdout.write(
    `[vector-index-heap] ${ROOT}: ${ROWS} rows × ${TAGS} distinct tags + 40 KB content (${(JSON.stringify(rows).length / 1e6).toFixed(1)} MB as JSON): index +${((after - before) / 2 ** 20).toFixed(1)} MB heap, added in ${ms.toFixed(0)} ms\n`,
  );
  (globalThis as { keep?: unknown }).keep = [index, rows];
}

main().catch((err: unknown) => {
  process.stderr.write(`[vector-index-heap] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
