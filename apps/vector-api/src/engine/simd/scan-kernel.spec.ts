import { createScanKernel, createWasmMemory, instantiateScanModule, simdSupported } from './scan-kernel';
import { TopN } from './top-n';
import { mulberry32 as rng } from '../../../../../test/support/random';

/** `rows` normalised vectors of `dim` floats, packed. */
function block(seed: number, rows: number, dim: number): Float32Array {
  const rand = rng(seed);
  const out = new Float32Array(rows * dim);
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let j = 0; j < dim; j++) {
      const x = rand() * 2 - 1;
      out[r * dim + j] = x;
      s += x * x;
    }
    const inv = 1 / Math.sqrt(s);
    for (let j = 0; j < dim; j++) out[r * dim + j] *= inv;
  }
  return out;
}

/** Brute force in float64 over the given rows: best first, ties to the smaller row. */
function reference(
  data: Float32Array,
  dim: number,
  q: Float32Array,
  n: number,
  rows: readonly number[],
): Array<[number, number]> {
  return rows
    .map((r): [number, number] => {
      let s = 0;
      for (let j = 0; j < dim; j++) s += data[r * dim + j] * q[j];
      return [r, s];
    })
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, n);
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

function expectMatches(result: { labels: Int32Array; scores: Float32Array }, expected: Array<[number, number]>): void {
  expect([...result.labels]).toEqual(expected.map(([r]) => r));
  expected.forEach(([, s], i) => expect(Math.abs(result.scores[i] - s)).toBeLessThan(1e-5));
}

