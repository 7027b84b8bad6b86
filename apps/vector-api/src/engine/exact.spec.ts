import { clusteredVectors, gaussian, mulberry32 } from '../../../../test/support/random';
import { bruteForce } from '../../../../test/support/search-reference';
import { exactSearch, exactSearchLabels } from './exact';
import { FlatIndex } from './flat-index';
import { toNormalized, VectorStore } from './vector-store';

function storeOf(vectors: number[][], dim: number, simd: boolean): VectorStore {
  const store = new VectorStore(dim, 8, { simd });
  vectors.forEach((v, label) => store.put(label, toNormalized(v)));
  return store;
}

describe.each([
  ['WebAssembly SIMD', true],
  ['JavaScript fallback', false],
])('exact search (and the flat index), %s', (_name, simd) => {
  const dim = 37; // not a multiple of 4: exercises the kernel's zero padding
  const { vectors } = clusteredVectors(7, 3000, dim, 20);
  const store = storeOf(vectors, dim, simd);

  it('runs on the requested scan path', () => {
    expect(store.simd).toBe(simd);
  });
  const rand = mulberry32(99);
  const queries = Array.from({ length: 40 }, () => Array.from({ length: dim }, () => gaussian(rand)));

  it('equals a brute-force reference (ids, order and scores)', () => {
    for (const q of queries) {
      const hits = exactSearch(store, toNormalized(q), 10);
      expect(hits.map((h) => h.label)).toEqual(bruteForce(vectors, q, 10));
      const qn = Math.hypot(...q);
      for (const h of hits) {
        const v = vectors[h.label];
        const cos = v.reduce((s, x, j) => s + x * q[j], 0) / (Math.hypot(...v) * qn);
        expect(h.score).toBeCloseTo(cos, 5);
      }
    }
  });

  it('returns every row when k exceeds the table, best first', () => {
    const small = storeOf(vectors.slice(0, 5), dim, simd);
    const q = queries[0];
    expect(new FlatIndex(small).search(toNormalized(q), 50).map((h) => h.label)).toEqual(bruteForce(vectors.slice(0, 5), q, 50));
  });

  it('never returns deleted rows, and grows its storage as rows arrive', () => {
    const s = storeOf(vectors.slice(0, 200), dim, simd);
    const q = toNormalized(queries[1]);
    const before = exactSearch(s, q, 5).map((h) => h.label);
    for (const label of before) s.delete(label);
    const after = exactSearch(s, q, 5).map((h) => h.label);
    expect(after.some((l) => before.includes(l))).toBe(false);
    expect(after).toEqual(bruteForce(vectors.slice(0, 200), queries[1], 5, (i) => !before.includes(i)));
    expect(s.capacity).toBeGreaterThanOrEqual(200);
    // Asking for more than the live rows: exactly the live ones, not the deleted (zeroed) rows.
    const all = exactSearch(s, q, 1000).map((h) => h.label);
    expect(all).toEqual(bruteForce(vectors.slice(0, 200), queries[1], 1000, (i) => !before.includes(i)));
  });

  it('skips labels never written (gaps between labels)', () => {
    const s = new VectorStore(dim, 4, { simd });
    for (const label of [3, 10, 11]) s.put(label, toNormalized(vectors[label]));
    const q = toNormalized(queries[3]);
    expect(exactSearch(s, q, 10).map((h) => h.label)).toEqual(
      bruteForce(vectors.slice(0, 12), queries[3], 10, (i) => [3, 10, 11].includes(i)),
    );
    expect(exactSearchLabels(s, q, 10, [3, 4, 10]).map((h) => h.label)).toEqual(
      bruteForce(vectors.slice(0, 12), queries[3], 10, (i) => [3, 10].includes(i)),
    );
  });

  it('restricts to given labels or an accept predicate', () => {
    const q = queries[2];
    const even = (i: number): boolean => i % 2 === 0;
    const expected = bruteForce(vectors, q, 10, even);
    expect(exactSearch(store, toNormalized(q), 10, even).map((h) => h.label)).toEqual(expected);
    const labels = vectors.map((_, i) => i).filter(even);
    expect(exactSearchLabels(store, toNormalized(q), 10, labels).map((h) => h.label)).toEqual(expected);
  });
});
