/**
 * The length in bytes of `JSON.stringify(value)` as UTF-8, computed without building the
 * string: what a row's metadata adds to an answer (issue 31, "Bounded answers"). Exact for
 * JSON data (strings, finite numbers, booleans, null, arrays and plain objects of those);
 * a string needing escapes is measured through JSON.stringify of that string alone.
 */
export function jsonBytes(value: unknown): number {
  if (typeof value === 'string') return stringBytes(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value).length : 4;
  if (typeof value === 'boolean') return value ? 4 : 5;
  if (value === null || typeof value !== 'object') return 4;
  if (Array.isArray(value)) {
    let n = 2 + Math.max(0, value.length - 1);
    for (const v of value as unknown[]) n += v === undefined || typeof v === 'function' ? 4 : jsonBytes(v);
    return n;
  }
  let n = 2;
  let members = 0;
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || typeof v === 'function') continue;
    n += stringBytes(key) + 1 + jsonBytes(v);
    members++;
  }
  return n + Math.max(0, members - 1);
}

/** Characters JSON.stringify escapes (quote, backslash, controls) or may (lone surrogates). */
// eslint-disable-next-line no-control-regex -- JSON.stringify escapes exactly these control characters
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

function stringBytes(s: string): number {
  return ESCAPED.test(s) ? Buffer.byteLength(JSON.stringify(s)) : Buffer.byteLength(s) + 2;
}
