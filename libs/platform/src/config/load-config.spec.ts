import { OffersConfig } from '../../../../apps/offers-api/src/config';
import { VectorConfig } from '../../../../apps/vector-api/src/config';
import { ConfigError, loadConfig } from './load-config';

const base = { DATABASE_URL: 'postgresql://u@localhost:5432/db' };

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map(([name]) => name);
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies defaults and converts numbers', () => {
    const config = loadConfig(OffersConfig, { ...base, OFFERS_PORT: '4100', DATABASE_POOL_SIZE: '3' });
    expect(config.port).toBe(4100);
    expect(config.DATABASE_POOL_SIZE).toBe(3);
    expect(config.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(config.ROLE).toBe('all');
    expect(config.NODE_ENV).toBe('development');
    expect(config.ADMIN_API_KEY).toBe('dev-admin-key');
  });

  it('names a missing required variable', () => {
    expect(() => loadConfig(OffersConfig, {})).toThrow(/DATABASE_URL .*\(is not set\)/);
    expect(problemsOf(() => loadConfig(OffersConfig, {}))).toEqual(['DATABASE_URL']);
  });

  it('names every bad variable with the value it got', () => {
    const env = { ...base, VECTOR_PORT: 'eighty', ROLE: 'both', REDIS_URL: 'localhost:6379' };
    expect(problemsOf(() => loadConfig(VectorConfig, env)).sort()).toEqual(['REDIS_URL', 'ROLE', 'VECTOR_PORT']);
    expect(() => loadConfig(VectorConfig, env)).toThrow(/VECTOR_PORT .*\(got "eighty"\)/);
  });

  it('rejects a port out of range', () => {
    expect(problemsOf(() => loadConfig(OffersConfig, { ...base, OFFERS_PORT: '70000' }))).toEqual(['OFFERS_PORT']);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(OffersConfig, { ...base, OFFERS_PORT: '' }).port).toBe(3000);
  });

  it('ignores variables it does not know', () => {
    const config = loadConfig(OffersConfig, { ...base, PATH: '/bin', VECTOR_PORT: 'not mine' });
    expect(Object.keys(config)).not.toContain('PATH');
  });

  it('stops production boot with the development admin key or a short one', () => {
    expect(problemsOf(() => loadConfig(VectorConfig, { ...base, NODE_ENV: 'production' }))).toEqual(['ADMIN_API_KEY']);
    const short = { ...base, NODE_ENV: 'production', ADMIN_API_KEY: 'short-but-8' };
    expect(problemsOf(() => loadConfig(VectorConfig, short))).toEqual(['ADMIN_API_KEY']);
    const ok = loadConfig(VectorConfig, { ...base, NODE_ENV: 'production', ADMIN_API_KEY: 'k'.repeat(40) });
    expect(ok.isProduction).toBe(true);
  });

  it('validates OAUTH_JWT_KEYS and requires real keys in production (offers-api)', () => {
    const prod = { ...base, NODE_ENV: 'production', ADMIN_API_KEY: 'k'.repeat(40) };
    expect(problemsOf(() => loadConfig(OffersConfig, prod))).toEqual(['OAUTH_JWT_KEYS']);
    expect(() => loadConfig(OffersConfig, { ...prod, OAUTH_JWT_KEYS: 'k1:short' })).toThrow(
      /OAUTH_JWT_KEYS .*at least 32 characters/,
    );
    const twice = `k1:${'a'.repeat(32)},k1:${'b'.repeat(32)}`;
    expect(() => loadConfig(OffersConfig, { ...base, OAUTH_JWT_KEYS: twice })).toThrow(/appears twice/);
    const ok = loadConfig(OffersConfig, { ...prod, OAUTH_JWT_KEYS: `new:${'a'.repeat(32)},old:${'b'.repeat(32)}` });
    expect(ok.jwtKeys.map((k) => k.kid)).toEqual(['new', 'old']);
  });

  it('derives what the process runs from ROLE', () => {
    const api = loadConfig(OffersConfig, { ...base, ROLE: 'api' });
    expect([api.servesApi, api.runsWorkers]).toEqual([true, false]);
    const worker = loadConfig(OffersConfig, { ...base, ROLE: 'worker' });
    expect([worker.servesApi, worker.runsWorkers]).toEqual([false, true]);
  });

  it('reads TRUST_PROXY as Fastify trustProxy and refuses junk', () => {
    expect(loadConfig(OffersConfig, base).trustProxy).toBe(false);
    // `true` would trust the leftmost X-Forwarded-For entry, which the client writes
    expect(problemsOf(() => loadConfig(OffersConfig, { ...base, TRUST_PROXY: 'true' }))).toEqual(['TRUST_PROXY']);
    const hops = loadConfig(OffersConfig, { ...base, TRUST_PROXY: '2' }).trustProxy;
    expect(typeof hops === 'function' && [hops('10.0.0.1', 0), hops('10.0.0.1', 1), hops('10.0.0.1', 2)]).toEqual([
      true,
      true,
      false,
    ]);
    expect(loadConfig(OffersConfig, { ...base, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toBe('10.0.0.0/8, 127.0.0.1');
    expect(problemsOf(() => loadConfig(OffersConfig, { ...base, TRUST_PROXY: 'yes please' }))).toEqual(['TRUST_PROXY']);
  });
});
