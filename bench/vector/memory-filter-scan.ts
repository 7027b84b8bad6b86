/**
 * What a filter on a *scanned* metadata key costs now that metadata lives as JSON in the
 * row catalog (issue 32): such a filter reads every live row's metadata. Builds a flat
 * collection of BENCH_FILTER_ROWS rows (default 100,000, 8 dimensions: vectors do not
 * matter here) whose `doc` key has a distinct value per row (so it passes the inverted
 * index's budget and is scanned) and times `matchingLabels` for a condition on it, with
 * small metadata ({doc, group}) and with LangChain-sized metadata (a 1 KB `content`).
 *
 * Usage: node bench/ts-run.mjs bench/vector/memory-filter-scan.ts
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { type Metadata, parseFilter } from '../../apps/vector-api/src/engine/filter';
import { VectorCollection, type CollectionRow } from '../../apps/vector-api/src/engine/vector-collection';

const ROWS = Number(process.env.BENCH_FILTER_ROWS ?? 100_000);
const REPEAT = 5;

function build(content: string): VectorCollection {
  const c = new VectorCollection(8, 'flat', { indexBudget: { distinctValuesPerKey: 100, distinctValuesPerTable: 100_000 } });
  for (let i = 0; i < ROWS; i += 1000) {
    const rows: CollectionRow[] = [];
    for (let j = i; j < Math.min(ROWS, i + 1000); j++) {
      const metadata: Metadata = content ? { doc: `d${j}`, group: j % 100, content } : { doc: `d${j}`, group: j % 100 };
      rows.push({ id: `r${j}`, label: j, embedding: [1, j, 0, 0, 0, 0, 0, 1], metadata });
    }
    c.insert(rows);
  }
  return c;
}

function time(c: VectorCollection): { ms: number; matched: number } {
  const filter = parseFilter({ doc: { $in: ['d7', 'd70000', 'nope'] } });
  let best = Infinity;
  let matched = 0;
  for (let r = 0; r < REPEAT; r++) {
    const t = performance.now();
    matched = c.matchingLabels(filter).length;
    best = Math.min(best, performance.now() - t);
  }
  return { ms: Math.round(best * 10) / 10, matched };
}

const small = time(build(''));
const large = time(build('x'.repeat(1000)));
process.stdout.write(
  `${JSON.stringify({
    rows: ROWS,
    load: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
    smallMetadata: small,
    content1kB: large,
  })}\n`,
);
