/**
 * The built services as an operator runs them (`node dist/apps/<app>/src/main.js`):
 * config errors stop the boot naming the variable; SIGTERM drains and exits 0.
 * `npm test` builds first (pretest).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../scripts/local-infra';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { waitFor } from '../support/wait';

const main = (app: string): string => join(process.cwd(), 'dist', 'apps', app, 'src', 'main.js');

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  app: string,
  env: Record<string, string>,
  onStart?: (kill: (s: NodeJS.Signals) => void) => Promise<void>,
): Promise<Exit> {
  // Only what the test passes: the runner's own DATABASE_URL etc. must not leak in.
  const child = spawn(process.execPath, [main(app)], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
  if (!onStart) return exited;
  // onStart's assertions fail the test (not an unhandled rejection), and then the child goes too
  const started = onStart((s) => child.kill(s)).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  return Promise.all([exited, started]).then(([exit]) => exit);
}

function waitForLive(port: number): Promise<true> {
  return waitFor(
    `the service on ${port} to be live`,
    async () => (await fetch(`http://127.0.0.1:${port}/health/live`)).ok,
    { timeoutMs: 10_000, retryErrors: true }, // connection refused until it listens
  );
}

describe('service boot and shutdown (built output)', () => {
  beforeAll(() => {
    if (!existsSync(main('offers-api'))) throw new Error('dist/ is missing: run `npm run build` (npm test does it in pretest)');
  });

  it('exits 1 at boot naming the missing and the invalid variable', async () => {
    const result = await run('vector-api', { VECTOR_PORT: 'eighty' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^vector-api: Invalid configuration: /);
    expect(result.stderr).toContain('DATABASE_URL');
    expect(result.stderr).toMatch(/VECTOR_PORT .*got "eighty"/);
  });

  it('refuses to boot in production with the development admin key', async () => {
    const result = await run('payments-api', { NODE_ENV: 'production', DATABASE_URL: 'postgresql://x@127.0.0.1:1/x' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ADMIN_API_KEY must be set to a random value/);
  });

  describe('with a database', () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createTestDatabase();
    });
    afterAll(async () => {
      await db.drop();
    });

    it('serves, then on SIGTERM drains, closes pools and exits 0', async () => {
      const port = await freePort(0);
      const result = await run(
        'offers-api',
        {
          DATABASE_URL: db.url,
          REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
          OFFERS_PORT: String(port),
          HOST: '127.0.0.1',
        },
        async (kill) => {
          await waitForLive(port);
          const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
          expect(ready.status).toBe(200);
          kill('SIGTERM');
        },
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('offers-api shutting down');
      expect(result.stdout).toContain('"msg":"offers-api stopped"');
    });

    it('LOG_FORMAT=pretty: short lines of its own formatter on stdout, no JSON, one line per request', async () => {
      const port = await freePort(0);
      let requestId = '';
      const result = await run(
        'offers-api',
        {
          DATABASE_URL: db.url,
          REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
          OFFERS_PORT: String(port),
          HOST: '127.0.0.1',
          LOG_FORMAT: 'pretty',
        },
        async (kill) => {
          await waitForLive(port);
          const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
          expect(res.status).toBe(200);
          requestId = res.headers.get('request-id') ?? '';
          kill('SIGTERM');
        },
      );
      expect(result.code).toBe(0);
      const lines = result.stdout.split('\n').filter((l) => l !== '');
      expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);
      expect(result.stdout).not.toContain('\u001b['); // a pipe is no terminal
      expect(lines.filter((l) => /Mapped \{|dependencies initialized|Server listening at/.test(l))).toEqual([]);
      expect(lines.filter((l) => / offers-api +listening on http:\/\/127\.0\.0\.1:\d+$/.test(l))).toHaveLength(1);
      const mine = lines.filter((l) => l.includes(requestId.slice(0, 12)));
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatch(/^\d\d:\d\d:\d\d offers-api +GET \/health\/ready 200 \d+\.\d ms {2}req_[0-9a-f]{8}$/);
      expect(result.stdout).toMatch(/offers-api +stopped$/m);
    });
  });
});
