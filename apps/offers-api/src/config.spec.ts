import { loadConfig } from '@app/platform';
import { OffersConfig } from './config';
import { problemsOf } from '../../../test/support/config-problems';

const base = { DATABASE_URL: 'postgresql://u@localhost:5432/db' };

describe('OffersConfig', () => {
  it('reads OFFERS_PORT (default 3000) and refuses one out of range', () => {
    expect(loadConfig(OffersConfig, base).port).toBe(3000);
    expect(loadConfig(OffersConfig, { ...base, OFFERS_PORT: '4100' }).port).toBe(4100);
    expect(problemsOf(() => loadConfig(OffersConfig, { ...base, OFFERS_PORT: '70000' }))).toEqual(['OFFERS_PORT']);
  });

  it('validates OAUTH_JWT_KEYS and requires real keys in production', () => {
    const prod = {
      ...base,
      NODE_ENV: 'production',
      ADMIN_API_KEY: 'k'.repeat(40),
      OFFERS_PUBLIC_URL: 'https://offers.example.com',
    };
    expect(problemsOf(() => loadConfig(OffersConfig, prod))).toEqual(['OAUTH_JWT_KEYS']);
    expect(() => loadConfig(OffersConfig, { ...prod, OAUTH_JWT_KEYS: 'k1:short' })).toThrow(
      /OAUTH_JWT_KEYS .*at least 32 characters/,
    );
    const twice = `k1:${'a'.repeat(32)},k1:${'b'.repeat(32)}`;
    expect(() => loadConfig(OffersConfig, { ...base, OAUTH_JWT_KEYS: twice })).toThrow(/appears twice/);
    const ok = loadConfig(OffersConfig, { ...prod, OAUTH_JWT_KEYS: `new:${'a'.repeat(32)},old:${'b'.repeat(32)}` });
    expect(ok.jwtKeys?.map((k) => k.kid)).toEqual(['new', 'old']);
  });

  it('leaves OAUTH_JWT_KEYS unset outside production (the installation key under DATA_DIR signs)', () => {
    const dev = loadConfig(OffersConfig, base);
    expect(dev.OAUTH_JWT_KEYS).toBeUndefined();
    expect(dev.jwtKeys).toBeUndefined();
    expect(dev.DATA_DIR).toBe('.data');
    expect(dev.dataDir).toMatch(/^\/.*\.data$/);
    expect(loadConfig(OffersConfig, { ...base, DATA_DIR: '/var/lib/offers' }).dataDir).toBe('/var/lib/offers');
    const prod = { ...base, NODE_ENV: 'production', ADMIN_API_KEY: 'k'.repeat(40) };
    expect(() => loadConfig(OffersConfig, prod)).toThrow(/OAUTH_JWT_KEYS is required in production/);
  });

  it('validates the token endpoint limits', () => {
    const dev = loadConfig(OffersConfig, base);
    expect([
      dev.OAUTH_HASH_CONCURRENCY,
      dev.OAUTH_HASH_QUEUE,
      dev.OAUTH_HASH_QUEUE_TIMEOUT_MS,
      dev.OAUTH_HASH_PER_ADDRESS,
    ]).toEqual([2, 32, 2000, 4]);
    expect(problemsOf(() => loadConfig(OffersConfig, { ...base, OAUTH_HASH_CONCURRENCY: '0' }))).toEqual([
      'OAUTH_HASH_CONCURRENCY',
    ]);
    expect(problemsOf(() => loadConfig(OffersConfig, { ...base, OAUTH_HASH_QUEUE: '-1' }))).toEqual(['OAUTH_HASH_QUEUE']);
    expect(problemsOf(() => loadConfig(OffersConfig, { ...base, OAUTH_HASH_QUEUE_TIMEOUT_MS: 'soon' }))).toEqual([
      'OAUTH_HASH_QUEUE_TIMEOUT_MS',
    ]);
    expect(problemsOf(() => loadConfig(OffersConfig, { ...base, OAUTH_HASH_PER_ADDRESS: '0' }))).toEqual([
      'OAUTH_HASH_PER_ADDRESS',
    ]);
  });
});
