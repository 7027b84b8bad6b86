import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { ConnectionOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { ThrottledWarning } from '../logging/throttled-warning';
import { withTimeout } from '../timeout';

/** Connection settings parsed from REDIS_URL, shared by ioredis and BullMQ. */
export function redisOptionsFromUrl(url: string): RedisOptions {
  const u = new URL(url);
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0;
  return {
    host: u.hostname,
    port: u.port === '' ? 6379 : Number(u.port),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    db: Number.isInteger(db) ? db : 0,
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * The service's Redis. `commands` is for short request-path commands (health, rate
 * limits): it fails fast instead of queueing while Redis is down, so a dead Redis never
 * stalls a request. BullMQ gets its own connections from `bullConnection()`.
 */
@Injectable()
export class RedisService implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  readonly commands: Redis;
  private readonly warnings = new ThrottledWarning(this.logger);
  /** Once shutting down, BullMQ's connections stop reconnecting so the process can exit even without Redis. */
  private closing = false;
  private everReady = false;
  private readonly reconnectListeners = new Set<() => void>();

  constructor(readonly url: string) {
    this.commands = new Redis({
      ...redisOptionsFromUrl(url),
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      retryStrategy: (times) => Math.min(times * 200, 2_000),
    });
    this.commands.on('error', (err: Error) => this.warnings.warn(`Redis connection problem: ${err.message}`));
    this.commands.on('ready', () => {
      if (this.everReady && !this.closing) {
        this.logger.log('Redis connection is back');
        for (const listener of this.reconnectListeners) listener();
      }
      this.everReady = true;
    });
  }

  /**
   * Calls `listener` each time Redis answers again after the connection was lost. Redis may
   * have restarted EMPTY (no persistence, a failover): whatever lived only there (delayed
   * jobs, job schedulers) must then be re-created from PostgreSQL. Returns an unsubscribe.
   */
  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  /** Options for BullMQ Queue/Worker connections (workers need maxRetriesPerRequest null). */
  bullConnection(): ConnectionOptions {
    const o = redisOptionsFromUrl(this.url);
    return {
      host: o.host,
      port: o.port,
      db: o.db,
      ...(o.username === undefined ? {} : { username: o.username }),
      ...(o.password === undefined ? {} : { password: o.password }),
      ...(o.tls === undefined ? {} : { tls: o.tls }),
      maxRetriesPerRequest: null,
      enableOfflineQueue: true,
      retryStrategy: (times: number) => (this.closing ? null : Math.min(times * 200, 2_000)),
    };
  }

  /** Called at the start of shutdown: from now on, lost BullMQ connections are not re-opened. */
  stopReconnecting(): void {
    this.closing = true;
    this.reconnectListeners.clear();
  }

  /** PING, waiting up to `timeoutMs` for the connection (e.g. right after boot). */
  async ping(timeoutMs: number): Promise<void> {
    let onReady: (() => void) | undefined;
    const connected =
      this.commands.status === 'ready'
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            onReady = resolve;
            this.commands.once('ready', resolve);
          });
    try {
      await withTimeout(
        connected.then(() => this.commands.ping()),
        timeoutMs,
        `no PONG within ${timeoutMs} ms`,
      );
    } finally {
      if (onReady) this.commands.off('ready', onReady);
    }
  }

  onApplicationShutdown(): void {
    this.commands.disconnect();
  }
}
