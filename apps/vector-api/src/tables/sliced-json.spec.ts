import fc from 'fast-check';
import { jsonPieces } from './sliced-json';

describe('jsonPieces', () => {
  it('joins to exactly JSON.stringify, at every split depth', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 5 }), (v, depth) => {
        expect([...jsonPieces(v, depth)].join('')).toBe(JSON.stringify(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('drops undefined members and writes undefined array items as null, as JSON.stringify does', () => {
    const v = { a: undefined, b: [undefined, 1, () => 1], c: { d: undefined }, e: new Date(0), f: 'x' };
    expect([...jsonPieces(v)].join('')).toBe(JSON.stringify(v));
  });
});
