import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/** A Redis server's address. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/**
 * How the services reach Redis (docs/operations.md, "Redis topologies"):
 * - `single`: one server at a URL (a managed endpoint that fails over behind one address counts);
 * - `sentinel`: ask the Sentinels which server is the primary, and ask again after a failover;
 * - `cluster`: Redis Cluster, keys spread by hash slot over several primaries.
 */
export type RedisTopology =
  | { readonly mode: 'single'; readonly url: string }
  | {
      readonly mode: 'sentinel';
      readonly sentinels: readonly HostPort[];
      readonly name: string;
      readonly sentinelPassword?: string;
      readonly username?: string;
      readonly password?: string;
    }
  | { readonly mode: 'cluster'; readonly nodes: readonly HostPort[]; readonly username?: string; readonly password?: string };

/** A connection of either kind: the commands the platform uses exist on both. */
export type RedisClient = Redis | Cluster;

/** Milliseconds before reconnect attempt `times`: 0.2 s more each time, at most 2 s. */
export function reconnectDelay(times: number): number {
  return Math.min(times * 200, 2_000);
}

/** An IPv6 address without the brackets a URL or a `host:port` puts around it. */
function unbracket(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

/** `host:port` with a port in 1–65535; IPv6 in brackets (`[::1]:6379`). */
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?):(\d{1,5})$/;

/** Parses `host:port,host:port,…`; undefined if any entry is malformed or the list is empty. */
export function parseHostPorts(value: string): HostPort[] | undefined {
  const entries = value.split(',').map((e) => e.trim());
  const parsed: HostPort[] = [];
  for (const entry of entries) {
    const m = HOST_PORT.exec(entry);
    const port = Number(m?.[2]);
    if (!m?.[1] || !Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
    parsed.push({ host: unbracket(m[1]), port });
  }
  return parsed.length > 0 && parsed.length <= 64 ? parsed : undefined;
}

/** Connection settings parsed from REDIS_URL, shared by ioredis and BullMQ. */
export function redisOptionsFromUrl(url: string): RedisOptions {
  const u = new URL(url);
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0;
  return {
    host: unbracket(u.hostname),
    port: u.port === '' ? 6379 : Number(u.port),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    db: Number.isInteger(db) ? db : 0,
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/** Where the topology's data nodes are, for logs: never a password. */
export function describeTopology(topology: RedisTopology): string {
  switch (topology.mode) {
    case 'single': {
      const o = redisOptionsFromUrl(topology.url);
      return `single server ${o.host ?? ''}:${o.port ?? 6379}`;
    }
    case 'sentinel':
      return `Sentinel master '${topology.name}' via ${topology.sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`;
    case 'cluster':
      return `cluster via ${topology.nodes.map((s) => `${s.host}:${s.port}`).join(',')}`;
  }
}

/**
 * The options of one connection to the topology's primary (single and sentinel modes), or
 * of each node connection of a cluster, with `behaviour` (retries, offline queue, timeouts)
 * on top. In sentinel mode ioredis asks the Sentinels for the primary at every (re)connect
 * and checks the server it reached really is the primary (`role`); a primary demoted while
 * still up (a manual SENTINEL FAILOVER) answers writes with READONLY, on which the
 * connection reconnects (to the new primary) and sends the command again. ioredis's
 * `failoverDetector` is not used: measured here (ioredis 6.0), when it fired while a
 * connection was already reconnecting after the primary died, it ended the connection for
 * good instead of reconnecting (docs/decisions.md).
 */
export function nodeOptions(topology: RedisTopology, behaviour: RedisOptions): RedisOptions {
  switch (topology.mode) {
    case 'single':
      return { ...redisOptionsFromUrl(topology.url), ...behaviour };
    case 'sentinel':
      return {
        sentinels: topology.sentinels.map((s) => ({ host: s.host, port: s.port })),
        name: topology.name,
        role: 'master',
        reconnectOnError: (err: Error) => (err.message.startsWith('READONLY') ? 2 : false),
        ...(topology.sentinelPassword === undefined ? {} : { sentinelPassword: topology.sentinelPassword }),
        ...credentials(topology),
        // While every Sentinel is unreachable, keep asking as for a lost primary (and stop
        // when the connection's own strategy stops: a shutdown).
        sentinelRetryStrategy: (times: number) =>
          behaviour.retryStrategy ? behaviour.retryStrategy(times) : reconnectDelay(times),
        ...behaviour,
      };
    case 'cluster':
      return { ...credentials(topology), ...behaviour };
  }
}

/**
 * A new connection to the topology. Cluster connections refresh the slot map on MOVED/ASK
 * (a resharding, a replica promoted), retry a redirected command, and keep each node
 * connection's `behaviour`.
 */
export function connect(topology: RedisTopology, behaviour: RedisOptions): RedisClient {
  if (topology.mode !== 'cluster') return new Redis(nodeOptions(topology, behaviour));
  const options: ClusterOptions = {
    redisOptions: nodeOptions(topology, behaviour),
    enableOfflineQueue: behaviour.enableOfflineQueue ?? true,
    clusterRetryStrategy: reconnectDelay,
    ...(behaviour.lazyConnect === undefined ? {} : { lazyConnect: behaviour.lazyConnect }),
  };
  return new Cluster(
    topology.nodes.map((n) => ({ host: n.host, port: n.port })),
    options,
  );
}

/**
 * The BullMQ key prefix of one queue. BullMQ's Lua scripts touch several keys of a queue at
 * once, which Redis Cluster allows only within one hash slot: in cluster mode the prefix is
 * a hash tag naming the deployment's prefix and the queue (`{bull:webhook-delivery}`), so
 * each queue's keys share a slot and different queues spread over the primaries.
 */
export function queueKeyPrefix(topology: RedisTopology, queuePrefix: string, queueName: string): string {
  return topology.mode === 'cluster' ? `{${queuePrefix}:${queueName}}` : queuePrefix;
}

function credentials(t: { readonly username?: string; readonly password?: string }): RedisOptions {
  return {
    ...(t.username === undefined ? {} : { username: t.username }),
    ...(t.password === undefined ? {} : { password: t.password }),
  };
}
