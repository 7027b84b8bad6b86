/**
 * Issue 21, "Show" point 2: a black-box run of every service's contract against a stack whose
 * Redis is a Sentinel group, with a failover in the middle, sees no failure beyond a short
 * readiness 503.
 *
 * The contract run is the docs project's (test/docs/docs.doc-spec.ts): every shell and Node
 * example of README.md and docs/*.md, in order, against the BUILT services, one fresh
 * platform per document, each output compared with the doc's. Here every platform's Redis is
 * one Sentinel group (REDIS_SENTINELS + REDIS_SENTINEL_NAME, no REDIS_URL), each platform
 * with its own QUEUE_PREFIX, and the group's primary is SIGKILLed once, halfway through the
 * run; the next example runs at once, without waiting for the promotion or for readiness.
 * Every example must pass as it does in the docs project. The one tolerated difference: an
 * example calling /health/ready that is answered 503 with `redis: down` after the kill; the
 * run then waits for readiness, runs that example again (it must pass then) and counts it.
 *
 * That the services really use the group (and not the default redis://127.0.0.1:6379) is
 * checked: each platform's BullMQ keys and revocation subscriptions are on the group's
 * primary of its time (the killed platform's on the new one), rate-limit counters on the new
 * primary, and no queue key on the shared test Redis.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describeFailure, readerSession, runStep } from '../docs/support/doc-run';
import type { DocSession } from '../docs/support/doc-session';
import { type DocPlatform, startDocPlatform } from '../docs/support/doc-platform';
import { parseJsonSequence } from '../docs/support/expected-output';
import { documentsUnder, type Step, stepsOf } from '../docs/support/markdown';
import { call, contractViolation, label } from './support/http';
import { assertBuilt, dropQueueKeys, type ServiceProcess, sharedRedisUrl, sleep, waitUntil } from './support/processes';
import { type Failover, SentinelGroup } from './support/redis-topology';
import { report } from './support/report';

const root = process.cwd();
const documents = documentsUnder(root)
  .map((doc) => ({ doc, steps: stepsOf(readFileSync(join(root, doc), 'utf8'), doc) }))
  .filter((d) => d.steps.length > 0);

/** Every step of the run, numbered across documents. */
const plan = documents.flatMap(({ doc, steps }) => steps.map((step, inDoc) => ({ doc, step, inDoc })));
const withIndex = documents.map(({ doc, steps }) => ({
  doc,
  steps: steps.map((step, inDoc) => ({
    step,
    index: plan.findIndex((p) => p.doc === doc && p.inDoc === inDoc),
    name: `${inDoc + 1}. line ${step.block.line} (${step.kind})`,
  })),
}));

/**
 * The kill comes just before the example halfway through the run, moved on past a document's
 * first step (its platform should have been serving examples when the primary dies) and past
 * `file` steps (they only save a file).
 */
const killIndex = ((): number => {
  let i = Math.floor(plan.length / 2);
  while (i < plan.length - 1 && (plan[i]?.inDoc === 0 || plan[i]?.step.kind === 'file')) i++;
  return i;
})();

/** Above readiness's own 2 s bound on each check (libs/platform/src/health/health.service.ts): its 503 arrives, not a client timeout. */
const READY_TIMEOUT_MS = 5_000;

/** Readiness's answer while Redis cannot be reached: the contract's 503 naming redis down and postgres up. */
function isRedisNotReady(body: unknown): boolean {
  const error = (body as { error?: { code?: unknown; checks?: { redis?: unknown; postgres?: unknown } } } | null)?.error;
  return error?.code === 'service_unavailable' && error.checks?.redis === 'down' && error.checks.postgres === 'up';
}

interface ReadyPoll {
  /** Sent and answered, ms after the kill. */
  readonly sent: number;
  readonly at: number;
  readonly label: string;
  /** Why a not-ready answer is not readiness's 503 naming Redis (a timeout, a 500, a body off the contract). */
  readonly unexpected?: string;
}

/** Polls each service's readiness every 100 ms from the kill on, keeping every answer. */
class ReadinessWatch {
  private stopped = false;
  private readonly loops: Array<Promise<void>>;
  readonly answers = new Map<string, ReadyPoll[]>();

