import fc from 'fast-check';
import { jsonStringBytes, measureJson as metadataSize } from './json-size';

const NO_LIMIT = { maxBytes: Number.MAX_SAFE_INTEGER, maxKeys: Number.MAX_SAFE_INTEGER };
const utf8 = (v: unknown): number => Buffer.byteLength(JSON.stringify(v), 'utf8');

/** Keys of every object in a JSON value. */
function keysOf(v: unknown): number {
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + keysOf(x), 0);
  if (typeof v === 'object' && v !== null) return Object.values(v).reduce((n: number, x) => n + 1 + keysOf(x), 0);
  return 0;
}

describe('measureJson with limits (VECTOR_METADATA_MAX_BYTES / _MAX_KEYS)', () => {
  it('counts the UTF-8 bytes of JSON.stringify and the keys over the whole tree (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(metadataSize(v, NO_LIMIT)).toEqual({ bytes: utf8(v), keys: keysOf(v) });
      }),
      { numRuns: 2000 },
    );
  });

  it('counts escapes, multi-byte characters, surrogate pairs and lone surrogates as JSON.stringify writes them', () => {
    for (const s of ['', 'a"b\\c', '\n\t\u0001\u001f', 'é€😀', '\ud800x', 'x\udc00', '\u2028']) {
      expect(jsonStringBytes(s)).toBe(utf8(s));
    }
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => expect(jsonStringBytes(s)).toBe(utf8(s))));
  });

  it('stops as soon as a limit is passed, naming it', () => {
    const big = { text: 'x'.repeat(1_000_000) };
    expect(metadataSize(big, { maxBytes: 40_960, maxKeys: 64 })).toMatchObject({ over: 'bytes' });
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]));
    expect(metadataSize(many, { maxBytes: 40_960, maxKeys: 64 })).toMatchObject({ over: 'keys', keys: 65 });
    expect(metadataSize({ a: Array.from({ length: 100_000 }, () => 1) }, { maxBytes: 100, maxKeys: 64 })).toMatchObject({
      over: 'bytes',
    });
  });

  it('is exactly at the limit: not over', () => {
    const v = { a: 'xy' }; // {"a":"xy"} = 10 bytes, 1 key
    expect(metadataSize(v, { maxBytes: 10, maxKeys: 1 })).toEqual({ bytes: 10, keys: 1 });
    expect(metadataSize(v, { maxBytes: 9, maxKeys: 1 }).over).toBe('bytes');
    expect(metadataSize(v, { maxBytes: 10, maxKeys: 0 }).over).toBe('keys');
  });
});
