import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { ConnectionOptions } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { ThrottledWarning } from '../logging/throttled-warning';
import { withTimeout } from '../timeout';
import { connect, describeTopology, nodeOptions, reconnectDelay, type RedisClient, type RedisTopology } from './redis-topology';

/**
 * The service's Redis, in whichever topology the configuration names (single server,
 * Sentinel group, Cluster). `commands` is for short request-path commands (health, rate
 * limits): it fails fast instead of queueing while Redis is down, so a dead Redis never
 * stalls a request. BullMQ gets its own connections from `bullConnection()`, long-lived
 * subscribers theirs from `connect()`.
 */
@Injectable()
export class RedisService implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  readonly commands: RedisClient;
  private readonly warnings = new ThrottledWarning(this.logger);
  /** Once shutting down, BullMQ's connections stop reconnecting so the process can exit even without Redis. */
  private closing = false;
  private everReady = false;
  private readonly reconnectListeners = new Set<() => void>();
  /** The retry strategy of BullMQ's and subscribers' connections: none once shutting down. */
  private readonly retryUntilClosing = (times: number): number | null => (this.closing ? null : reconnectDelay(times));
  /** Connections handed out by connect() and bullConnection() (cluster mode), closed at shutdown. */
  private readonly opened = new Set<RedisClient>();

  constructor(readonly topology: RedisTopology) {
    this.logger.log(`Redis: ${describeTopology(topology)}`);
    this.commands = connect(topology, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      retryStrategy: reconnectDelay,
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

  /**
   * The connection for a BullMQ Queue or Worker (workers need maxRetriesPerRequest null).
   * Single and sentinel modes: options, from which BullMQ opens and closes its own
   * connections. Cluster mode: BullMQ needs a Cluster instance, which this service closes
   * at shutdown (after the queues and workers).
   */
  bullConnection(): ConnectionOptions {
    const retryStrategy = this.retryUntilClosing;
    const behaviour: RedisOptions = { maxRetriesPerRequest: null, enableOfflineQueue: true };
    if (this.topology.mode === 'cluster') return this.track(connect(this.topology, { ...behaviour, retryStrategy }));
    // (ioredis' own type allows retryStrategy null, BullMQ's does not: set it here)
    return { ...nodeOptions(this.topology, behaviour), retryStrategy };
  }

  /**
   * A new dedicated connection (a pub/sub subscriber): commands wait through a reconnect
   * instead of failing. Closed at shutdown.
   */
  connect(): RedisClient {
    return this.track(
      connect(this.topology, {
        enableOfflineQueue: true,
        maxRetriesPerRequest: null,
        retryStrategy: this.retryUntilClosing,
      }),
    );
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
        connected.then(() => this.check()),
        timeoutMs,
        `no PONG within ${timeoutMs} ms`,
      );
    } finally {
      if (onReady) this.commands.off('ready', onReady);
    }
  }

  /**
   * PING; in cluster mode CLUSTER INFO instead, which must say `cluster_state:ok` (every slot
   * served): one node answering says nothing about the others.
   */
  private async check(): Promise<void> {
    if (this.topology.mode !== 'cluster') {
      await this.commands.ping();
      return;
    }
    const info = String(await this.commands.call('CLUSTER', 'INFO'));
    if (!info.includes('cluster_state:ok')) throw new Error('the Redis Cluster reports cluster_state other than ok');
  }

  onApplicationShutdown(): void {
    this.commands.disconnect();
    for (const client of this.opened) client.disconnect();
    this.opened.clear();
  }

  private track<T extends RedisClient>(client: T): T {
    this.opened.add(client);
    client.once('end', () => this.opened.delete(client));
    return client;
  }
}
