/**
 * Webhook delivery throughput, latency and CPU cost of ONE ROLE=worker process.
 *
 *   npm run bench:webhooks            (node bench/ts-run.mjs bench/webhooks/throughput.ts)
 *   BENCH_PHASES=sustained,paced,paced-tx5,paced-pg,failing  which phases run (all by default)
 *   BENCH_SECONDS=60                  length of the sustained measurement
 *   BENCH_BACKLOG=130000              events pre-loaded for it (must outlast BENCH_SECONDS)
 *   BENCH_RATE=500 BENCH_PACED_SECONDS=30 BENCH_EMITTERS=4  the paced phases
 *   BENCH_OWNERS=50                   partners, one endpoint each
 *   BENCH_CPU_PROF=<dir>              the worker runs with --cpu-prof into <dir>
 *
 * 1. sustained: a backlog of events is committed through the real outbox first (the
 *    emitter in transactions of 500 events, before any worker runs), spread round-robin
 *    over BENCH_OWNERS partners with one endpoint each, so the default fair-share limits
 *    (4 per endpoint, 5 per owner, 20 slots) stay on without being the bottleneck. Then one
 *    worker process starts (dispatcher + delivery worker, as in production) and drains it;
 *    deliveries/s are counted at the receiver over BENCH_SECONDS after a 5 s warm-up.
 * 2. paced: BENCH_EMITTERS processes commit BENCH_RATE events/s in total (one transaction
 *    per event, through WebhookEmitter) while one fresh worker delivers them; latency is
 *    from each commit to the first POST of that event at the receiver.
 *    paced-tx5: the same events/s committed 5 per transaction (100 tx/s): the emitters'
 *    own cost (a Prisma interactive transaction each) takes about half of the two cores
 *    at 500 tx/s, which starves the worker; this variant separates the two.
 *    paced-pg: one transaction per event again, but run on plain `pg` connections (BEGIN,
 *    the outbox repository's own INSERT … pg_notify statement, COMMIT): the same rows and
 *    notifications at 500 tx/s for a fraction of the load generator's CPU.
 * 3. failing: paced-pg with the receiver answering 503 to 10 % of requests (retries on a
 *    scaled-down schedule, 250ms,1s,2s,4s,8s); latency is still to the first attempt.
 *
 * CPU: user+system from /proc of the worker process and of the PostgreSQL backends of the
 * benchmark's database, per delivery attempt. Traffic stays on 127.0.0.1. Needs PostgreSQL
 * (DATABASE_URL or postgresql://postgres@127.0.0.1:5432/postgres) and Redis (REDIS_URL or
 * redis://127.0.0.1:6379); it creates and drops its own database and queue prefixes.
 */
import 'reflect-metadata';
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, hostname, loadavg, totalmem } from 'node:os';
import { Writable } from 'node:stream';
import { createRootLogger, createServiceApp, loadConfig, migrate, PrismaService, runTransaction } from '@app/platform';
import { WebhookEmitter, WebhookEndpointsService } from '@app/webhooks';
import { machineCpuMs, processCpuMs } from '../http/cpu-usage';
import { execSync } from 'node:child_process';
import { BENCH_EVENT, BENCH_OWNER_TYPE, benchService } from './bench-service';
import type { EmitOrder, EmitterMessage } from './emitter';
import { queryAt } from '../../test/support/database';

