/**
 * `/oauth/token` of one partner while another partner floods the client routes (issue 31,
 * "scrypt is reachable from authenticated routes"): partner A requests tokens one after the
 * other, first alone, then while partner B runs 24 concurrent loops of
 * `POST /api/v1/clients/{id}/rotate-secret` (half on a client of its own, half on an id that
 * does not exist), against one offers-api process on loopback. Prints A's p50 and throughput
 * in both phases, and what B's requests were answered.
 *
 *   node bench/ts-run.mjs bench/security/rotation-flood.ts                 (this checkout)
 *   node bench/ts-run.mjs bench/security/rotation-flood.ts --root <dir>    (another checkout, e.g. the code before the fix)
 *   BENCH_SECONDS=10 BENCH_CONCURRENCY=24 BENCH_MAX_PER_LOOP=400 ... to change the load
 *   BENCH_TARGETS=own | missing   all of B's loops on its own client, or all on a missing id
 *
 * B's loops do not honour Retry-After (a hostile caller would not); each loop stops after
 * BENCH_SECONDS or BENCH_MAX_PER_LOOP requests, whichever comes first. The service runs from
 * the sources of `--root` (its bench/ts-run.mjs, no build) with NODE_ENV=production, ROLE=api,
 * TRUST_PROXY=127.0.0.1 (A and B send different X-Forwarded-For addresses) and the default
 * limits; both partners are enterprise (1,000 requests a minute). Needs PostgreSQL
 * (DATABASE_URL or postgresql://postgres@127.0.0.1:5432/postgres) and Redis (REDIS_URL or
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
  tokenRequest as sharedTokenRequest,
} from './support';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 24);
const MAX_PER_LOOP = Number(process.env.BENCH_MAX_PER_LOOP ?? 400);
/** Which ids B's loops rotate: `mixed` (half its own client, half a missing id), `own` or `missing`. */
const TARGETS = process.env.BENCH_TARGETS ?? 'mixed';
const ROOT = benchRoot();
const ADMIN_KEY = randomBytes(24).toString('hex');
const A_ADDRESS = '203.0.113.10';
const B_ADDRESS = '198.51.100.7';

const log = logger('rotation-flood');

interface Answer {
  readonly status: number;
  readonly code: string | undefined;
  readonly ms: number;
}

/** Partner A's token request (from A's address), as an Answer. */
async function tokenRequest(base: string, clientId: string, secret: string): Promise<Answer> {
  const { status, error, ms } = await sharedTokenRequest(base, A_ADDRESS, clientId, secret);
  return { status, code: error, ms };
}

async function rotation(base: string, token: string, clientId: string): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${base}/api/v1/clients/${clientId}/rotate-secret`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-for': B_ADDRESS },
    body: JSON.stringify({ expires_in_hours: 1 }),
  });
  const body = (await res.json()) as { error?: { code?: string } };
  return { status: res.status, code: body.error?.code, ms: performance.now() - started };
}

/** A's sequential token requests for `seconds`: p50, max, throughput and statuses. */
async function partnerA(base: string, client: { client_id: string; client_secret: string }, seconds: number): Promise<string> {
  const answers: Answer[] = [];
  const started = performance.now();
  while (performance.now() - started < seconds * 1000)
    answers.push(await tokenRequest(base, client.client_id, client.client_secret));
  const elapsed = (performance.now() - started) / 1000;
  const ok = answers.filter((a) => a.status === 200);
  const ms = ok.map((a) => a.ms);
  const other = answers.length - ok.length;
  return (
    `partner A: ${answers.length} sequential token requests in ${elapsed.toFixed(1)} s, ${ok.length} × 200` +
    (other > 0 ? ` (${other} others: ${summary(answers.filter((a) => a.status !== 200))})` : '') +
    `; p50 ${quantile(ms, 0.5).toFixed(1)} ms, p95 ${quantile(ms, 0.95).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms; ` +
    `throughput ${(ok.length / elapsed).toFixed(1)} tokens/s`
  );
}

function summary(answers: readonly Answer[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) {
    const k = `${a.status}${a.code ? ` ${a.code}` : ''}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${n} × ${k}`).join(', ');
}

async function main(): Promise<void> {
  logCodeUnderTest(ROOT, log);
  const db = await createDatabase('rotation_flood', ROOT);
  let service: Service | undefined;
  try {
    service = await startOffersApi(ROOT, db.url, 'rotation-flood', ADMIN_KEY);
    const { base, pid } = service;
    const adminCall = adminCaller(base, ADMIN_KEY);
    const a = await adminCall<{ id: string }>('/admin/v1/partners', { name: 'Partner A', tier: 'enterprise' });
    const aClient = await adminCall<{ client_id: string; client_secret: string }>(`/admin/v1/partners/${a.id}/clients`);
    const b = await adminCall<{ id: string }>('/admin/v1/partners', { name: 'Partner B', tier: 'enterprise' });
    const bClient = await adminCall<{ client_id: string; client_secret: string }>(`/admin/v1/partners/${b.id}/clients`);
    const bTarget = await adminCall<{ client_id: string }>(`/admin/v1/partners/${b.id}/clients`);
    const bToken = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': B_ADDRESS },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: bClient.client_id,
        client_secret: bClient.client_secret,
      }).toString(),
    });
    const token = ((await bToken.json()) as { access_token: string }).access_token;

    // warm-up (JIT, the database pool, one rotation)
    for (let i = 0; i < 5; i++) await tokenRequest(base, aClient.client_id, aClient.client_secret);
    log(`warm-up rotation: ${summary([await rotation(base, token, bTarget.client_id)])}`);

    let cpuBefore = cpuMs(pid);
    log(`quiet, ${SECONDS} s: ${await partnerA(base, aClient, SECONDS)}; server CPU ${(cpuMs(pid) - cpuBefore).toFixed(0)} ms`);
    await sleep(500);

    cpuBefore = cpuMs(pid);
    const deadline = performance.now() + SECONDS * 1000;
    const bAnswers: Answer[] = [];
    const loops = Array.from({ length: CONCURRENCY }, async (_, i) => {
      const own = TARGETS === 'own' || (TARGETS === 'mixed' && i % 2 === 0);
      const id = own ? bTarget.client_id : `client_ghost${String(i).padStart(18, '0')}`;
      for (let n = 0; n < MAX_PER_LOOP && performance.now() < deadline; n++) bAnswers.push(await rotation(base, token, id));
    });
    await sleep(200); // let the loops fill the service first
    const during = await partnerA(base, aClient, SECONDS - 0.2);
    await Promise.all(loops);
    log(
      `during ${CONCURRENCY} concurrent rotation loops of partner B: ${during}; server CPU ${(cpuMs(pid) - cpuBefore).toFixed(0)} ms`,
    );
    const bMs = bAnswers.map((x) => x.ms);
    log(
      `partner B: ${bAnswers.length} rotations (${summary(bAnswers)}); p50 ${quantile(bMs, 0.5).toFixed(1)} ms, max ${Math.max(...bMs).toFixed(1)} ms`,
    );
    await logOauthMetrics(base, log);
    log(machineLine());
  } finally {
    await service?.stop();
    await db.drop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[rotation-flood] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
