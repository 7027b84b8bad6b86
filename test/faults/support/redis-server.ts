/**
 * A private redis-server for one test: its own temp directory and free port, so it can be
 * killed and restarted without touching the shared Redis at 6379.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { canPingRedis, freePort } from '../../../scripts/local-infra';
import { sigkill, waitUntil } from './processes';

export class PrivateRedis {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  /** Not started yet: call `start()`. */
  static async create(): Promise<PrivateRedis> {
    return new PrivateRedis(await freePort(0), mkdtempSync(join(tmpdir(), 'fault-redis-')));
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /**
   * Starts redis-server on the same port and directory. `persistent`: AOF with fsync on every
   * write (what survives a SIGKILL is everything acknowledged); otherwise nothing is kept
   * and any previous AOF is deleted first, so Redis comes back EMPTY.
   */
  async start(options: { persistent: boolean }): Promise<void> {
    if (this.child) throw new Error('private redis-server already running');
    if (!options.persistent) {
      rmSync(join(this.dir, 'appendonlydir'), { recursive: true, force: true });
      rmSync(join(this.dir, 'dump.rdb'), { force: true });
    }
    const persistence = options.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', ...persistence],
      { stdio: 'ignore' },
    );
    const child = this.child;
    await waitUntil(
      `redis-server on ${this.port}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
        return canPingRedis(this.url);
      },
      10_000,
    );
  }

  /** Started and not killed since (a test restores it in afterEach). */
  get running(): boolean {
    return this.child !== undefined;
  }

  /** SIGKILL: whatever was not fsynced is lost (with `persistent`, nothing acknowledged is). */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    await sigkill(child);
  }

  /** Number of keys (0 = empty), through a short-lived connection. */
  async dbsize(): Promise<number> {
    const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await client.dbsize();
    } finally {
      client.disconnect();
    }
  }

  async destroy(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
