import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PaymentsConfig } from '../config';
import { DEVELOPMENT_SECRET_FILE, developmentEncryptionSecret, parseEncryptionSecrets } from './encryption-secrets';
import { AesGcmResponseSealer } from './response-sealer';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const sealer = (key: string | undefined, dataDir = '/nonexistent'): AesGcmResponseSealer =>
  new AesGcmResponseSealer({ PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY: key, dataDir } as PaymentsConfig);

describe('AesGcmResponseSealer (the stored answers of /v2/api-keys)', () => {
  const plain = '{"id":"key_1","secret":"sk_test_abcdefghijklmnopqrstuvwxyz"}';

  it('round-trips, never shows the plain text, and seals the same text differently each time', () => {
    const s = sealer(A);
    const one = s.seal(plain, 'scope\nid');
    expect(one).not.toContain('sk_test_');
    expect(s.unseal(one, 'scope\nid')).toBe(plain);
    expect(s.seal(plain, 'scope\nid')).not.toBe(one);
  });

  it('refuses another record (context), an altered envelope and an unknown key', () => {
    const s = sealer(A);
    const sealed = s.seal(plain, 'payments:acct_1:test\nid-1');
    expect(() => s.unseal(sealed, 'payments:acct_2:test\nid-1')).toThrow();
    const parts = sealed.split('.');
    const data = Buffer.from(parts[3] ?? '', 'base64url');
    data[0] = (data[0] ?? 0) ^ 1;
    parts[3] = data.toString('base64url');
    expect(() => s.unseal(parts.join('.'), 'payments:acct_1:test\nid-1')).toThrow();
    expect(() => sealer(B).unseal(sealed, 'payments:acct_1:test\nid-1')).toThrow(/no longer holds/);
    expect(() => s.unseal(plain, 'payments:acct_1:test\nid-1')).toThrow(/not a sealed envelope/);
  });

  it('rotation: the first secret seals, every listed secret opens', () => {
    const old = sealer(A).seal(plain, 'c');
    const rotated = sealer(`${B},${A}`);
    expect(rotated.unseal(old, 'c')).toBe(plain);
    expect(sealer(B).unseal(rotated.seal(plain, 'c'), 'c')).toBe(plain);
  });

  it('parses the variable without echoing a secret', () => {
    expect(parseEncryptionSecrets(` ${A} , ${B} `)).toEqual([A, B]);
    expect(parseEncryptionSecrets('short-secret-1')).toBe('secret 1 must be at least 32 characters');
    expect(parseEncryptionSecrets(',')).toMatch(/at least one secret/);
  });

  it('without the variable (development, test): one generated secret per installation, 0600, reused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payments-sealing-'));
    try {
      const first = developmentEncryptionSecret(join(dir, 'data'));
      expect(first.length).toBeGreaterThanOrEqual(32);
      expect(developmentEncryptionSecret(join(dir, 'data'))).toBe(first);
      const file = join(dir, 'data', DEVELOPMENT_SECRET_FILE);
      expect(readFileSync(file, 'utf8').trim()).toBe(first);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const sealed = sealer(undefined, join(dir, 'data')).seal(plain, 'c');
      expect(sealer(undefined, join(dir, 'data')).unseal(sealed, 'c')).toBe(plain);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
