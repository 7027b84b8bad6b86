import { Expose, Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { loadConfig } from './load-config';
import { PlatformConfig } from './platform-config';
import { problemsOf } from '../../../../test/support/config-problems';

/** An app's config as apps declare theirs: the platform's settings plus its own. */
class AppConfig extends PlatformConfig {
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  APP_PORT: number = 3000;

  get port(): number {
    return this.APP_PORT;
  }
}

const base = { DATABASE_URL: 'postgresql://u@localhost:5432/db' };

describe('loadConfig', () => {
  it('applies defaults and converts numbers', () => {
    const config = loadConfig(AppConfig, { ...base, APP_PORT: '4100', DATABASE_POOL_SIZE: '3' });
    expect(config.port).toBe(4100);
    expect(config.DATABASE_POOL_SIZE).toBe(3);
    expect(config.redisTopology).toEqual({ mode: 'single', url: 'redis://127.0.0.1:6379' });
    expect(config.ROLE).toBe('all');
    expect(config.NODE_ENV).toBe('development');
    expect(config.ADMIN_API_KEY).toBe('dev-admin-key');
  });

  it('names a missing required variable', () => {
    expect(() => loadConfig(AppConfig, {})).toThrow(/DATABASE_URL .*\(is not set\)/);
    expect(problemsOf(() => loadConfig(AppConfig, {}))).toEqual(['DATABASE_URL']);
  });

  it('names every bad variable with the value it got', () => {
    const env = { ...base, APP_PORT: 'eighty', ROLE: 'both', REDIS_URL: 'localhost:6379' };
    expect(problemsOf(() => loadConfig(AppConfig, env)).sort()).toEqual(['APP_PORT', 'REDIS_URL', 'ROLE']);
    expect(() => loadConfig(AppConfig, env)).toThrow(/APP_PORT .*\(got "eighty"\)/);
  });

  it('rejects a port out of range', () => {
    expect(problemsOf(() => loadConfig(AppConfig, { ...base, APP_PORT: '70000' }))).toEqual(['APP_PORT']);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(AppConfig, { ...base, APP_PORT: '' }).port).toBe(3000);
  });

  it('ignores variables it does not know', () => {
    const config = loadConfig(AppConfig, { ...base, PATH: '/bin', OTHER_PORT: 'not mine' });
    expect(Object.keys(config)).not.toContain('OTHER_PORT');
    expect(Object.keys(config)).not.toContain('PATH');
  });

  it('stops production boot with the development admin key or a short one', () => {
    expect(problemsOf(() => loadConfig(AppConfig, { ...base, NODE_ENV: 'production' }))).toEqual(['ADMIN_API_KEY']);
    const short = { ...base, NODE_ENV: 'production', ADMIN_API_KEY: 'short-but-8' };
    expect(problemsOf(() => loadConfig(AppConfig, short))).toEqual(['ADMIN_API_KEY']);
    const ok = loadConfig(AppConfig, { ...base, NODE_ENV: 'production', ADMIN_API_KEY: 'k'.repeat(40) });
    expect(ok.isProduction).toBe(true);
  });

  it('derives what the process runs from ROLE', () => {
    const api = loadConfig(AppConfig, { ...base, ROLE: 'api' });
    expect([api.servesApi, api.runsWorkers]).toEqual([true, false]);
    const worker = loadConfig(AppConfig, { ...base, ROLE: 'worker' });
    expect([worker.servesApi, worker.runsWorkers]).toEqual([false, true]);
  });

  it('reads TRUST_PROXY as Fastify trustProxy and refuses junk', () => {
    expect(loadConfig(AppConfig, base).trustProxy).toBe(false);
    // `true` would trust the leftmost X-Forwarded-For entry, which the client writes
    expect(problemsOf(() => loadConfig(AppConfig, { ...base, TRUST_PROXY: 'true' }))).toEqual(['TRUST_PROXY']);
    const hops = loadConfig(AppConfig, { ...base, TRUST_PROXY: '2' }).trustProxy;
    expect(typeof hops === 'function' && [hops('10.0.0.1', 0), hops('10.0.0.1', 1), hops('10.0.0.1', 2)]).toEqual([
      true,
      true,
      false,
    ]);
    expect(loadConfig(AppConfig, { ...base, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toBe('10.0.0.0/8, 127.0.0.1');
    expect(problemsOf(() => loadConfig(AppConfig, { ...base, TRUST_PROXY: 'yes please' }))).toEqual(['TRUST_PROXY']);
  });

  it('LOG_FORMAT: json by default in every environment, pretty when asked; colour from NO_COLOR/FORCE_COLOR', () => {
    const production = { ...base, NODE_ENV: 'production', ADMIN_API_KEY: 'k'.repeat(40) };
    expect(loadConfig(AppConfig, production).LOG_FORMAT).toBe('json');
    expect(loadConfig(AppConfig, { ...base, NODE_ENV: 'development' }).LOG_FORMAT).toBe('json');
    expect(loadConfig(AppConfig, { ...production, LOG_FORMAT: 'pretty' }).LOG_FORMAT).toBe('pretty');
    expect(problemsOf(() => loadConfig(AppConfig, { ...base, LOG_FORMAT: 'colour' }))).toEqual(['LOG_FORMAT']);
    expect(loadConfig(AppConfig, base).logColor).toBe('auto');
    expect(loadConfig(AppConfig, { ...base, NO_COLOR: '1' }).logColor).toBe('never');
    expect(loadConfig(AppConfig, { ...base, FORCE_COLOR: '1' }).logColor).toBe('always');
    expect(loadConfig(AppConfig, { ...base, LOG_FORMAT: 'pretty', NO_COLOR: '1' }).logOptions).toEqual({
      level: 'info',
      format: 'pretty',
      color: 'never',
    });
  });
});
