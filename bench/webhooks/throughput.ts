/**
 * Webhook throughput and latency: events committed through the outbox, delivered to a
 * local HTTP receiver by 1 and then 2 worker processes.
 *
 *   npm run bench:webhooks            (node bench/ts-run.mjs bench/webhooks/throughput.ts)
 *   BENCH_EVENTS=5000 BENCH_RATE=200 ... to change the load
 *
 * Needs PostgreSQL (DATABASE_URL or postgresql://postgres@127.0.0.1:5432/postgres) and Redis
 * (REDIS_URL or redis://127.0.0.1:6379); it creates and drops its own database and uses its
 * own queue prefix.
 */
import 'reflect-metadata';
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { Writable } from 'node:stream';
import { createRootLogger, createServiceApp, loadConfig, migrate, PrismaService, runTransaction } from '@app/platform';
import { WebhookEmitter, WebhookEndpointsService } from '@app/webhooks';
import { BENCH_EVENT, BENCH_OWNER_TYPE, benchService } from './bench-service';
import { queryAt } from '../../test/support/database';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 3000);
const PACED_RATE = Number(process.env.BENCH_RATE ?? 100); // events/s of the latency run
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 10);
const EMIT_CONCURRENCY = 16;
const adminUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

interface RunResult {
  readonly workers: number;
  readonly mode: string;
  readonly events: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly emitSeconds: number;
}

async function main(): Promise<void> {
  const dbName = `webhooks_bench_${randomBytes(4).toString('hex')}`;
  await queryAt(adminUrl, `CREATE DATABASE "${dbName}"`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  await migrate(dbUrl.toString());

  // receiver: arrival time per event id
  const arrivals = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['webhook-id'];
      if (typeof id === 'string' && !arrivals.has(id)) arrivals.set(id, performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: dbUrl.toString(),
    DATABASE_POOL_SIZE: '10',
    REDIS_URL: redisUrl,
    WEBHOOK_SWEEP_INTERVAL_MS: '1000',
  };
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  const config = loadConfig(benchService.configClass, { ...process.env, ...env, ROLE: 'api', QUEUE_PREFIX: 'bench-api' });
  const api = await createServiceApp(
    benchService,
    config,
    createRootLogger({ service: 'bench', level: 'error', format: 'json' }, quiet),
  );
  const prisma = api.get(PrismaService);
  const emitter = api.get(WebhookEmitter);
  const owner = { ownerType: BENCH_OWNER_TYPE, ownerId: 'bench_owner' };
  await api.get(WebhookEndpointsService).create(owner, { url: receiverUrl });

  const results: RunResult[] = [];
  try {
    for (const workers of [1, 2]) {
      for (const mode of ['burst', 'paced'] as const) {
        const prefix = `bench-${randomBytes(3).toString('hex')}`;
        // The api process only writes the outbox; its queue prefix does not matter.
        const children: ChildProcess[] = [];
        for (let i = 0; i < workers; i++) children.push(await startWorker({ ...env, QUEUE_PREFIX: prefix }));
        arrivals.clear();
        const committed = new Map<string, number>();
        const emitOne = async (n: number): Promise<void> => {
          const id = await runTransaction(prisma, (tx) =>
            emitter.emit(tx, { ...owner, event: BENCH_EVENT, data: { n, pad: 'x'.repeat(200) } }),
          );
          committed.set(id, performance.now());
        };
        const total = mode === 'burst' ? EVENTS : PACED_RATE * PACED_SECONDS;
        const started = performance.now();
        if (mode === 'burst') {
          let next = 0;
          await Promise.all(
            Array.from({ length: EMIT_CONCURRENCY }, async () => {
              while (next < total) await emitOne(next++);
            }),
          );
        } else {
          const pending: Array<Promise<void>> = [];
          for (let i = 0; i < total; i++) {
            const due = started + (i * 1000) / PACED_RATE;
            const wait = due - performance.now();
            if (wait > 0) await new Promise((r) => setTimeout(r, wait));
            pending.push(emitOne(i));
          }
          await Promise.all(pending);
        }
        const emitted = performance.now();
        const deadline = Date.now() + 300_000;
        while (arrivals.size < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        const ended = Math.max(...arrivals.values());
        const latencies = [...committed.entries()]
          .map(([id, at]) => (arrivals.get(id) ?? NaN) - at)
          .filter((x) => Number.isFinite(x))
          .sort((a, b) => a - b);
        const seconds = (ended - started) / 1000;
        const r: RunResult = {
          workers,
          mode,
          events: arrivals.size,
          seconds,
          perSecond: arrivals.size / seconds,
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          emitSeconds: (emitted - started) / 1000,
        };
        results.push(r);
        process.stdout.write(
          `${workers} worker(s) ${mode.padEnd(5)} ${r.events}/${total} events in ${seconds.toFixed(2)} s = ${r.perSecond.toFixed(0)} events/s; ` +
            `commit→delivery p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms (emitting took ${r.emitSeconds.toFixed(2)} s)\n`,
        );
        for (const c of children) await stopWorker(c);
      }
    }
  } finally {
    await api.close();
    server.closeAllConnections();
    server.close();
    await queryAt(adminUrl, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  }

  process.stdout.write(
    `\nmachine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}\n`,
  );
  process.stdout.write('| workers | load | events | events/s | p50 ms | p99 ms |\n|---|---|---|---|---|---|\n');
  for (const r of results) {
    const load = r.mode === 'burst' ? `burst of ${r.events}` : `${PACED_RATE}/s for ${PACED_SECONDS} s`;
    process.stdout.write(
      `| ${r.workers} | ${load} | ${r.events} | ${r.perSecond.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} |\n`,
    );
  }
}

function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = fork('bench/ts-run.mjs', ['bench/webhooks/worker.ts'], {
    execArgv: [
      '--no-warnings',
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`bench worker exited with ${code}`)));
  });
}

function stopWorker(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.disconnect();
  });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
