import fc from 'fast-check';
import { compareHits } from '../types';
import { TopN } from './top-n';

describe('TopN (bounded heap of typed arrays)', () => {
  it('keeps the same n as sorting everything, best first, ties to the smaller label', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -20, max: 20 }), { maxLength: 300 }),
        fc.integer({ min: 0, max: 40 }),
        fc.boolean(),
        (scores, n, shuffled) => {
          const entries = scores.map((s, label) => ({ label, score: s / 8 }));
          if (shuffled) entries.reverse();
          const top = new TopN(n);
          for (const e of entries) top.push(e.label, e.score);
          const expected = [...entries].sort(compareHits).slice(0, n);
          const { labels, scores: got } = top.result();
          expect([...labels]).toEqual(expected.map((e) => e.label));
          expect([...got]).toEqual(expected.map((e) => Math.fround(e.score)));
          expect(top.length).toBe(expected.length);
        },
      ),
    );
  });

  it('publishes the entry threshold once full', () => {
    const top = new TopN(2);
    top.push(1, 0.5);
    expect(top.threshold).toBe(-Infinity);
    top.push(2, 0.7);
    expect(top.threshold).toBe(0.5);
    top.push(3, 0.9);
    expect(top.threshold).toBe(0.7);
    expect([...top.result().labels]).toEqual([3, 2]);
    // result() leaves the heap usable
    top.push(4, 0.8);
    expect([...top.result().labels]).toEqual([3, 4]);
  });
});
