/**
 * Noisy neighbour: another tenant's webhook latency while a neighbour's endpoints hang.
 *
 *   node bench/ts-run.mjs bench/webhooks/noisy-neighbour.ts
 *   BENCH_NEIGHBOUR_ENDPOINTS=40 BENCH_HOLD_MS=30000 BENCH_SECONDS=30 ... to change it;
 *   BENCH_NEIGHBOUR_EVERY_MS=0: the neighbour commits one event only (as in the issue's probe),
 *   or BENCH_NEIGHBOUR_BURST events at once; BENCH_HOLD_MS=0: its receiver answers at once
 *
 * One ROLE=worker process with the default settings (50 slots, 10 s attempt timeout and
 * the fair-share defaults). Phase 1: tenant B alone, one event every 500 ms to one
 * endpoint on 127.0.0.1 that answers 204 at once. Phase 2: the same while a neighbour
 * with 40 endpoints, whose receiver holds every reply for 30 s, commits one event per
 * second (each fans out to its 40 endpoints), or a single one. Reports B's commit → arrival latency in each
 * phase and the worker's CPU time (a parked delivery must not spin). Needs PostgreSQL
 * (DATABASE_URL or postgresql://postgres@127.0.0.1:5432/postgres) and Redis (REDIS_URL or
 * redis://127.0.0.1:6379); it creates and drops its own database and queue prefix.
 */
import 'reflect-metadata';
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, totalmem } from 'node:os';
import { Writable } from 'node:stream';
import { createRootLogger, createServiceApp, loadConfig, migrate, PrismaService, runTransaction } from '@app/platform';
import { WebhookEmitter, WebhookEndpointsService } from '@app/webhooks';
import { BENCH_EVENT, BENCH_OWNER_TYPE, benchService } from './bench-service';
import { queryAt } from '../../test/support/database';

