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
      // the assertions read plain text, whatever the CI's terminal settings
      FORCE_COLOR: '0',
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
  it('in development, prints short lines: under 40 before the console links, no JSON, a startup line per service, one line per request', async () => {
    const l = await launch(db, prefixes.at(-1) ?? '', dataDir, { NODE_ENV: 'development', LOG_LEVEL: 'info' });
    running.push(l);
    await waitUntil('the logs line after the demo data', () => l.output().includes('[start] logs: one line per request'), 90_000);
    const lines = l.output().split('\n');
    const firstLink = lines.findIndex((line) => line.startsWith('[start] console: '));
    process.stdout.write(`npm start: ${firstLink} lines before the first console link, ${lines.length} in all\n`);
    expect(firstLink).toBeGreaterThan(0);
    expect(firstLink).toBeLessThan(40);
    expect(lines.filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
    expect(lines.filter((line) => /Mapped \{|dependencies initialized|incoming request/.test(line))).toEqual([]);
    for (const [name, port] of Object.entries({
      'offers-api': l.ports.offers,
      'vector-api': l.ports.vector,
      'payments-api': l.ports.payments,
    })) {
      expect(
        lines.filter((line) => new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${name} +listening on http://\\S+:${port}$`).test(line)),
      ).toHaveLength(1);
    }
    expect(l.output()).not.toContain('\u001b[');

    // a request after start: exactly one line, found by its request id
    const res = await fetch(`http://127.0.0.1:${l.ports.payments}/v2/payments?limit=1`);
    expect(res.status).toBe(401);
    const requestId = res.headers.get('request-id') ?? '';
    const short = requestId.slice(0, 'req_'.length + 8);
    expect(short).toMatch(/^req_[0-9a-f]{8}$/);
    await waitUntil('the request line', () => l.output().includes(short), 10_000);
    await new Promise((r) => setTimeout(r, 300));
    const mine = l
      .output()
      .split('\n')
      .filter((line) => line.includes(short));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatch(/^\d\d:\d\d:\d\d payments-api +GET \/v2\/payments\?limit=1 401 \d+\.\d ms {2}req_[0-9a-f]{8}$/);
  }, 150_000);

  it('LOG_FORMAT=json: the services write JSON lines, every one of them', async () => {
    const l = await launch(
      db,
      prefixes.at(-1) ?? '',
      dataDir,
      { NODE_ENV: 'development', DEV_SEED: 'false', LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
      ['vector-api'],
    );
    running.push(l);
    await waitUntil('the demo data line', () => l.output().includes('[start] demo data: off (DEV_SEED=false)'), 60_000);
    const json = l
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { service: string; msg: string });
    expect(json.length).toBeGreaterThan(10); // Nest's route lines stay in JSON
    expect(json.filter((line) => line.msg.startsWith('vector-api listening on '))).toHaveLength(1);
    expect(l.output()).not.toContain('[start] logs: one line per request');
  }, 90_000);
});
