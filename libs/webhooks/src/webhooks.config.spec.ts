import { ConfigError, loadConfig, type NodeEnv } from '@app/platform';
import { WebhooksConfig } from './webhooks.config';

/** An app's config class, as an app that imports WebhooksModule declares it. */
class AppConfig extends WebhooksConfig {
  get port(): number {
    return 0;
  }
}

const load = (env: Record<string, string>, nodeEnv: NodeEnv): AppConfig =>
  loadConfig(AppConfig, {
    DATABASE_URL: 'postgresql://u@localhost:5432/db',
    ADMIN_API_KEY: 'k'.repeat(40),
    NODE_ENV: nodeEnv,
    ...env,
  });

describe('WebhooksConfig through loadConfig', () => {
  it('applies the contract defaults', () => {
    const c = load({}, 'development');
    expect(c.retryScheduleMs).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(c.WEBHOOK_TIMEOUT_MS).toBe(10_000);
    expect(c.secretGraceMs).toBe(24 * 3_600_000);
    expect(c.disableAfterMs).toBe(5 * 24 * 3_600_000);
    expect([c.allowPrivateUrls, c.requireHttps]).toEqual([true, false]);
  });

  it('allows private URLs by default only outside production', () => {
    expect(load({}, 'test').allowPrivateUrls).toBe(true);
    expect(load({}, 'production').allowPrivateUrls).toBe(false);
    expect(load({}, 'production').requireHttps).toBe(true);
    expect(load({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, 'production').allowPrivateUrls).toBe(true);
    expect(load({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false' }, 'development').allowPrivateUrls).toBe(false);
  });

  it('parses a scaled-down schedule and decimal hours', () => {
    const c = load({ WEBHOOK_RETRY_SCHEDULE: '50ms, 1s,2m', WEBHOOK_SECRET_GRACE_HOURS: '0.5' }, 'test');
    expect(c.retryScheduleMs).toEqual([50, 1_000, 120_000]);
    expect(c.secretGraceMs).toBe(1_800_000);
  });

  it('names every bad variable', () => {
    try {
      load({ WEBHOOK_RETRY_SCHEDULE: '5 minutes', WEBHOOK_ALLOW_PRIVATE_URLS: 'maybe', WEBHOOK_TIMEOUT_MS: 'x' }, 'test');
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems.map(([name]) => name).sort()).toEqual([
        'WEBHOOK_ALLOW_PRIVATE_URLS',
        'WEBHOOK_RETRY_SCHEDULE',
        'WEBHOOK_TIMEOUT_MS',
      ]);
      expect((err as ConfigError).message).toMatch(
        /WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of durations such as 5s,5m,30m,2h \(got "5 minutes"\)/,
      );
    }
  });

  it('requires the lock to outlast the timeout', () => {
    expect(() => load({ WEBHOOK_TIMEOUT_MS: '20000', WEBHOOK_LOCK_DURATION_MS: '15000' }, 'test')).toThrow(
      /WEBHOOK_LOCK_DURATION_MS must be greater than WEBHOOK_TIMEOUT_MS/,
    );
  });

  it('fair-share limits: 4 per endpoint, a quarter of the worker per owner, 16 endpoints per owner', () => {
    const c = load({}, 'test');
    expect([c.WEBHOOK_ENDPOINT_CONCURRENCY, c.ownerConcurrency, c.WEBHOOK_MAX_ENDPOINTS_PER_OWNER]).toEqual([4, 13, 16]);
    expect(load({ WEBHOOK_WORKER_CONCURRENCY: '20' }, 'test').ownerConcurrency).toBe(5);
    expect(load({ WEBHOOK_WORKER_CONCURRENCY: '50' }, 'test').ownerConcurrency).toBe(13);
    expect(load({ WEBHOOK_WORKER_CONCURRENCY: '1' }, 'test').ownerConcurrency).toBe(1);
    expect(load({ WEBHOOK_OWNER_CONCURRENCY: '8' }, 'test').ownerConcurrency).toBe(8);
    expect(load({ WEBHOOK_MAX_ENDPOINTS_PER_OWNER: '0' }, 'test').WEBHOOK_MAX_ENDPOINTS_PER_OWNER).toBe(0);
    expect(() => load({ WEBHOOK_ENDPOINT_CONCURRENCY: '0', WEBHOOK_OWNER_CONCURRENCY: 'x' }, 'test')).toThrow(
      /WEBHOOK_ENDPOINT_CONCURRENCY[\s\S]*WEBHOOK_OWNER_CONCURRENCY|WEBHOOK_OWNER_CONCURRENCY[\s\S]*WEBHOOK_ENDPOINT_CONCURRENCY/,
    );
  });
});
