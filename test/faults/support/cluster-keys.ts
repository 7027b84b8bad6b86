/**
 * Looking inside a Redis Cluster from the test: every key of every master (SCAN node by
 * node, since a cluster client's SCAN reaches one node only), the hash tag that decides a
 * key's slot, and a BullMQ queue opened from outside with a service's cluster prefix.
 */
import { Queue } from 'bullmq';
import { Cluster, Redis } from 'ioredis';

function hostPort(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  return { host: address.slice(0, i), port: Number(address.slice(i + 1)) };
}

/** A cluster client for the test (REDIS_CLUSTER_NODES-style `host:port,…`); disconnect() it when done. */
export function clusterClient(nodeAddresses: string): Cluster {
  const cluster = new Cluster(nodeAddresses.split(',').map(hostPort), { redisOptions: { maxRetriesPerRequest: 3 } });
  cluster.on('error', () => undefined);
  return cluster;
}

export interface NodeKeys {
  readonly node: string;
  readonly keys: string[];
}

/** Every key held by each master, in `nodeAddresses` order. */
export async function keysByNode(nodeAddresses: string): Promise<NodeKeys[]> {
  return Promise.all(
    nodeAddresses.split(',').map(async (node) => {
      const redis = new Redis({ ...hostPort(node), lazyConnect: true, maxRetriesPerRequest: 1 });
      redis.on('error', () => undefined);
      try {
        await redis.connect();
        const keys: string[] = [];
        let cursor = '0';
        do {
          const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
          cursor = next;
          keys.push(...batch);
        } while (cursor !== '0');
        return { node, keys: keys.sort() };
      } finally {
        redis.disconnect();
      }
    }),
  );
}

/**
 * The part of `key` Redis hashes to choose its slot: what lies between the first `{` and
 * the next `}`, if that is not empty (cluster specification, "Hash tags"); undefined when
 * the whole key is hashed.
 */
export function hashTag(key: string): string | undefined {
  const open = key.indexOf('{');
  if (open < 0) return undefined;
  const close = key.indexOf('}', open + 1);
  if (close < 0 || close === open + 1) return undefined;
  return key.slice(open + 1, close);
}

/** A BullMQ queue opened from the test, and how to close it with its connection. */
export interface OpenQueue {
  readonly queue: Queue;
  close(): Promise<void>;
}

/**
 * A BullMQ queue of a service, reached as the service reaches it in cluster mode: key prefix
 * `{<QUEUE_PREFIX>:<queue name>}` on a cluster connection.
 */
export function serviceQueue(nodeAddresses: string, queuePrefix: string, name: string): OpenQueue {
  const connection = clusterClient(nodeAddresses);
  const queue = new Queue(name, { connection, prefix: `{${queuePrefix}:${name}}` });
  queue.on('error', () => undefined);
  return {
    queue,
    close: async () => {
      await queue.close();
      connection.disconnect();
    },
  };
}
