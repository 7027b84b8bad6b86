/**
 * A vector-api for a benchmark: a scratch database (created and migrated here, dropped by
 * `stop`), the service forked from its TypeScript sources on a free port of 127.0.0.1, and
 * its liveness awaited (or its exit reported). Used by the HTTP, Qdrant-route and
 * hostile-filter benchmarks.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { migrate } from '@app/platform';
import { freePort, stopChild } from '../http/platform';
import { queryAt } from '../../test/support/database';

export interface ScratchVectorApi {
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  readonly port: number;
  readonly dbName: string;
  /** Stops the service and drops its database. */
  stop(): Promise<void>;
}

export interface ScratchVectorApiOptions {
  /** Prefix of the scratch database's name. */
  readonly prefix: string;
  /** The checkout whose vector-api runs (default: this one). */
  readonly root?: string;
  /** More environment for the service (after the defaults). */
  readonly env?: Readonly<Record<string, string>>;
  /** Node flags of the service (e.g. --cpu-prof). */
  readonly execArgv?: readonly string[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function startScratchVectorApi(options: ScratchVectorApiOptions): Promise<ScratchVectorApi> {
  const root = options.root ?? join(__dirname, '..', '..');
  const adminUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const dbName = `${options.prefix}_${randomBytes(4).toString('hex')}`;
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  let api: ChildProcess | undefined;
  const stop = async (): Promise<void> => {
    await stopChild(api);
    await queryAt(adminUrl, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  };
  await queryAt(adminUrl, `CREATE DATABASE ${dbName}`);
  try {
    await migrate(dbUrl.toString());
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    api = fork(join(root, 'bench', 'ts-run.mjs'), [join(root, 'apps/vector-api/src/main.ts')], {
      cwd: root,
      execArgv: [...(options.execArgv ?? [])],
      env: {
        ...process.env,
        NODE_ENV: 'development',
        DATABASE_URL: dbUrl.toString(),
        REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        VECTOR_PORT: String(port),
        LOG_LEVEL: 'error',
        VECTOR_RATE_LIMIT_PER_MINUTE: '100000000',
        ...options.env,
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const child = api;
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`vector-api exited with code ${code}`))),
    );
    exited.catch(() => undefined);
    const ready = (async () => {
      for (let i = 0; i < 600; i++) {
        try {
          if ((await fetch(`${base}/health/live`)).ok) return;
        } catch {
          // not listening yet
        }
        await sleep(100);
      }
      throw new Error('vector-api did not start within 60 s');
    })();
    await Promise.race([ready, exited]);
    return { base, port, dbName, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