  constructor(
    services: readonly ServiceProcess[],
    private readonly since: number,
  ) {
    this.loops = services.map(async (service) => {
      const seen: ReadyPoll[] = [];
      this.answers.set(service.app, seen);
      while (!this.stopped) {
        const sent = Date.now() - this.since;
        const outcome = await call(service.baseUrl, 'GET', '/health/ready', { timeoutMs: READY_TIMEOUT_MS });
        const at = Date.now() - this.since;
        const unexpected =
          outcome.kind !== 'response'
            ? label(outcome)
            : outcome.status === 200
              ? undefined
              : (contractViolation(outcome) ??
                (isRedisNotReady(outcome.json) ? undefined : `${outcome.status} ${outcome.text.slice(0, 300)}`));
        seen.push({ sent, at, label: label(outcome), ...(unexpected ? { unexpected } : {}) });
        await sleep(100); // polling pace
      }
    });
  }

  /** Whether each service's last answer was 200. */
  allReady(): boolean {
    return [...this.answers.values()].every((seen) => seen.at(-1)?.label === '200');
  }

  /** Not-ready answers other than readiness's 503 naming Redis, per service. */
  unexpected(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const [app, seen] of this.answers) {
      const odd = seen.flatMap((a) => (a.unexpected ? [`${a.at / 1000}s: ${a.unexpected}`] : []));
      if (odd.length > 0) out[app] = odd;
    }
    return out;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  /**
   * Per service, seconds after the kill: when the first request answered not ready was sent,
   * when the last not-ready answer came, and the first 200 after it (the not-ready window is
   * from the first to that 200; a readiness request waits up to 2 s for Redis, so few polls
   * fall inside it).
   */
  windows(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [app, seen] of this.answers) {
      const notReady = seen.filter((a) => a.label !== '200');
      const first = notReady[0];
      const last = notReady.at(-1);
      const polls = seen.length;
      const readyAgain = last && seen.slice(seen.indexOf(last)).find((a) => a.label === '200');
      out[app] =
        first && last
          ? {
              not_ready_from_s: first.sent / 1000,
              last_not_ready_answer_s: last.at / 1000,
              ready_again_s: readyAgain ? readyAgain.at / 1000 : null,
              window_s: readyAgain ? (readyAgain.at - first.sent) / 1000 : null,
              not_ready_answers: notReady.length,
              polls,
              labels: [...new Set(notReady.map((a) => a.label))],
            }
          : { window_s: 0, not_ready_answers: 0, polls };
    }
    return out;
  }
}

/** Revocation channels someone subscribes to on the Redis at `url` (their names are not per platform). */
async function subscribedChannels(url: string): Promise<number> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return ((await redis.call('PUBSUB', 'CHANNELS')) as string[]).length;
  } finally {
    redis.disconnect();
  }
}

/** Keys matching `pattern` on the Redis at `url`. */
async function countKeys(url: string, pattern: string): Promise<number> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    let count = 0;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      count += keys.length;
    } while (cursor !== '0');
    return count;
  } finally {
    redis.disconnect();
  }
}

/** Whether what a step printed holds readiness's 503 naming Redis down. */
function refusedAsNotReady(step: Step, stdout: string): boolean {
  if (!step.block.code.includes('/health/ready')) return false;
  try {
    return parseJsonSequence(stdout).some(isRedisNotReady);
  } catch {
    return false;
  }
}

async function waitForReadiness(services: readonly ServiceProcess[]): Promise<void> {
  await Promise.all(
    services.map((s) =>
      waitUntil(
        `${s.app} ready again`,
        async () => label(await call(s.baseUrl, 'GET', '/health/ready', { timeoutMs: READY_TIMEOUT_MS })) === '200',
        30_000,
      ),
    ),
  );
}

