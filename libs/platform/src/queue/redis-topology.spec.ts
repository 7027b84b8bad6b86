import { Expose, Type } from 'class-transformer';
import { IsInt } from 'class-validator';
import { loadConfig } from '../config/load-config';
import { PlatformConfig } from '../config/platform-config';
import { problemsOf } from '../../../../test/support/config-problems';
import { describeTopology, nodeOptions, parseHostPorts, queueKeyPrefix } from './redis-topology';

class AppConfig extends PlatformConfig {
  @Expose()
  @Type(() => Number)
  @IsInt()
  APP_PORT: number = 3000;

  get port(): number {
    return this.APP_PORT;
  }
}

const base = { DATABASE_URL: 'postgresql://u@localhost:5432/db' };
const load = (env: Record<string, string>) => loadConfig(AppConfig, { ...base, ...env });

describe('Redis topology configuration', () => {
  it('parses host:port lists, IPv6 in brackets, and rejects anything else', () => {
    expect(parseHostPorts('10.0.0.1:26379, sentinel-2.internal:26379,[::1]:26380')).toEqual([
      { host: '10.0.0.1', port: 26379 },
      { host: 'sentinel-2.internal', port: 26379 },
      { host: '::1', port: 26380 },
    ]);
    for (const bad of ['', '10.0.0.1', '10.0.0.1:0', 'host:70000', 'host:26379,', 'redis://host:6379', 'a b:1', '::1:6379']) {
      expect({ bad, parsed: parseHostPorts(bad) }).toEqual({ bad, parsed: undefined });
    }
  });

  it('single server: REDIS_URL, or the local default', () => {
    expect(load({}).redisTopology).toEqual({ mode: 'single', url: 'redis://127.0.0.1:6379' });
    expect(load({ REDIS_URL: 'rediss://u:p@cache:6380/2' }).redisTopology).toEqual({
      mode: 'single',
      url: 'rediss://u:p@cache:6380/2',
    });
  });

  it('Sentinel: the Sentinels, the master name, the passwords', () => {
    const config = load({
      REDIS_SENTINELS: '10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379',
      REDIS_SENTINEL_NAME: 'platform',
      REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
      REDIS_PASSWORD: 'data-secret',
    });
    expect(config.redisTopology).toEqual({
      mode: 'sentinel',
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: '10.0.0.2', port: 26379 },
        { host: '10.0.0.3', port: 26379 },
      ],
      name: 'platform',
      sentinelPassword: 'sentinel-secret',
      password: 'data-secret',
    });
    const options = nodeOptions(config.redisTopology, { maxRetriesPerRequest: 1 });
    expect(options).toMatchObject({
      name: 'platform',
      role: 'master',
      sentinelPassword: 'sentinel-secret',
      password: 'data-secret',
      maxRetriesPerRequest: 1,
    });
    // (ioredis' failoverDetector can end a reconnecting connection for good: see nodeOptions)
    expect(options.failoverDetector).toBeUndefined();
    // a demoted primary's READONLY reconnects (to the new primary) and resends; other errors do not
    const reconnectOnError = options.reconnectOnError as (err: Error) => boolean | 1 | 2;
    expect(reconnectOnError(new Error("READONLY You can't write against a read only replica."))).toBe(2);
    expect(reconnectOnError(new Error('ERR wrong number of arguments'))).toBe(false);
    expect(describeTopology(config.redisTopology)).toBe(
      "Sentinel master 'platform' via 10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379",
    );
    expect(describeTopology(config.redisTopology)).not.toContain('secret');
  });

  it('Cluster: the seed nodes and credentials', () => {
    const config = load({ REDIS_CLUSTER_NODES: 'r1:6379,r2:6379', REDIS_USERNAME: 'svc', REDIS_PASSWORD: 'pw' });
    expect(config.redisTopology).toEqual({
      mode: 'cluster',
      nodes: [
        { host: 'r1', port: 6379 },
        { host: 'r2', port: 6379 },
      ],
      username: 'svc',
      password: 'pw',
    });
  });

  it('names every inconsistent or malformed variable', () => {
    expect(problemsOf(() => load({ REDIS_SENTINELS: 'nope' }))).toEqual(['REDIS_SENTINELS']);
    expect(() => load({ REDIS_SENTINELS: 'nope' })).toThrow(
      /REDIS_SENTINELS must be a comma-separated list of host:port \(e\.g\. 10\.0\.0\.1:26379,10\.0\.0\.2:26379,10\.0\.0\.3:26379\) \(got "nope"\)/,
    );
    expect(problemsOf(() => load({ REDIS_CLUSTER_NODES: 'r1:6379,' }))).toEqual(['REDIS_CLUSTER_NODES']);
    expect(problemsOf(() => load({ REDIS_SENTINEL_NAME: 'has space' }))).toEqual(['REDIS_SENTINEL_NAME']);
    expect(problemsOf(() => load({ REDIS_SENTINELS: 's1:26379' }))).toEqual(['REDIS_SENTINEL_NAME']);
    expect(problemsOf(() => load({ REDIS_URL: 'redis://a:6379', REDIS_CLUSTER_NODES: 'r1:6379' }))).toEqual([
      'REDIS_CLUSTER_NODES',
    ]);
    expect(
      problemsOf(() => load({ REDIS_SENTINELS: 's1:26379', REDIS_SENTINEL_NAME: 'm', REDIS_CLUSTER_NODES: 'r1:6379' })),
    ).toEqual(['REDIS_CLUSTER_NODES']);
    expect(problemsOf(() => load({ REDIS_SENTINEL_NAME: 'm' }))).toEqual(['REDIS_SENTINEL_NAME']);
    expect(problemsOf(() => load({ REDIS_CLUSTER_NODES: 'r1:6379', REDIS_SENTINEL_PASSWORD: 'x' }))).toEqual([
      'REDIS_SENTINEL_PASSWORD',
    ]);
    expect(problemsOf(() => load({ REDIS_PASSWORD: 'x' }))).toEqual(['REDIS_PASSWORD']);
    // a password is never echoed back in the error
    expect(() => load({ REDIS_PASSWORD: 'do-not-print-me' })).toThrow(/REDIS_PASSWORD is only used with/);
    expect(() => load({ REDIS_PASSWORD: 'do-not-print-me' })).not.toThrow(/do-not-print-me/);
  });

  it('hash-tags each queue prefix in cluster mode only', () => {
    const cluster = load({ REDIS_CLUSTER_NODES: 'r1:6379' }).redisTopology;
    const single = load({}).redisTopology;
    expect(queueKeyPrefix(cluster, 'bull', 'webhook-delivery')).toBe('{bull:webhook-delivery}');
    expect(queueKeyPrefix(single, 'bull', 'webhook-delivery')).toBe('bull');
  });
});
