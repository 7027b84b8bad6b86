import { installationSecret, type InstallationSecretHooks } from '@app/platform';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/** An HMAC key for access tokens; the first key of the list signs, all of them verify. */
export interface JwtKey {
  readonly kid: string;
  readonly secret: Uint8Array;
}

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

/** The development key's file under DATA_DIR. */
export const DEVELOPMENT_KEY_FILE = 'offers-api-oauth-jwt.key';

/** Test hook: runs between writing the temporary file and linking it into place. */
export type DevelopmentKeyHooks = InstallationSecretHooks;

/**
 * The signing key of a development or test installation (OAUTH_JWT_KEYS unset, NODE_ENV not
 * production): read from `<dataDir>/offers-api-oauth-jwt.key`, created on first use with a
 * random kid and a 256-bit random secret, mode 0600. Creation is atomic and race-free: the
 * key is written completely to a private temporary file, which is then hard-linked to the
 * final name; link(2) fails with EEXIST when another process got there first, and then that
 * process's key is used. So every process of one installation (in-process tests, spawned
 * services, `npm start`) signs and verifies with the same key, and no two installations share
 * one. Nothing of the key is in the source.
 */
export function developmentJwtKeys(dataDir: string, hooks: DevelopmentKeyHooks = {}): JwtKey[] {
  const content = installationSecret(
    dataDir,
    DEVELOPMENT_KEY_FILE,
    () => `dev-${randomBytes(6).toString('hex')}:${randomBytes(32).toString('base64url')}`,
    hooks,
  );
  const keys = parseJwtKeys(content);
  // Never echo the content: it is a key.
  if (typeof keys === 'string') {
    throw new Error(
      `the development signing key ${join(dataDir, DEVELOPMENT_KEY_FILE)} is not valid (${keys}); delete it to generate a new one`,
    );
  }
  return keys;
}
