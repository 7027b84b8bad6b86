import fc from 'fast-check';
import { compareHits, TopK } from './top-k';

describe('TopK (bounded heap)', () => {
  it('returns the same k hits as sorting everything', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 40 }),
        (scores, k) => {
          const top = new TopK(k);
          scores.forEach((s, label) => top.push(label, s / 10));
          const expected = scores
            .map((s, label) => ({ label, score: s / 10 }))
            .sort(compareHits)
            .slice(0, k);
          expect(top.results()).toEqual(expected);
        },
      ),
    );
  });

  it('exposes the entry threshold once full', () => {
    const top = new TopK(2);
    expect(top.threshold).toBe(-Infinity);
    top.push(1, 0.5);
    top.push(2, 0.9);
    top.push(3, 0.7);
    expect(top.threshold).toBe(0.7);
    expect(top.results().map((h) => h.label)).toEqual([2, 3]);
  });
});
