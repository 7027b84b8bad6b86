import { randomBytes, scrypt as scryptCb } from 'node:crypto';
import { promisify } from 'node:util';
import { constantTimeEqual, randomBase62, sha256Hex } from '@app/platform';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;

/** scrypt cost: N=2^14, r=8, p=1 (≈ 16 MiB, tens of ms); runs on libuv's pool, off the event loop. */
const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;

/** `scrypt$N$r$p$<salt b64>$<hash b64>`: a slow, salted hash for OAuth client secrets. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(secret, salt, KEYLEN, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** A stored hash to verify against when the client does not exist, so timing does not tell. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashSecret(randomBase62(32));
  return decoy;
}

/** Constant-time verification of `secret` against a `hashSecret` string. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltB64, hashB64] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !saltB64 || !hashB64) return false;
  const expected = Buffer.from(hashB64, 'base64');
  const actual = await scrypt(secret, Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return constantTimeEqual(actual, expected);
}

/** High-entropy opaque credentials: 43+ base62 characters ≈ 256 bits. */
export function newOpaqueSecret(prefix: string): string {
  return `${prefix}${randomBase62(43)}`;
}

/**
 * The stored form of an opaque API key: its SHA-256 (hex). Keys have ~256 bits of entropy, so
 * a fast hash suffices; lookups go through a unique index on it (nothing compared in memory).
 */
export function apiKeyHash(key: string): string {
  return sha256Hex(key);
}