const PHASES = (process.env.BENCH_PHASES ?? 'sustained,paced,paced-tx5,paced-pg,failing').split(',').map((p) => p.trim());
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const WARMUP_SECONDS = 5;
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 130_000);
const LOAD_TX_EVENTS = 500;
const PACED_RATE = Number(process.env.BENCH_RATE ?? 500);
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 30);
const EMITTERS = Number(process.env.BENCH_EMITTERS ?? 4);
const OWNERS = Number(process.env.BENCH_OWNERS ?? 50);
const FAILING_SCHEDULE = '250ms,1s,2s,4s,8s';
const adminUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const log = (line: string): void => {
  process.stderr.write(`[bench:webhooks ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
};

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

interface Row {
  readonly phase: string;
  readonly deliveries: number;
  readonly attempts: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly workerCpuMsPerAttempt: number;
  readonly pgCpuMsPerAttempt: number;
  readonly note: string;
  /** Other CPU users over the same interval, per attempt: Redis, the emitting processes, and the machine's busy fraction. */
  readonly redisCpuMsPerAttempt: number;
  readonly emitterCpuMsPerAttempt: number;
  readonly machineBusy: number;
}

function redisPids(): number[] {
  try {
    return execSync('pidof redis-server', { encoding: 'utf8' })
      .trim()
      .split(/\s+/)
      .map(Number)
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

/** CPU counters of the other processes at one moment (see Row). */
function others(emitterPids: readonly number[]): { redis: number; emitters: number; busy: number; total: number } {
  const m = machineCpuMs();
  return { redis: processCpuMs(redisPids()), emitters: processCpuMs(emitterPids), busy: m.busy, total: m.total };
}

/** The receiver: 204, or 503 for a fraction of requests; first arrival and success per event id. */
class Receiver {
  readonly firstArrival = new Map<string, number>();
  readonly succeeded = new Set<string>();
  requests = 0;
  failRatio = 0;
  private readonly server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      this.requests++;
      const id = req.headers['webhook-id'];
      if (typeof id === 'string' && !this.firstArrival.has(id)) this.firstArrival.set(id, now());
      if (Math.random() < this.failRatio) {
        res.writeHead(503).end('try later');
        return;
      }
      if (typeof id === 'string') this.succeeded.add(id);
      res.writeHead(204).end();
    });
  });

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', 1024, r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reset(failRatio: number): void {
    this.firstArrival.clear();
    this.succeeded.clear();
    this.requests = 0;
    this.failRatio = failRatio;
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}

async function main(): Promise<void> {
  const started = new Date();
  const loadBefore = loadavg();
  const dbName = `webhooks_bench_${randomBytes(4).toString('hex')}`;
  await queryAt(adminUrl, `CREATE DATABASE "${dbName}"`);
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  await migrate(dbUrl.toString());
  // backends come and go (pool growth); a sample is the sum over the backends alive at its time
  const pgPids = async (): Promise<number[]> =>
    (await queryAt<{ pid: number }>(adminUrl, 'SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbName])).map((r) => r.pid);

  const receiver = new Receiver();
  const receiverUrl = await receiver.listen();
  const env: Record<string, string> = {
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
  const owners = Array.from({ length: OWNERS }, (_, i) => `partner_${i}`);
  for (const ownerId of owners) {
    await api.get(WebhookEndpointsService).create({ ownerType: BENCH_OWNER_TYPE, ownerId }, { url: `${receiverUrl}/${ownerId}` });
  }

  /** Ends whatever a phase left (undispatched events, pending deliveries) so the next starts clean. */
  const settleLeftovers = async (): Promise<void> => {
    await prisma.$executeRaw`UPDATE webhook_events SET dispatched_at = now() WHERE dispatched_at IS NULL`;
    await prisma.$executeRaw`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE status = 'pending'`;
    // These mass updates are the benchmark's own (production has none): vacuum their dead
    // rows now rather than let the next phase run against them and autovacuum.
    await prisma.$executeRaw`VACUUM ANALYZE webhook_events, webhook_deliveries, webhook_attempts, webhook_endpoints`;
  };

  const rows: Row[] = [];
  try {
    if (PHASES.includes('sustained')) {
      log(`loading a backlog of ${BACKLOG} events over ${OWNERS} partners through the outbox`);
      const loadStarted = now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (next < BACKLOG) {
            const from = next;
            next += LOAD_TX_EVENTS;
            await runTransaction(
              prisma,
              (_tx, closing) => {
                for (let n = from; n < Math.min(from + LOAD_TX_EVENTS, BACKLOG); n++) {
                  const ownerId = owners[n % owners.length] ?? 'partner_0';
                  emitter.emit(
                    closing,
                    { ownerType: BENCH_OWNER_TYPE, ownerId, event: BENCH_EVENT, data: { n, pad: 'x'.repeat(200) } },
                    undefined,
                  );
                }
                return Promise.resolve();
              },
              { timeoutMs: 120_000 },
            );
          }
        }),
      );
      log(`loaded in ${((now() - loadStarted) / 1000).toFixed(1)} s; starting one worker`);
      receiver.reset(0);
      const worker = await startWorker({ ...env, QUEUE_PREFIX: `bench-${randomBytes(3).toString('hex')}` });
      await sleep(WARMUP_SECONDS * 1000);
      const pg0 = new Map((await pgPids()).map((pid) => [pid, processCpuMs([pid])]));
      const a = { t: now(), n: receiver.requests, cpu: processCpuMs([worker.pid ?? -1]), o: others([]) };
      await sleep(SECONDS * 1000);
      const b = { t: now(), n: receiver.requests, cpu: processCpuMs([worker.pid ?? -1]), o: others([]) };
      // backends opened meanwhile count from 0; ones closed meanwhile are missed (the pools keep theirs)
      const pgUsed = (await pgPids()).reduce((sum, pid) => sum + processCpuMs([pid]) - (pg0.get(pid) ?? 0), 0);
      const attempts = b.n - a.n;
      const seconds = (b.t - a.t) / 1000;
      const left = await prisma.webhookDelivery.count({ where: { status: 'pending' } });
      const undispatched = await prisma.webhookEvent.count({ where: { dispatchedAt: null } });
      rows.push({
        phase: `sustained: backlog of ${BACKLOG} events, ${OWNERS} partners × 1 endpoint, ${SECONDS} s after ${WARMUP_SECONDS} s warm-up`,
        deliveries: attempts,
        attempts,
        seconds,
        perSecond: attempts / seconds,
        p50: NaN,
        p99: NaN,
        max: NaN,
        workerCpuMsPerAttempt: (b.cpu - a.cpu) / attempts,
        pgCpuMsPerAttempt: pgUsed / attempts,
        redisCpuMsPerAttempt: (b.o.redis - a.o.redis) / attempts,
        emitterCpuMsPerAttempt: 0,
        machineBusy: (b.o.busy - a.o.busy) / (b.o.total - a.o.total),
        note:
          left + undispatched > 0
            ? `backlog left at the end: ${undispatched} events undispatched, ${left} deliveries pending`
            : 'BACKLOG RAN OUT',
      });
      log(`sustained: ${(attempts / seconds).toFixed(0)} deliveries/s`);
      await stopWorker(worker);
      await settleLeftovers();
    }

    for (const phase of ['paced', 'paced-tx5', 'paced-pg', 'failing'] as const) {
      if (!PHASES.includes(phase)) continue;
      const failing = phase === 'failing';
      const perTx = phase === 'paced-tx5' ? 5 : 1;
      receiver.reset(failing ? 0.1 : 0);
      const worker = await startWorker({
        ...env,
        QUEUE_PREFIX: `bench-${randomBytes(3).toString('hex')}`,
        ...(failing ? { WEBHOOK_RETRY_SCHEDULE: FAILING_SCHEDULE } : {}),
      });
      const emitters = await Promise.all(
        Array.from({ length: EMITTERS }, () => startEmitter({ ...env, DATABASE_POOL_SIZE: '16', QUEUE_PREFIX: 'bench-api' })),
      );
      const commits = new Map<string, number>();
      let behindMs = 0;
      let failedCommits = 0;
      const done = Promise.all(
        emitters.map(
          (child) =>
            new Promise<void>((resolve) => {
              child.on('message', (m: EmitterMessage) => {
                if (m.kind === 'commits') for (const [id, at] of m.commits) commits.set(id, at);
                if (m.kind === 'done') {
                  behindMs = Math.max(behindMs, m.behindMs);
                  failedCommits += m.failed;
                  resolve();
                }
              });
            }),
        ),
      );
      const startAt = now() + 1_000;
      const cpu0 = processCpuMs([worker.pid ?? -1]);
      const emitterPids = emitters.map((c) => c.pid ?? -1);
      const o0 = others(emitterPids);
      const pg0 = new Map((await pgPids()).map((pid) => [pid, processCpuMs([pid])]));
      emitters.forEach((child, index) => {
        const driver = phase === 'paced-pg' || failing ? 'pg' : 'prisma';
        const order: EmitOrder = {
          rate: PACED_RATE,
          seconds: PACED_SECONDS,
          owners,
          startAt,
          index,
          of: EMITTERS,
          perTx,
          driver,
        };
        child.send(order);
      });
      await done;
      const total = Math.round(PACED_RATE * PACED_SECONDS);
      const deadline = now() + 120_000;
      const finished = (): boolean =>
        failing ? [...commits.keys()].every((id) => receiver.succeeded.has(id)) : receiver.firstArrival.size >= commits.size;
      while (!finished() && now() < deadline) await sleep(50);
      const cpu1 = processCpuMs([worker.pid ?? -1]);
      const o1 = others(emitterPids);
      const pgUsed = (await pgPids()).reduce((sum, pid) => sum + processCpuMs([pid]) - (pg0.get(pid) ?? 0), 0);
      const latencies = [...commits.entries()]
        .map(([id, at]) => (receiver.firstArrival.get(id) ?? NaN) - at)
        .filter((x) => Number.isFinite(x))
        .sort((x, y) => x - y);
      const attempts = receiver.requests;
      const lastArrival = Math.max(...receiver.firstArrival.values());
      rows.push({
        phase: failing
          ? `${PACED_RATE}/s for ${PACED_SECONDS} s as paced-pg, receiver 503 on 10 % (retries ${FAILING_SCHEDULE})`
          : `${PACED_RATE}/s for ${PACED_SECONDS} s${perTx > 1 ? `, ${perTx} events per transaction (${PACED_RATE / perTx} tx/s)` : ''}${phase === 'paced-pg' ? ' (500 tx/s on plain pg connections, the outbox statement)' : ''}`,
        deliveries: latencies.length,
        attempts,
        seconds: (lastArrival - startAt) / 1000,
        perSecond: latencies.length / ((lastArrival - startAt) / 1000),
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: latencies.at(-1) ?? NaN,
        workerCpuMsPerAttempt: (cpu1 - cpu0) / attempts,
        // backends that closed meanwhile are missed: a floor
        pgCpuMsPerAttempt: pgUsed / attempts,
        redisCpuMsPerAttempt: (o1.redis - o0.redis) / attempts,
        emitterCpuMsPerAttempt: (o1.emitters - o0.emitters) / attempts,
        machineBusy: (o1.busy - o0.busy) / (o1.total - o0.total),
        note:
          `${commits.size}/${total} committed by ${EMITTERS} emitter processes (at most ${behindMs.toFixed(0)} ms behind schedule, ${failedCommits} transactions failed); ` +
          `${latencies.length} reached the receiver` +
          (failing ? `, ${[...commits.keys()].filter((id) => receiver.succeeded.has(id)).length} succeeded in the end` : ''),
      });
      log(`${phase}: p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms`);
      for (const child of emitters) await stopChild(child);
      await stopWorker(worker);
      await settleLeftovers();
    }
  } finally {
    await api.close();
    receiver.close();
    await queryAt(adminUrl, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  }

  const cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpus()[0]?.model ?? '?';
  const fmt = (l: readonly number[]): string => l.map((x) => x.toFixed(2)).join(' ');
  process.stdout.write(
    `\ncommand: npm run bench:webhooks (BENCH_PHASES=${PHASES.join(',')}); date ${started.toISOString()}; host ${hostname()}\n` +
      `machine: ${cpus().length} × ${cpuModel}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}; ` +
      `PostgreSQL, Redis, the receiver and the emitters on the same machine\n` +
      `load average before ${fmt(loadBefore)}, after ${fmt(loadavg())}\n\n`,
  );
  process.stdout.write(
    '| phase | deliveries | attempts | deliveries/s | commit → first attempt p50 / p99 / max ms | worker CPU ms per attempt | PostgreSQL CPU ms per attempt | Redis / emitters CPU ms per attempt | machine busy |\n' +
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|\n',
  );
  for (const r of rows) {
    const lat = Number.isNaN(r.p50) ? '–' : `${r.p50.toFixed(0)} / ${r.p99.toFixed(0)} / ${r.max.toFixed(0)}`;
    process.stdout.write(
      `| ${r.phase} | ${r.deliveries} | ${r.attempts} | ${r.perSecond.toFixed(0)} | ${lat} | ${r.workerCpuMsPerAttempt.toFixed(3)} | ${r.pgCpuMsPerAttempt.toFixed(3)} | ${r.redisCpuMsPerAttempt.toFixed(3)} / ${r.emitterCpuMsPerAttempt.toFixed(3)} | ${(100 * r.machineBusy).toFixed(0)} % |\n`,
    );
  }
  for (const r of rows) process.stdout.write(`\n- ${r.phase}: ${r.note}`);
  process.stdout.write('\n');
}

function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  return startChild('bench/webhooks/worker.ts', env, [
    ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
  ]);
}

function startEmitter(env: Record<string, string>): Promise<ChildProcess> {
  return startChild('bench/webhooks/emitter.ts', env, []);
}

function startChild(entry: string, env: Record<string, string>, execArgv: string[]): Promise<ChildProcess> {
  const child = fork('bench/ts-run.mjs', [entry], {
    execArgv: ['--no-warnings', ...execArgv],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.disconnect();
  });
}

const stopWorker = stopChild;

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