const NEIGHBOUR_ENDPOINTS = Number(process.env.BENCH_NEIGHBOUR_ENDPOINTS ?? 40);
const HOLD_MS = Number(process.env.BENCH_HOLD_MS ?? 30_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const B_EVERY_MS = 500;
/** 0: the neighbour commits BENCH_NEIGHBOUR_BURST events (each to its 40 endpoints) at the start of the phase instead. */
const NEIGHBOUR_EVERY_MS = Number(process.env.BENCH_NEIGHBOUR_EVERY_MS ?? 1_000);
const NEIGHBOUR_BURST = Number(process.env.BENCH_NEIGHBOUR_BURST ?? 1);
const adminUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** utime + stime of a process in ms (Linux /proc), or NaN. */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ = 100
  } catch {
    return NaN;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const dbName = `webhooks_nn_${randomBytes(4).toString('hex')}`;
  await queryAt(adminUrl, `CREATE DATABASE "${dbName}"`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  await migrate(dbUrl.toString());

  // tenant B's receiver: arrival time per event id
  const arrivals = new Map<string, number>();
  const fast = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['webhook-id'];
      if (typeof id === 'string' && !arrivals.has(id)) arrivals.set(id, performance.now());
      res.writeHead(204).end();
    });
  });
  // the neighbour's receiver: holds every reply for HOLD_MS
  let held = 0;
  let peakHeld = 0;
  const slow = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      held++;
      peakHeld = Math.max(peakHeld, held);
      const timer = setTimeout(() => res.writeHead(200).end(), HOLD_MS); // 0: at once
      res.on('close', () => {
        clearTimeout(timer);
        held--;
      });
    });
  });
  const fastUrl = await listen(fast);
  const slowUrl = await listen(slow);

  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: dbUrl.toString(),
    DATABASE_POOL_SIZE: '10',
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: `bench-nn-${randomBytes(3).toString('hex')}`,
    WEBHOOK_SWEEP_INTERVAL_MS: '1000',
    WEBHOOK_MAX_ENDPOINTS_PER_OWNER: String(NEIGHBOUR_ENDPOINTS + 10),
  };
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  const config = loadConfig(benchService.configClass, { ...process.env, ...env, ROLE: 'api' });
  const api = await createServiceApp(
    benchService,
    config,
    createRootLogger({ service: 'bench', level: 'error', format: 'json' }, quiet),
  );
  const prisma = api.get(PrismaService);
  const emitter = api.get(WebhookEmitter);
  const endpoints = api.get(WebhookEndpointsService);
  const tenantB = { ownerType: BENCH_OWNER_TYPE, ownerId: 'tenant_b' };
  const neighbour = { ownerType: BENCH_OWNER_TYPE, ownerId: 'neighbour' };
  await endpoints.create(tenantB, { url: `${fastUrl}/b` });
  for (let i = 0; i < NEIGHBOUR_ENDPOINTS; i++) await endpoints.create(neighbour, { url: `${slowUrl}/n/${i}` });
  const emit = (owner: typeof tenantB, data: Record<string, unknown>): Promise<string> =>
    runTransaction(prisma, (_tx, closing) =>
      Promise.resolve(emitter.emit(closing, { ...owner, event: BENCH_EVENT, data }, undefined)),
    );

  const worker = await startWorker(env);
  const phases: Array<{ name: string; latencies: number[]; lost: number; cpuMs: number; seconds: number }> = [];
  try {
    for (const withNeighbour of [false, true]) {
      const committed = new Map<string, number>();
      let neighbourEvents = 0;
      const started = performance.now();
      const cpuBefore = cpuMs(worker.pid);
      const end = started + SECONDS * 1000;
      const neighbourLoop = (async () => {
        if (!withNeighbour) return;
        if (NEIGHBOUR_EVERY_MS <= 0) {
          await Promise.all(Array.from({ length: NEIGHBOUR_BURST }, () => emit(neighbour, { n: neighbourEvents++ })));
          return;
        }
        while (performance.now() < end) {
          await emit(neighbour, { n: neighbourEvents++ });
          await sleep(NEIGHBOUR_EVERY_MS);
        }
      })();
      // let the neighbour's first event take the slots before B's first one
      if (withNeighbour) await sleep(B_EVERY_MS);
      let n = 0;
      while (performance.now() < end) {
        const id = await emit(tenantB, { n: n++ });
        committed.set(id, performance.now());
        await sleep(B_EVERY_MS);
      }
      await neighbourLoop;
      // B's stragglers: wait up to 60 s more
      const deadline = performance.now() + 60_000;
      while ([...committed.keys()].some((id) => !arrivals.has(id)) && performance.now() < deadline) await sleep(50);
      const seconds = (performance.now() - started) / 1000;
      const latencies = [...committed.entries()]
        .map(([id, at]) => (arrivals.get(id) ?? NaN) - at)
        .filter((x) => Number.isFinite(x))
        .sort((a, b) => a - b);
      const phase = {
        name: withNeighbour
          ? `with the neighbour (${NEIGHBOUR_ENDPOINTS} endpoints ${HOLD_MS > 0 ? `holding ${HOLD_MS / 1000} s` : 'answering at once'}, ${neighbourEvents} events)`
          : 'alone',
        latencies,
        lost: committed.size - latencies.length,
        cpuMs: cpuMs(worker.pid) - cpuBefore,
        seconds,
      };
      phases.push(phase);
      process.stdout.write(
        `tenant B ${phase.name}: ${latencies.length}/${committed.size} delivered; p50 ${percentile(latencies, 50).toFixed(0)} ms, ` +
          `p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${(latencies.at(-1) ?? NaN).toFixed(0)} ms; ` +
          `worker CPU ${(phase.cpuMs / 1000).toFixed(1)} s over ${seconds.toFixed(0)} s; neighbour attempts held at peak ${peakHeld}\n`,
      );
    }
  } finally {
    await stopWorker(worker);
    await api.close();
    for (const s of [fast, slow]) {
      s.closeAllConnections();
      s.close();
    }
    await queryAt(adminUrl, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  }
  process.stdout.write(
    `\nmachine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}\n`,
  );
  process.stdout.write('| tenant B | delivered | p50 ms | p99 ms | max ms | worker CPU |\n|---|---|---|---|---|---|\n');
  for (const p of phases) {
    process.stdout.write(
      `| ${p.name} | ${p.latencies.length}/${p.latencies.length + p.lost} | ${percentile(p.latencies, 50).toFixed(0)} | ` +
        `${percentile(p.latencies, 99).toFixed(0)} | ${(p.latencies.at(-1) ?? NaN).toFixed(0)} | ${(p.cpuMs / 1000).toFixed(1)} s / ${p.seconds.toFixed(0)} s |\n`,
    );
  }
}

function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = fork('bench/ts-run.mjs', ['bench/webhooks/worker.ts'], {
    execArgv: ['--no-warnings'],
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
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
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
