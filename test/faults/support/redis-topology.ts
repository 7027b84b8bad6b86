/**
 * Real local Redis topologies for the HA fault tests, from Debian's redis-server: a Sentinel
 * group (a primary, a replica and three Sentinels) and a three-master Redis Cluster. Every
 * process gets its own temp directory and free ports; nothing keeps data on disk (like the
 * shared test Redis), so a killed primary loses what it had not replicated yet.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { canPingRedis, freePort } from '../../../scripts/local-infra';
import { sigkill, waitUntil } from './processes';

const run = promisify(execFile);

/** Children still running when the test process exits are killed with it. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** One redis-server process (a data node or a Sentinel). */
class RedisProcess {
  private child: ChildProcess | undefined;
  private output = '';

  constructor(
    readonly port: number,
    private readonly args: readonly string[],
    /** `requirepass` of this server, if any (remembered for withClient). */
    password?: string,
  ) {
    if (password !== undefined) passwords.set(this.address, password);
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn('redis-server', [...this.args], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    live.add(child);
    child.stdout?.on('data', (chunk: Buffer) => (this.output = (this.output + chunk.toString('utf8')).slice(-4000)));
    child.stderr?.on('data', (chunk: Buffer) => (this.output = (this.output + chunk.toString('utf8')).slice(-4000)));
    child.once('exit', () => live.delete(child));
    await waitUntil(
      `redis-server on ${this.port}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server ${this.port} exited with ${child.exitCode}: ${this.output}`);
        const auth = passwords.has(this.address) ? `:${encodeURIComponent(passwords.get(this.address) ?? '')}@` : '';
        return canPingRedis(`redis://${auth}${this.address}`);
      },
      10_000,
    );
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGKILL: a crashed machine, nothing flushed. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    await sigkill(child);
  }
}

/** Passwords of the password-protected servers started here, by address. */
const passwords = new Map<string, string>();