describe('scan kernel', () => {
  it('compiles the WebAssembly SIMD kernel on this runtime', () => {
    expect(simdSupported()).toBe(true);
    expect(createScanKernel(8).simd).toBe(true);
    expect(createScanKernel(8, 16, { simd: false }).simd).toBe(false);
  });

  describe.each([
    ['WebAssembly SIMD', true],
    ['JavaScript fallback', false],
  ])('%s', (_name, simd) => {
    // 1 and 3 (< one f32x4), 37 (odd), 100 (4-multiple, not 16), 784 (MNIST); 5000 rows span two chunks.
    it.each([
      [1, 300],
      [3, 700],
      [37, 5000],
      [100, 5000],
      [784, 600],
    ])('dim %i, %i rows: the top 10 equal a float64 brute force (ids, order, scores)', (dim, rows) => {
      const data = block(dim * 7 + rows, rows, dim);
      const queries = block(dim + 1, 25, dim);
      const kernel = createScanKernel(dim, 64, { simd });
      kernel.load(data);
      expect(kernel.size).toBe(rows);
      expect(kernel.capacity).toBeGreaterThanOrEqual(rows);
      for (let i = 0; i < 25; i++) {
        const q = queries.subarray(i * dim, (i + 1) * dim);
        expectMatches(kernel.scan(q, 10), reference(data, dim, q, 10, range(rows)));
      }
    });

    it('returns every row, best first, when n exceeds the rows; nothing for n = 0 or an empty kernel', () => {
      const dim = 13;
      const data = block(5, 7, dim);
      const q = block(6, 1, dim);
      const kernel = createScanKernel(dim, 4, { simd });
      expect(kernel.scan(q, 5).labels.length).toBe(0);
      kernel.load(data);
      expectMatches(kernel.scan(q, 50), reference(data, dim, q, 50, range(7)));
      expect(kernel.scan(q, 0).labels.length).toBe(0);
      expectMatches(kernel.scanRows(q, [6, 2, 4], 10), reference(data, dim, q, 10, [6, 2, 4]));
      // four rows at a time plus a tail of one
      expectMatches(kernel.scanRows(q, [6, 2, 4, 0, 5], 3), reference(data, dim, q, 3, [6, 2, 4, 0, 5]));
    });

    it('scans only the listed rows (any order), and lists longer than a chunk', () => {
      const dim = 21;
      const rows = 9000;
      const data = block(11, rows, dim);
      const q = block(12, 1, dim);
      const kernel = createScanKernel(dim, rows, { simd });
      kernel.load(data);
      const rand = rng(3);
      const some = range(rows).filter(() => rand() < 0.01);
      const reversed = [...some].reverse();
      expectMatches(kernel.scanRows(q, reversed, 10), reference(data, dim, q, 10, some));
      const most = range(rows).filter((r) => r % 7 !== 0);
      expectMatches(kernel.scanRows(q, Int32Array.from(most), 10), reference(data, dim, q, 10, most));
      expect(() => kernel.scanRows(q, [rows], 1)).toThrow(RangeError);
    });

    it('asks accept only about candidates and skips the rows it rejects', () => {
      const dim = 16;
      const rows = 3000;
      const data = block(21, rows, dim);
      const q = block(22, 1, dim);
      const kernel = createScanKernel(dim, rows, { simd });
      kernel.load(data);
      let asked = 0;
      const odd = (r: number): boolean => {
        asked++;
        return r % 2 === 1;
      };
      const oddRows = range(rows).filter((r) => r % 2 === 1);
      expectMatches(kernel.scan(q, 10, odd), reference(data, dim, q, 10, oddRows));
      expect(asked).toBeLessThan(rows / 4);
      expectMatches(kernel.scanRows(q, range(rows), 10, odd), reference(data, dim, q, 10, oddRows));
    });

    it('accumulates several row lists into one selection (ivf probes)', () => {
      const dim = 50;
      const data = block(31, 2000, dim);
      const q = block(32, 1, dim);
      const kernel = createScanKernel(dim, 2000, { simd });
      kernel.load(data);
      const lists = [range(500), range(1500).slice(1000), [1999, 1600, 1700]];
      const top = new TopN(10);
      for (const list of lists) kernel.scanRowsInto(q, list, top);
      expectMatches(top.result(), reference(data, dim, q, 10, lists.flat()));
    });

    it('scans a range of rows and reports them under their own labels (rows grouped by ivf list)', () => {
      const dim = 24;
      const data = block(61, 3000, dim);
      const q = block(62, 1, dim);
      // the kernel holds the rows in reverse order; rowLabels maps kernel row → store label
      const reversed = new Float32Array(data.length);
      for (let r = 0; r < 3000; r++) reversed.set(data.subarray(r * dim, (r + 1) * dim), (2999 - r) * dim);
      const rowLabels = Int32Array.from({ length: 3000 }, (_, r) => 2999 - r);
      const kernel = createScanKernel(dim, 3000, { simd });
      kernel.load(reversed);
      const top = new TopN(10);
      kernel.scanRangeInto(q, 100, 2000, top, (label) => label % 3 !== 0, rowLabels);
      const labels = Array.from(rowLabels.subarray(100, 2100)).filter((l) => l % 3 !== 0);
      expectMatches(top.result(), reference(data, dim, q, 10, labels));
      expect(() => kernel.scanRangeInto(q, 2500, 600, new TopN(1))).toThrow(RangeError);
    });

    it('grows by set(), retires rows written as zeros, and clears rows a smaller load drops', () => {
      const dim = 9;
      const data = block(41, 100, dim);
      const q = block(42, 1, dim);
      const kernel = createScanKernel(dim, 2, { simd });
      for (let r = 0; r < 100; r++) kernel.set(r, data.subarray(r * dim, (r + 1) * dim));
      expect(kernel.size).toBe(100);
      expect(kernel.capacity).toBeGreaterThanOrEqual(100);
      const best = kernel.scan(q, 1).labels[0];
      kernel.set(best, new Float32Array(dim));
      expect(kernel.scan(q, 1).labels[0]).not.toBe(best);
      kernel.load(data, 10);
      expect(kernel.size).toBe(10);
      expectMatches(kernel.scan(q, 100), reference(data, dim, q, 100, range(10)));
      expect(() => kernel.set(0, new Float32Array(dim + 1))).toThrow(RangeError);
      // row(): a view of the stored floats (no padding), refreshed after growth
      expect([...kernel.row(3)]).toEqual([...data.subarray(3 * dim, 4 * dim)]);
      kernel.set(5000, data.subarray(0, dim));
      expect([...kernel.row(5000)]).toEqual([...data.subarray(0, dim)]);
      expect([...kernel.row(3)]).toEqual([...data.subarray(3 * dim, 4 * dim)]);
      expect(() => kernel.row(5001)).toThrow(RangeError);
      expect(() => kernel.scan(new Float32Array(dim - 1), 1)).toThrow(RangeError);
    });
  });

  it('WebAssembly SIMD and the fallback agree on a larger set', () => {
    const dim = 100;
    const data = block(51, 20000, dim);
    const wasm = createScanKernel(dim, 20000);
    const js = createScanKernel(dim, 20000, { simd: false });
    wasm.load(data);
    js.load(data);
    const queries = block(52, 10, dim);
    for (let i = 0; i < 10; i++) {
      const q = queries.subarray(i * dim, (i + 1) * dim);
      const a = wasm.scan(q, 20);
      const b = js.scan(q, 20);
      expect([...a.labels]).toEqual([...b.labels]);
    }
  });

  it('exports a streaming sum (bandwidth probe)', () => {
    const memory = createWasmMemory(4096);
    const f32 = new Float32Array(memory.buffer);
    for (let i = 0; i < 1024; i++) f32[i] = i % 3;
    const expected = f32.subarray(0, 1024).reduce((s, x) => s + x, 0);
    expect(instantiateScanModule(memory).sum(0, 4096)).toBeCloseTo(expected, 3);
  });
});
