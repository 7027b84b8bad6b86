import fc from 'fast-check';
import { jsonBytes } from './json-size';

describe('jsonBytes', () => {
  it('is the UTF-8 length of JSON.stringify for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(jsonBytes(v)).toBe(Buffer.byteLength(JSON.stringify(v)));
      }),
      { numRuns: 2000 },
    );
  });

  it('counts escapes, multi-byte characters and lone surrogates', () => {
    for (const v of ['a"b\\c\n', 'é😀', '\ud800x', { 'k"': ['\u0001', -0, 1e21, 1.5e-7] }]) {
      expect(jsonBytes(v)).toBe(Buffer.byteLength(JSON.stringify(v)));
    }
  });
});