/** A short-lived connection for one administrative command. */
async function withClient<T>(address: string, use: (client: Redis) => Promise<T>): Promise<T> {
  const [host, port] = address.split(':');
  const password = passwords.get(address);
  const client = new Redis({
    host,
    port: Number(port),
    ...(password === undefined ? {} : { password }),
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await use(client);
  } finally {
    client.disconnect();
  }
}

const NO_PERSISTENCE = ['--save', '', '--appendonly', 'no'];

export interface Failover {
  /** The new primary's `host:port`, as the Sentinels report it. */
  readonly primary: string;
  /** From the SIGKILL to the Sentinels naming the new primary. */
  readonly seconds: number;
  /** When the SIGKILL was sent (epoch ms). */
  readonly killedAt: number;
}

/**
 * A primary, one asynchronous replica and three Sentinels (quorum 2) monitoring them under
 * the name `NAME`. Sentinels call the primary down after `downAfterMs` without an answer,
 * then promote the replica.
 */
export class SentinelGroup {
  /**
   * `mymaster-<random>`, one per test file. Not a fixed name: Sentinels keep reconnecting to
   * every node they ever saw, a killed node's port is free for the next group to draw, and a
   * Sentinel adopts a hello with a newer epoch for a master of its own name, so groups of one
   * name (another test file's, a leftover's) took over each other's primary (seen here:
   * GET-MASTER-ADDR-BY-NAME named a node of another process's group).
   */
  static readonly NAME = `mymaster-${randomBytes(4).toString('hex')}`;

  /** The data node killPrimary() killed last, until restartKilled() brings it back. */
  private killed: RedisProcess | undefined;

  private constructor(
    readonly dir: string,
    private readonly dataNodes: RedisProcess[],
    private readonly sentinels: RedisProcess[],
  ) {}

  /**
   * Starts the whole group and waits until the three Sentinels see the primary and its
   * replica. `password`: the data nodes' requirepass (and the replica's masterauth);
   * `sentinelPassword`: the Sentinels' own requirepass.
   */
  static async start(
    options: { downAfterMs?: number; password?: string; sentinelPassword?: string } = {},
  ): Promise<SentinelGroup> {
    const { password, sentinelPassword } = options;
    const dataAuth = password === undefined ? [] : ['--requirepass', password, '--masterauth', password];
    const downAfterMs = options.downAfterMs ?? 1_000;
    const dir = mkdtempSync(join(tmpdir(), 'fault-sentinel-'));
    const ports: number[] = [];
    for (let i = 0; i < 5; i++) ports.push(await uniqueFreePort(ports));
    const [primaryPort, replicaPort, ...sentinelPorts] = ports as [number, number, ...number[]];
    const dataNode = (port: number, extra: string[]): RedisProcess => {
      const nodeDir = join(dir, `node-${port}`);
      mkdirSync(nodeDir);
      return new RedisProcess(
        port,
        ['--port', String(port), '--bind', '127.0.0.1', '--dir', nodeDir, ...NO_PERSISTENCE, ...dataAuth, ...extra],
        password,
      );
    };
    const primary = dataNode(primaryPort, []);
    const replica = dataNode(replicaPort, ['--replicaof', '127.0.0.1', String(primaryPort)]);
    const sentinels = sentinelPorts.map((port) => {
      // A Sentinel rewrites its configuration file, so each gets its own.
      const file = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${SentinelGroup.NAME} 127.0.0.1 ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${SentinelGroup.NAME} ${downAfterMs}`,
          `sentinel failover-timeout ${SentinelGroup.NAME} 10000`,
          `sentinel parallel-syncs ${SentinelGroup.NAME} 1`,
          ...(password === undefined ? [] : [`sentinel auth-pass ${SentinelGroup.NAME} ${password}`]),
          ...(sentinelPassword === undefined
            ? []
            : [`requirepass ${sentinelPassword}`, `sentinel sentinel-pass ${sentinelPassword}`]),
          '',
        ].join('\n'),
      );
      return new RedisProcess(port, [file, '--sentinel'], sentinelPassword);
    });
    const group = new SentinelGroup(dir, [primary, replica], sentinels);
    try {
      await primary.start();
      await replica.start();
      await Promise.all(sentinels.map((s) => s.start()));
      await waitUntil(
        'the Sentinels to see the primary, its replica and each other',
        async () => {
          const views = await Promise.all(
            sentinels.map((s) =>
              withClient(s.address, async (c) => {
                const master = (await c.call('SENTINEL', 'MASTER', SentinelGroup.NAME)) as string[];
                const field = (name: string): string | undefined => master[master.indexOf(name) + 1];
                return Number(field('num-slaves')) >= 1 && Number(field('num-other-sentinels')) >= 2;
              }),
            ),
          );
          return views.every(Boolean);
        },
        20_000,
        200,
      );
      await waitUntil(
        'the replica in sync',
        () => withClient(replica.address, async (c) => (await c.info('replication')).includes('master_link_status:up')),
        10_000,
      );
    } catch (err) {
      await group.destroy();
      throw err;
    }
    return group;
  }

  /**
   * The node killPrimary() killed, once it is down, until restartKilled() brings it back
   * (undefined otherwise): a test restores the group's topology with it in afterEach.
   */
  get killedNode(): string | undefined {
    return this.killed !== undefined && !this.killed.running ? this.killed.address : undefined;
  }

  /** `REDIS_SENTINELS` for the services: the three Sentinels' addresses. */
  get sentinelAddresses(): string {
    return this.sentinels.map((s) => s.address).join(',');
  }

  /** The primary's `host:port` according to the first Sentinel that answers. */
  async primary(): Promise<string> {
    for (const s of this.sentinels) {
      if (!s.running) continue;
      try {
        const [host, port] = await withClient(
          s.address,
          async (c) => (await c.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SentinelGroup.NAME)) as [string, string],
        );
        return `${host}:${port}`;
      } catch {
        // try the next Sentinel
      }
    }
    throw new Error('no Sentinel answered');
  }

  /** Keys in the current primary (to show what a failover lost). */
  async dbsize(): Promise<number> {
    return withClient(await this.primary(), (c) => c.dbsize());
  }

  /** Every key name in the current primary (a test's Redis is small enough for KEYS). */
  async keys(): Promise<string[]> {
    return withClient(await this.primary(), (c) => c.keys('*'));
  }

  /**
   * SIGKILLs the current primary and waits for the Sentinels to promote the replica (the
   * killed one stays down). Returns the new primary and how long the promotion took.
   */
  async killPrimary(): Promise<Failover> {
    const before = await this.primary();
    const node = this.dataNodes.find((n) => n.address === before && n.running);
    if (!node) throw new Error(`the primary ${before} is not one of this group's running nodes`);
    const killedAt = Date.now();
    this.killed = node;
    await node.kill();
    const primary = await waitUntil(
      'a new primary promoted by the Sentinels',
      async () => {
        const now = await this.primary();
        if (now === before) return undefined;
        const role = await withClient(now, async (c) => (await c.info('replication')).includes('role:master'));
        return role ? now : undefined;
      },
      30_000,
      50,
    );
    return { primary, seconds: (Date.now() - killedAt) / 1000, killedAt };
  }

  /**
   * Starts the node killPrimary() killed again, on its port, EMPTY (no persistence), as an
   * operator would: as a replica of the current primary. (Left to its old flags, a former
   * primary comes back as an empty primary, which the Sentinels convert only after it has
   * said so for 8 s: 20 s measured here, against 5 to 10 s this way.) Waits until it is in
   * sync and the three Sentinels list it as a healthy replica, so it can be promoted again.
   * Returns its address and how long the re-attachment took.
   */
  async restartKilled(): Promise<{ replica: string; seconds: number }> {
    const node = this.killed;
    if (!node) throw new Error('no killed node to restart: call killPrimary() first');
    const startedAt = Date.now();
    await node.start();
    this.killed = undefined;
    const [primaryHost, primaryPort] = (await this.primary()).split(':') as [string, string];
    await withClient(node.address, (c) => c.call('REPLICAOF', primaryHost, primaryPort));
    await waitUntil(
      `${node.address} re-attached by the Sentinels as a replica of the primary, in sync`,
      async () => {
        const [host, port] = (await this.primary()).split(':');
        const info = await withClient(node.address, (c) => c.info('replication'));
        if (!info.includes('role:slave') || !info.includes(`master_host:${host}\r\n`)) return false;
        if (!info.includes(`master_port:${port}\r\n`) || !info.includes('master_link_status:up')) return false;
        const views = await Promise.all(
          this.sentinels.map((s) =>
            withClient(s.address, async (c) => {
              const replicas = (await c.call('SENTINEL', 'REPLICAS', SentinelGroup.NAME)) as string[][];
              return replicas.some((r) => {
                const field = (name: string): string | undefined => r[r.indexOf(name) + 1];
                const flags = field('flags') ?? '';
                return field('name') === node.address && flags === 'slave' && field('master-link-status') === 'ok';
              });
            }),
          ),
        );
        return views.every(Boolean);
      },
      30_000,
      200,
    );
    return { replica: node.address, seconds: (Date.now() - startedAt) / 1000 };
  }

  async destroy(): Promise<void> {
    await Promise.all([...this.sentinels, ...this.dataNodes].map((p) => p.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A Redis Cluster of three masters (no replicas), the 16384 slots split between them. */
export class RedisCluster {
  private constructor(
    readonly dir: string,
    private readonly nodes: RedisProcess[],
  ) {}

  static async start(): Promise<RedisCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'fault-cluster-'));
    const ports: number[] = [];
    for (let i = 0; i < 6; i++) ports.push(await uniqueFreePort(ports));
    const nodes = [0, 1, 2].map((i) => {
      const port = ports[i * 2];
      const busPort = ports[i * 2 + 1];
      const nodeDir = join(dir, `node-${port}`);
      mkdirSync(nodeDir);
      return new RedisProcess(port, [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        nodeDir,
        ...NO_PERSISTENCE,
        '--cluster-enabled',
        'yes',
        '--cluster-port',
        String(busPort),
        '--cluster-config-file',
        join(nodeDir, 'nodes.conf'),
        '--cluster-node-timeout',
        '2000',
      ]);
    });
    const cluster = new RedisCluster(dir, nodes);
    try {
      await Promise.all(nodes.map((n) => n.start()));
      await run(
        'redis-cli',
        ['--cluster', 'create', ...nodes.map((n) => n.address), '--cluster-replicas', '0', '--cluster-yes'],
        {
          timeout: 30_000,
        },
      );
      await waitUntil(
        'cluster_state:ok on every node',
        async () => {
          const states = await Promise.all(
            nodes.map((n) => withClient(n.address, (c) => c.call('CLUSTER', 'INFO') as Promise<string>)),
          );
          return states.every((s) => s.includes('cluster_state:ok') && s.includes('cluster_known_nodes:3'));
        },
        20_000,
        200,
      );
    } catch (err) {
      await cluster.destroy();
      throw err;
    }
    return cluster;
  }

  /** `REDIS_CLUSTER_NODES` for the services. */
  get nodeAddresses(): string {
    return this.nodes.map((n) => n.address).join(',');
  }

  /** Keys held by each master, in node order (shows the keys really spread across the cluster). */
  async keysPerNode(): Promise<number[]> {
    return Promise.all(this.nodes.map((n) => withClient(n.address, (c) => c.dbsize())));
  }

  async destroy(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function uniqueFreePort(taken: readonly number[]): Promise<number> {
  for (;;) {
    const port = await freePort(0);
    if (!taken.includes(port)) return port;
  }
}
