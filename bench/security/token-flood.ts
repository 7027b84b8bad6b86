/**
 * Token endpoint under a flood of failed client authentications (issue 14, finding 2): how
 * long a valid token request from another address takes while 300 failed ones from one
 * address are in flight, against one offers-api process on loopback.
 *
 *   node bench/ts-run.mjs bench/security/token-flood.ts                 (this checkout)
 *   node bench/ts-run.mjs bench/security/token-flood.ts --root <dir>    (another checkout, e.g. the code before the fix)
 *   BENCH_FLOOD=300 BENCH_ROUNDS=3 ... to change the load
 *
 * The service runs from the sources of `--root` (its bench/ts-run.mjs, no build), with
 * NODE_ENV=production, ROLE=api, TRUST_PROXY=127.0.0.1 (so each request chooses its client
 * address with X-Forwarded-For) and the default limits. Needs PostgreSQL (DATABASE_URL or
 * postgresql://postgres@127.0.0.1:5432/postgres) and Redis (REDIS_URL or
 * redis://127.0.0.1:6379); it creates and drops its own database and uses its own prefix.
 */
import { randomBytes } from 'node:crypto';
import {
  adminCaller,
  benchRoot,
  cpuMs,
  createDatabase,
  logCodeUnderTest,
  logger,
  quantile,
  type Service,
  sleep,
  logOauthMetrics,
  machineLine,
  startOffersApi,
  type TokenAnswer,
  tokenRequest,
} from './support';

const FLOOD = Number(process.env.BENCH_FLOOD ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BASELINE = 20;
const ROOT = benchRoot();
const ADMIN_KEY = randomBytes(24).toString('hex');

const log = logger('token-flood');

async function main(): Promise<void> {
  logCodeUnderTest(ROOT, log);
  const db = await createDatabase('token_flood', ROOT);
  let service: Service | undefined;
  try {
    service = await startOffersApi(ROOT, db.url, 'token-flood', ADMIN_KEY);
    const { base, pid } = service;
    const adminCall = adminCaller(base, ADMIN_KEY);
    const partner = await adminCall<{ id: string }>('/admin/v1/partners', { name: 'Bench', tier: 'enterprise' });
    const client = await adminCall<{ client_id: string; client_secret: string }>(`/admin/v1/partners/${partner.id}/clients`);

    // warm-up (JIT, the decoy hash, the database pool)
    for (let i = 0; i < 5; i++) await tokenRequest(base, '203.0.113.1', client.client_id, client.client_secret);
    await tokenRequest(base, '203.0.113.1', 'client_unknown', 'x');

    const quiet: number[] = [];
    for (let i = 0; i < BASELINE; i++) {
      const a = await tokenRequest(base, '203.0.113.2', client.client_id, client.client_secret);
      if (a.status !== 200) throw new Error(`baseline token request answered ${a.status}`);
      quiet.push(a.ms);
    }
    log(
      `quiet: valid token request p50 ${quantile(quiet, 0.5).toFixed(1)} ms, max ${Math.max(...quiet).toFixed(1)} ms (${BASELINE} sequential)`,
    );

    const rows: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const floodAddress = `198.51.100.${round}`;
      const cpuBefore = cpuMs(pid);
      const started = performance.now();
      let inFlight = FLOOD;
      const flood = Array.from({ length: FLOOD }, (_, i) =>
        tokenRequest(base, floodAddress, i % 2 ? client.client_id : `client_unknown_${i}`, `cs_wrong_${i}`).finally(
          () => inFlight--,
        ),
      );
      // Valid requests from another address, one after the other, while the flood is in flight.
      const during: TokenAnswer[] = [];
      await sleep(20);
      while (inFlight > 0) {
        const a = await tokenRequest(base, '203.0.113.3', client.client_id, client.client_secret);
        during.push(a);
        if (a.status !== 200) log(`valid request during the flood answered ${a.status} ${a.error ?? ''}`);
      }
      const answers = await Promise.all(flood);
      const floodMs = performance.now() - started;
      const cpu = cpuMs(pid) - cpuBefore;
      const statuses = new Map<string, number>();
      for (const a of answers) {
        const k = `${a.status}${a.error ? ` ${a.error}` : ''}`;
        statuses.set(k, (statuses.get(k) ?? 0) + 1);
      }
      const ms = during.map((a) => a.ms);
      const row =
        `round ${round}: flood of ${FLOOD} answered in ${floodMs.toFixed(0)} ms (${[...statuses].map(([k, n]) => `${n} × ${k}`).join(', ')}), ` +
        `server CPU ${cpu.toFixed(0)} ms; valid requests from another address during it: ${during.length}, ` +
        `${during.filter((a) => a.status === 200).length} × 200, first ${ms[0]?.toFixed(1)} ms, p50 ${quantile(ms, 0.5).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms`;
      log(row);
      rows.push(row);
      await sleep(500);
    }
    await logOauthMetrics(base, log);
    log(machineLine());
  } finally {
    await service?.stop();
    await db.drop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[token-flood] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
