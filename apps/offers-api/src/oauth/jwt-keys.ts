/** An HMAC key for access tokens; the first key of the list signs, all of them verify. */
export interface JwtKey {
  readonly kid: string;
  readonly secret: Uint8Array;
}

export const DEV_JWT_KEYS = 'dev:development-only-signing-key-do-not-use-in-production';

/**
 * Parses `OAUTH_JWT_KEYS` = `kid:secret[,kid:secret...]`. The first key signs; every key
 * verifies (rotation: prepend the new key, drop the old one an hour later). Secrets are at
 * least 32 characters.
 */
export function parseJwtKeys(value: string): JwtKey[] | string {
  const keys: JwtKey[] = [];
  const parts = value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const [index, part] of parts.entries()) {
    const colon = part.indexOf(':');
    // Never echo the entry: without its colon it may be nothing but a secret.
    if (colon < 1) return `entry ${index + 1} is not kid:secret`;
    const kid = part.slice(0, colon);
    const secret = part.slice(colon + 1);
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(kid)) return `key id '${kid}' must be 1-64 characters of A-Z a-z 0-9 . _ -`;
    if (secret.length < 32) return `the secret of key '${kid}' must be at least 32 characters`;
    if (keys.some((k) => k.kid === kid)) return `key id '${kid}' appears twice`;
    keys.push({ kid, secret: new TextEncoder().encode(secret) });
  }
  return keys.length > 0 ? keys : 'must list at least one kid:secret';
}
