import { installationSecret } from '@app/platform';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/** Shortest secret PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY takes (the key itself is derived from it with HKDF). */
export const MIN_SECRET_LENGTH = 32;

/**
 * Parses PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY: one or more comma-separated secrets of at least
 * 32 characters. Returns the problem as a string; never echoes a secret.
 */
export function parseEncryptionSecrets(value: string): string[] | string {
  const secrets = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (secrets.length === 0) return 'must hold at least one secret of at least 32 characters';
  const short = secrets.findIndex((s) => s.length < MIN_SECRET_LENGTH);
  if (short >= 0) return `secret ${short + 1} must be at least ${MIN_SECRET_LENGTH} characters`;
  return secrets;
}

/** The development secret's file under DATA_DIR. */
export const DEVELOPMENT_SECRET_FILE = 'payments-api-idempotency.key';

/**
 * The secret of a development or test installation (PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY unset,
 * NODE_ENV not production): read from `<dataDir>/payments-api-idempotency.key`, created on
 * first use with 256 random bits, mode 0600, atomically (written to a private temporary file,
 * then hard-linked into place; EEXIST means another process won, and its secret is used), as
 * offers-api's development signing key. Every process of one installation shares it.
 */
export function developmentEncryptionSecret(dataDir: string): string {
  const secret = installationSecret(dataDir, DEVELOPMENT_SECRET_FILE, () => randomBytes(32).toString('base64url'));
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(
      `the development encryption secret ${join(dataDir, DEVELOPMENT_SECRET_FILE)} is not valid; delete it to generate a new one`,
    );
  }
  return secret;
}
