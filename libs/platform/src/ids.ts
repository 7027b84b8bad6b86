import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes handed out from a pool refilled 4 KiB at a time from the CSPRNG, as Node does
 * for randomUUID(): a request makes several ids, and a randomBytes() call for each was a
 * synchronous crypto call plus a Buffer per id (docs/benchmarks.md, HTTP load: Profile).
 * Every byte is handed out once; callers must not keep the returned view.
 */
const POOL = Buffer.allocUnsafe(4096);
let poolOffset = POOL.length;

export function randomPoolBytes(n: number): Buffer {
  if (n > POOL.length) return randomFillSync(Buffer.allocUnsafe(n));
  if (poolOffset + n > POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  const bytes = POOL.subarray(poolOffset, poolOffset + n);
  poolOffset += n;
  return bytes;
}

/** `length` random base62 characters (rejection sampling: no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomPoolBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** Public object ids in the Stripe style: `<prefix>_<24 base62>`, e.g. `offer_4fZk...`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(24)}`;
}
