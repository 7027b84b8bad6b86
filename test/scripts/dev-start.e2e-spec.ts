/**
 * `npm start`'s demo data hook (scripts/dev-start.ts), run as npm start runs it: the BUILT
 * launcher as a child process, on a fresh database, the test Redis with its own queue
 * prefix, free ports. What it prints is what a new user sees.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/local-infra';
import { ADMIN_KEY } from '../clients/support';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { assertBuilt, dropQueueKeys, queuePrefix, sharedRedisUrl, waitUntil } from '../faults/support/processes';

const LAUNCHER = join(process.cwd(), 'dist', 'scripts', 'dev-start.js');

interface Launch {
  readonly child: ChildProcess;
  readonly ports: { offers: number; vector: number; payments: number };
  output(): string;
  /** SIGTERM, as Ctrl-C; resolves with the exit code. */
  stop(): Promise<number | null>;
}

async function launch(
  db: TestDatabase,
  prefix: string,
  dataDir: string,
  env: Record<string, string>,
  args: string[] = [],
): Promise<Launch> {
  const ports = { offers: await freePort(0), vector: await freePort(0), payments: await freePort(0) };
  const child = spawn(process.execPath, [LAUNCHER, ...args], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      REDIS_URL: sharedRedisUrl(),
      QUEUE_PREFIX: prefix,
      DATA_DIR: dataDir,
      ADMIN_API_KEY: ADMIN_KEY,
      OFFERS_PORT: String(ports.offers),
      VECTOR_PORT: String(ports.vector),
      PAYMENTS_PORT: String(ports.payments),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  return {
    child,
    ports,
    output: () => out,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

/** The `[start] …` lines (the services' own JSON log lines left out). */
const startLines = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('[start] '));

describe('npm start: demo data and console links', () => {
  let db: TestDatabase;
  let dataDir: string;
  const prefixes: string[] = [];
  const running: Launch[] = [];

  beforeAll(() => {
    assertBuilt();
    if (!existsSync(LAUNCHER)) throw new Error(`${LAUNCHER} is missing: run \`npm run build\` (npm test does it)`);
    dataDir = mkdtempSync(join(tmpdir(), 'dev-start-seed-'));
  });
  beforeEach(async () => {
    db = await createTestDatabase();
    prefixes.push(queuePrefix('dev-start'));
  });
  afterEach(async () => {
    for (const l of running.splice(0)) await l.stop();
    await db.drop();
  });
  afterAll(async () => {
    for (const p of prefixes) await dropQueueKeys(sharedRedisUrl(), p);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('in development, seeds the empty database once and prints a console line per service on every start', async () => {
    const first = await launch(db, prefixes.at(-1) ?? '', dataDir, { NODE_ENV: 'development' });
    running.push(first);
    await waitUntil(
      'the demo data lines',
      () => first.output().includes('[start] demo data: DEV_SEED=false turns this off'),
      90_000,
    );
    const lines = startLines(first.output());
    expect(lines.filter((l) => / seeded \(/.test(l)).map((l) => l.replace(/ seeded .*/, ''))).toEqual([
      '[start] demo data: Demo Broker',
      '[start] demo data: Demo Project',
      '[start] demo data: Demo Shop',
    ]);
    const consoleLines = lines.filter((l) => l.startsWith('[start] console: ')).map((l) => l.split(/\s+/).slice(2, 4));
    expect(consoleLines.map(([service]) => service)).toEqual(['offers', 'vector', 'payments']);
    const { offers, vector, payments } = first.ports;
    expect(consoleLines.map(([, url]) => url?.replace(/#token=cl_[A-Za-z0-9]+$/, '#token=…'))).toEqual(
      [offers, vector, payments].map((port) => `http://127.0.0.1:${port}/console/sign-in#token=…`),
    );
    expect(await first.stop()).toBe(0);

    // a second start (one service alone): nothing seeded, a console line for that service only
    const second = await launch(db, prefixes.at(-1) ?? '', dataDir, { NODE_ENV: 'development' }, ['vector-api']);
    running.push(second);
    await waitUntil(
      'the demo data lines',
      () => second.output().includes('[start] demo data: DEV_SEED=false turns this off'),
      60_000,
    );
    const again = startLines(second.output());
    expect(again.filter((l) => / seeded \(/.test(l))).toEqual([]);
    expect(again.filter((l) => l.startsWith('[start] console: ')).map((l) => l.split(/\s+/)[2])).toEqual(['vector']);
    const projects = await fetch(`http://127.0.0.1:${second.ports.vector}/admin/v1/projects`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(((await projects.json()) as { data: Array<{ name: string }> }).data.map((p) => p.name).sort()).toEqual([
      'Demo Project',
      'default',
    ]);
  }, 180_000);

  it('DEV_SEED=false: says so and seeds nothing', async () => {
    const l = await launch(db, prefixes.at(-1) ?? '', dataDir, { NODE_ENV: 'development', DEV_SEED: 'false' }, ['vector-api']);
    running.push(l);
    await waitUntil('the demo data line', () => l.output().includes('[start] demo data: off (DEV_SEED=false)'), 60_000);
    const projects = await fetch(`http://127.0.0.1:${l.ports.vector}/admin/v1/projects`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(((await projects.json()) as { data: Array<{ name: string }> }).data.map((p) => p.name)).toEqual(['default']);
    expect(startLines(l.output()).filter((line) => line.includes('console:'))).toEqual([]);
  }, 90_000);
});
