import fc from 'fast-check';
import { queryAnswerJson } from './answer-json';

/** A hit as the service shapes it: id, score, then metadata unless excluded, then the embedding when asked. */
const hit = fc
  .record({
    id: fc.string({ unit: 'binary', maxLength: 40 }),
    score: fc.oneof(fc.double(), fc.float(), fc.constantFrom(0, -0, 1, Number.NaN, Number.POSITIVE_INFINITY)),
    metadata: fc.option(fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue({ maxDepth: 2 })), { nil: undefined }),
    embedding: fc.option(fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { maxLength: 8 }), { nil: undefined }),
  })
  .map(({ id, score, metadata, embedding }) => ({
    id,
    score,
    ...(metadata !== undefined ? { metadata } : {}),
    ...(embedding !== undefined ? { embedding } : {}),
  }));

describe('queryAnswerJson', () => {
  it('writes exactly JSON.stringify of one query answer', () => {
    fc.assert(
      fc.property(fc.array(hit, { maxLength: 12 }), fc.nat(), (results, latency_ms) => {
        const answer = { results, latency_ms };
        expect(queryAnswerJson(answer)).toBe(JSON.stringify(answer));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes exactly JSON.stringify of a batch answer', () => {
    fc.assert(
      fc.property(fc.array(fc.array(hit, { maxLength: 5 }), { minLength: 1, maxLength: 6 }), fc.nat(), (results, latency_ms) => {
        const answer = { results, latency_ms };
        expect(queryAnswerJson(answer)).toBe(JSON.stringify(answer));
      }),
      { numRuns: 1000 },
    );
  });

  it('leaves out a property whose value is undefined, as JSON.stringify does', () => {
    const answer = { results: [{ id: 'a', score: 0.5, metadata: undefined, embedding: undefined }], latency_ms: 3 };
    expect(queryAnswerJson(answer)).toBe(JSON.stringify(answer));
    expect(queryAnswerJson(answer)).toBe('{"results":[{"id":"a","score":0.5}],"latency_ms":3}');
  });
});
