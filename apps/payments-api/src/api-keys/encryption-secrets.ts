import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
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
  const file = join(dataDir, DEVELOPMENT_SECRET_FILE);
  const existing = readSecretFile(file);
  if (existing) return existing;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const temp = join(dataDir, `.${DEVELOPMENT_SECRET_FILE}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${randomBytes(32).toString('base64url')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    chmodSync(temp, 0o600);
    try {
      linkSync(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  } finally {
    unlinkSync(temp);
  }
  const secret = readSecretFile(file);
  if (!secret) throw new Error(`the development encryption secret ${file} vanished while it was being created`);
  return secret;
}

function readSecretFile(file: string): string | undefined {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const secret = content.trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new Error(`the development encryption secret ${file} is not valid; delete it to generate a new one`);
  }
  return secret;
}
