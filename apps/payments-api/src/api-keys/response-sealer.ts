import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { ResponseSealer } from '@app/platform';
import { PaymentsConfig } from '../config';
import { developmentEncryptionSecret, parseEncryptionSecrets } from './encryption-secrets';

interface SealingKey {
  /** 8 hex characters naming the key in an envelope (a hash of the key: says nothing of it). */
  readonly id: string;
  readonly key: Buffer;
}

const VERSION = 'v1';
const IV_BYTES = 12;

function sealingKey(secret: string): SealingKey {
  const key = Buffer.from(hkdfSync('sha256', secret, '', 'payments-api idempotency responses v1', 32));
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 8), key };
}

/**
 * AES-256-GCM for the stored answers of `/v2/api-keys` (they hold the new key's secret), so a
 * replay can return the same secret while the database never holds it in clear. Envelope:
 * `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url); the record's scope and id are the
 * additional authenticated data. Records are purged after IDEMPOTENCY_RETENTION_HOURS.
 */
@Injectable()
export class AesGcmResponseSealer implements ResponseSealer {
  private readonly keys: readonly SealingKey[];

  constructor(config: PaymentsConfig) {
    const configured = config.PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY;
    const parsed = configured === undefined ? [developmentEncryptionSecret(config.dataDir)] : parseEncryptionSecrets(configured);
    if (typeof parsed === 'string') throw new Error(`PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY ${parsed}`);
    this.keys = parsed.map(sealingKey);
  }

  seal(plain: string, context: string): string {
    const [current] = this.keys;
    if (!current) throw new Error('no encryption key');
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', current.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, current.id, iv, data, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  unseal(sealed: string, context: string): string {
    const [version, id, iv, data, tag] = sealed.split('.');
    if (version !== VERSION || id === undefined || iv === undefined || data === undefined || tag === undefined) {
      throw new Error('a stored idempotent response of a sealed route is not a sealed envelope');
    }
    const key = this.keys.find((k) => k.id === id);
    if (!key) {
      throw new Error(
        `a stored idempotent response was sealed with key ${id}, which PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY no longer holds`,
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