describe('faults: every doc example against a Sentinel-backed stack, the primary SIGKILLed halfway', () => {
  let group: SentinelGroup;
  const runStartedAt = Date.now();
  let killedAt: number | undefined;
  let failover: Promise<Failover> | undefined;
  let promotedAt: number | undefined;
  let watch: ReadinessWatch | undefined;
  /** The document whose platform was serving when the primary died. */
  let killedDoc: string | undefined;
  let primaryBefore: string | undefined;
  /** The killed platform's keys on the primary just before the kill. */
  let keysBeforeKill = 0;
  /** The examples run after the kill: how many, and the first few with when they started (s after the kill) and took. */
  const afterKill = {
    examples: 0,
    first: [] as Array<{ example: string; started_s: number; took_s: number; before_promotion: boolean }>,
  };
  /** Per document: seconds to start its platform, run its examples, stop it. */
  const timings: Array<{ doc: string; start_s: number; examples_s: number; stop_s: number }> = [];
  const tolerated: Array<{ example: string; waited_s: number }> = [];
  /** Per platform: its prefix, the primary at its end and its keys there. */
  const platforms: Array<{ doc: string; prefix: string; primary: string; keys: number; channels: number }> = [];

  beforeAll(async () => {
    assertBuilt();
    const t0 = Date.now();
    group = await SentinelGroup.start();
    report('contract-failover setup', {
      sentinel_group_up_s: (Date.now() - t0) / 1000,
      examples: plan.length,
      kill_before: killIndex + 1,
    });
  }, 60_000);

  afterAll(async () => {
    await watch?.stop();
    await group?.destroy();
    // Only keys a service wrongly wrote to the shared Redis (the last test fails then).
    for (const p of platforms) await dropQueueKeys(sharedRedisUrl(), p.prefix);
  }, 60_000);

  it('has examples to run and a kill point inside a document', () => {
    expect(plan.length).toBeGreaterThan(10);
    expect(plan[killIndex]?.inDoc).toBeGreaterThan(0);
  });

  describe.each(withIndex)('$doc', ({ doc, steps }) => {
    let platform: DocPlatform;
    let session: DocSession;
    let readerDir: string | undefined;
    let broken: string | undefined;
    let examplesFrom = 0;
    let startS = 0;

    beforeAll(async () => {
      const t0 = Date.now();
      const work = join(root, '.data', 'doc-failover-tests', doc.replace(/[/.]/g, '_'));
      platform = await startDocPlatform(join(work, 'service-data'), {
        redisEnv: { REDIS_SENTINELS: group.sentinelAddresses, REDIS_SENTINEL_NAME: SentinelGroup.NAME },
      });
      ({ session, dir: readerDir } = readerSession(root, doc));
      examplesFrom = Date.now();
      startS = (examplesFrom - t0) / 1000;
    }, 60_000);

    afterAll(async () => {
      const t0 = Date.now();
      try {
        if (watch && killedDoc === doc) {
          // The readiness window is measured to its end, not cut off by the end of the
          // document: the promotion, then every service of the killed platform answering 200.
          const watching = watch;
          await failover?.catch(() => undefined);
          try {
            await waitUntil('every service of the killed platform ready again', () => watching.allReady(), 30_000);
          } catch (err) {
            const tail = platform.logs().split('\n').slice(-40).join('\n');
            throw new Error(
              `${(err as Error).message}: ${JSON.stringify(watching.windows())}\n--- service logs (last lines)\n${tail}`,
              { cause: err },
            );
          } finally {
            await watching.stop();
          }
        }
        if (platform) {
          const primary = await group.primary();
          platforms.push({
            doc,
            prefix: platform.queuePrefix,
            primary,
            keys: await countKeys(`redis://${primary}`, `${platform.queuePrefix}:*`),
            // Only this platform's services run now, so these are their subscriptions.
            // (Bounded wait: after a failover a subscriber reconnects on its own schedule.)
            channels: await waitUntil(
              'revocation subscriptions on the primary',
              async () => (await subscribedChannels(`redis://${primary}`)) || undefined,
              10_000,
            ).catch(() => 0),
          });
        }
      } finally {
        session?.close();
        await platform?.stop();
        if (readerDir) rmSync(readerDir, { recursive: true, force: true });
        timings.push({ doc, start_s: startS, examples_s: (t0 - examplesFrom) / 1000, stop_s: (Date.now() - t0) / 1000 });
      }
    }, 90_000);

    it.each(steps)(
      '$name',
      async ({ step, index }) => {
        if (broken) throw new Error(`not run: an earlier example failed (${broken})`);
        if (index === killIndex) {
          primaryBefore = await group.primary();
          keysBeforeKill = await countKeys(`redis://${primaryBefore}`, `${platform.queuePrefix}:*`);
          killedAt = Date.now();
          killedDoc = doc;
          watch = new ReadinessWatch(platform.services, killedAt);
          failover = group.killPrimary();
          // Not awaited: the next example runs at once; the promotion is awaited at the end.
          failover.then(
            () => (promotedAt = Date.now()),
            () => undefined,
          );
        }
        const at = `${doc}:${step.block.line}`;
        const startedAt = Date.now();
        const beforePromotion = killedAt !== undefined && promotedAt === undefined;
        let outcome = await runStep(session, platform, step);
        if (killedAt !== undefined && step.kind !== 'file') {
          afterKill.examples++;
          if (afterKill.first.length < 8)
            afterKill.first.push({
              example: at,
              started_s: (startedAt - killedAt) / 1000,
              took_s: (Date.now() - startedAt) / 1000,
              before_promotion: beforePromotion,
            });
        }
        if (outcome.why && outcome.result && killedAt !== undefined && refusedAsNotReady(step, outcome.result.stdout)) {
          const t0 = Date.now();
          await waitForReadiness(platform.services);
          tolerated.push({ example: at, waited_s: (Date.now() - t0) / 1000 });
          outcome = await runStep(session, platform, step);
        }
        if (outcome.why) {
          broken = at;
          throw new Error(describeFailure(step, doc, outcome.result!, outcome.why, platform));
        }
      },
      120_000,
    );
  });

  it('failed over once mid-run, and every platform used the Sentinel group, not the shared Redis', async () => {
    expect(failover).toBeDefined();
    const done = await failover!;
    const shared: Record<string, number> = {};
    for (const p of platforms) shared[p.prefix] = await countKeys(sharedRedisUrl(), `${p.prefix}:*`);
    // Rate-limit counters (per tenant, expiring after their window) of the last documents.
    const rateLimitKeys = await countKeys(`redis://${done.primary}`, 'ratelimit:*');
    report('contract-failover', {
      run_s: (Date.now() - runStartedAt) / 1000,
      examples: plan.length,
      killed_before: `${plan[killIndex]?.doc}:${plan[killIndex]?.step.block.line} (example ${killIndex + 1} of ${plan.length})`,
      failover_s: done.seconds,
      primary: { before: primaryBefore, after: done.primary },
      readiness_after_kill: watch?.windows(),
      readiness_unexpected_answers: watch?.unexpected(),
      examples_after_kill: afterKill.examples,
      first_examples_after_kill: afterKill.first,
      tolerated_readiness_503: tolerated,
      killed_platform_keys_before_kill: keysBeforeKill,
      per_platform_on_its_primary: platforms.map((p) => ({
        doc: p.doc,
        primary: p.primary,
        queue_keys: p.keys,
        channels: p.channels,
      })),
      rate_limit_keys_on_the_new_primary: rateLimitKeys,
      keys_per_platform_on_the_shared_redis: Object.values(shared),
      per_document_s: timings,
    });
    expect(done.primary).not.toBe(primaryBefore);
    // "No failure beyond a short readiness 503": every not-ready answer after the kill was
    // readiness's contract 503 naming Redis (never a timeout, a reset, a 500), and each
    // service answered 200 again (the killed document's afterAll waits for that).
    expect(watch?.unexpected()).toEqual({});
    expect(afterKill.examples).toBeGreaterThan(0);
    // Each platform's queue keys were on the primary the Sentinels named at the time, none on
    // the shared test Redis (the default a service falls back to without REDIS_URL).
    expect(keysBeforeKill).toBeGreaterThan(0);
    expect(platforms.length).toBe(documents.length);
    expect(platforms.filter((p) => p.keys === 0).map((p) => p.doc)).toEqual([]);
    // The revocation subscribers too, the killed platform's included (resubscribed after the promotion).
    expect(platforms.filter((p) => p.channels === 0).map((p) => p.doc)).toEqual([]);
    expect(rateLimitKeys).toBeGreaterThan(0);
    expect(Object.entries(shared).filter(([, n]) => n > 0)).toEqual([]);
  });
});
