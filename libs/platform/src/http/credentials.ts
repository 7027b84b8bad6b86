import { createHash, timingSafeEqual } from 'node:crypto';

/** The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1), or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
  return match?.[1];
}

const digest = (value: string | Uint8Array): Buffer => createHash('sha256').update(value).digest();

/**
 * The platform's one constant-time comparison of secrets (admin key, OAuth client-secret
 * hashes, webhook signatures). Both sides are hashed first, so neither the content nor the
 * length of the secret leaks through timing, and inputs of different lengths never throw.
 * Callers go through `secretComparison.equal` (or `constantTimeEqual`, which delegates to
 * it) so that tests can observe every use; do not compare secrets with `===`.
 */
export const secretComparison = {
  equal(a: string | Uint8Array, b: string | Uint8Array): boolean {
    const same = timingSafeEqual(digest(a), digest(b));
    const lengthA = typeof a === 'string' ? Buffer.byteLength(a, 'utf8') : a.byteLength;
    const lengthB = typeof b === 'string' ? Buffer.byteLength(b, 'utf8') : b.byteLength;
    return same && lengthA === lengthB;
  },
};

/** Constant-time comparison of two secrets (strings as UTF-8, or bytes); see `secretComparison`. */
export function constantTimeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  return secretComparison.equal(a, b);
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
