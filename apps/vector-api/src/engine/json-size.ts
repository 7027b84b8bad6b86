/**
 * The length in bytes of `JSON.stringify(value)` as UTF-8, and the keys of every object in
 * it, computed in one pass without building the string. Two uses: what a row's metadata
 * adds to an answer (issue 31, "Bounded answers": `jsonBytes`), and the per-row metadata
 * limits (VECTOR_METADATA_MAX_BYTES and VECTOR_METADATA_MAX_KEYS: `measureJson` stops as
 * soon as either limit is passed, so a 20 MB string costs one scan at most and a hostile
 * tree no more than the limits allow). Exact for JSON data (strings, finite numbers,
 * booleans, null, arrays and plain objects of those).
 */

export interface JsonLimits {
  readonly maxBytes: number;
  readonly maxKeys: number;
}

export interface JsonSize {
  /** UTF-8 bytes of JSON.stringify(value); when `over`, a lower bound already past maxBytes. */
  readonly bytes: number;
  /** Keys of every object in the tree; when `over`, a lower bound. */
  readonly keys: number;
  /** Which limit was passed first, if any. */
  readonly over?: 'bytes' | 'keys';
}

/** Bytes of `s` as a JSON string literal in UTF-8, quotes included (JSON.stringify's escapes). */
export function jsonStringBytes(s: string): number {
  let n = 2;
  const len = s.length;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c === 0x22 || c === 0x5c) n += 2;
      else if (c >= 0x20) n += 1;
      // \b \t \n \f \r, the other control characters as \u00XX
      else n += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
    } else if (c < 0x800) {
      n += 2;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < len ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        n += 4; // a surrogate pair: one 4-byte code point
        i++;
      } else {
        n += 6; // a lone surrogate: JSON.stringify writes \udxxx
      }
    } else {
      n += 3;
    }
  }
  return n;
}

function scalarBytes(v: unknown): number {
  if (typeof v === 'string') return jsonStringBytes(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v).length : 4; // non-finite: null
  if (typeof v === 'boolean') return v ? 4 : 5;
  return 4; // null (and what JSON.stringify writes as null inside an array)
}

/**
 * The bytes and keys of `value` (a JSON value, as a request body holds it), walking the tree
 * with an explicit stack (no recursion, whatever its depth); stops once a limit is passed.
 */
export function measureJson(value: unknown, limits: JsonLimits): JsonSize {
  let bytes = 0;
  let keys = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      bytes += 2 + Math.max(0, v.length - 1); // brackets and commas
      if (bytes > limits.maxBytes) return { bytes, keys, over: 'bytes' }; // before stacking a huge array
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i] === undefined ? null : v[i]);
    } else if (typeof v === 'object' && v !== null) {
      let present = 0;
      for (const [key, child] of Object.entries(v)) {
        if (child === undefined) continue; // JSON.stringify leaves it out
        present++;
        bytes += jsonStringBytes(key) + 1; // "key":
        stack.push(child);
      }
      keys += present;
      bytes += 2 + Math.max(0, present - 1);
      if (keys > limits.maxKeys) return { bytes, keys, over: 'keys' };
    } else {
      bytes += scalarBytes(v);
    }
    if (bytes > limits.maxBytes) return { bytes, keys, over: 'bytes' };
  }
  return { bytes, keys };
}

const UNBOUNDED: JsonLimits = { maxBytes: Number.POSITIVE_INFINITY, maxKeys: Number.POSITIVE_INFINITY };

/** The UTF-8 length of `JSON.stringify(value)`. */
export function jsonBytes(value: unknown): number {
  return measureJson(value, UNBOUNDED).bytes;
}
