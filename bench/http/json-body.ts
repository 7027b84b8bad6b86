/**
 * Cost of the platform's JSON body parser (JSON.parse + one linear pass refusing duplicate
 * and prototype keys, libs/platform/src/http/json-body.ts) against what Fastify did before
 * (secure-json-parse with __proto__ and constructor.prototype refused), on the same texts:
 * a small payment body, a 1 MB vector insert and the largest (1000 × 4096 at float32 precision).
 *
 *   node bench/ts-run.mjs bench/http/json-body.ts
 */
import { createRequire } from 'node:module';
import { checkJsonKeys, parseJsonBody } from '../../libs/platform/src/http/json-body';

const require = createRequire(__filename);
const sjson = require('secure-json-parse') as { parse(text: string, reviver: null, options: object): unknown };
const before = (text: string): unknown => sjson.parse(text, null, { protoAction: 'error', constructorAction: 'error' });

function insertBody(rows: number, dimension: number): string {
  return JSON.stringify({
    rows: Array.from({ length: rows }, (_, i) => ({
      id: `row-${i}`,
      // float32 precision (9 significant digits), as docs/vector.md sizes inserts
      embedding: Array.from({ length: dimension }, () => Number((Math.random() * 2 - 1).toPrecision(9))),
      metadata: { genre: 'jazz', year: 1960 + (i % 60), tags: ['a', 'b'] },
    })),
  });
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Median ms of each function, the samples interleaved so that GC and heap growth fall on both alike. */
function time(fns: ReadonlyArray<() => unknown>, runs: number): number[] {
  for (let i = 0; i < Math.min(runs, 20); i++) for (const fn of fns) fn(); // warm-up
  const samples = fns.map((): number[] => []);
  for (let i = 0; i < runs; i++) {
    fns.forEach((fn, k) => {
      const start = process.hrtime.bigint();
      fn();
      samples[k]?.push(Number(process.hrtime.bigint() - start) / 1e6);
    });
  }
  return samples.map(median);
}

const cases: Array<[string, string, number]> = [
  [
    'payment create (≈ 150 B)',
    JSON.stringify({ amount: 2000, currency: 'gbp', customer_id: 'cus_x', metadata: { order: '42' } }),
    20_000,
  ],
  ['vector insert 1 MB (80 × 1024)', insertBody(80, 1024), 200],
  ['vector insert 1000 × 4096', insertBody(1000, 4096), 10],
];

console.log(`node ${process.version}, ${process.arch}`);
console.log('| body | size | before: secure-json-parse (ms) | after: parseJsonBody (ms) | of which checkJsonKeys (ms) |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const [name, text, runs] of cases) {
  const buffer = Buffer.from(text);
  const [b = 0, a = 0, scan = 0] = time(
    [() => before(buffer.toString('utf8')), () => parseJsonBody(buffer), () => checkJsonKeys(text)],
    runs,
  );
  const size = buffer.length >= 1e6 ? `${(buffer.length / 1e6).toFixed(1)} MB` : `${buffer.length} B`;
  const fmt = (ms: number): string => (ms < 0.1 ? ms.toFixed(4) : ms.toFixed(2));
  console.log(`| ${name} | ${size} | ${fmt(b)} | ${fmt(a)} | ${fmt(scan)} |`);
}
