/**
 * Issue 21, "Show" point 2: a black-box run of every service's contract against a stack whose
 * Redis is a Sentinel group, with a failover in the middle, sees no failure beyond a short
 * readiness 503.
 *
 * The contract run is the docs project's (test/docs/docs.doc-spec.ts): every shell and Node
 * example of README.md and docs/*.md, in order, against the BUILT services, one fresh
 * platform per document, each output compared with the doc's. Here the services' Redis is a
 * Sentinel group (REDIS_SENTINELS + REDIS_SENTINEL_NAME, no REDIS_URL), each platform with
 * its own QUEUE_PREFIX. The run is cut in two halves at the document boundary nearest its
 * middle, each half on a Sentinel group of its own (a killed primary stays down, so a group
 * fails over once); in each half the primary is SIGKILLed just before the middle example of
 * the half's largest document, and the next example runs at once, without waiting for the
 * promotion or for readiness. (Today: in offers.md just before its indications, whose
 * webhooks and the offer's close run through BullMQ across the failover, and in vector.md.)
 *
 * Every example must pass as it does in the docs project. The one tolerated difference: an
 * example calling /health/ready that is answered 503 with `redis: down` after a kill; the run
 * then waits for readiness, runs that example again (it must pass then) and counts it. Beside
 * the examples, each killed platform's readiness is polled from the kill on: every not-ready
 * answer must be the contract's 503 naming Redis, and every service must answer 200 again.
 *
 * That the services really use the groups (and not the default redis://127.0.0.1:6379) is
 * checked: each platform's BullMQ keys and revocation subscriptions are on its group's primary
 * of the time (a killed platform's on the promoted one), rate-limit counters on the promoted
 * primaries, and no queue key on the shared test Redis.
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
const firstIndexOf = (doc: string): number => plan.findIndex((p) => p.doc === doc);

/** The two halves: documents before and from the boundary nearest the run's middle. */
const secondHalfFrom = documents
  .map((d, i) => ({ i, distance: Math.abs(firstIndexOf(d.doc) - plan.length / 2) }))
  .filter(({ i }) => i > 0)
  .sort((a, b) => a.distance - b.distance)[0]?.i;
const halfOf = (doc: string): 0 | 1 =>
  secondHalfFrom !== undefined && documents.findIndex((d) => d.doc === doc) >= secondHalfFrom ? 1 : 0;

/**
 * In each half: just before the middle example of its largest document, moved on past `file`
 * steps (they only save a file), so that platform has been serving examples when its primary
 * dies and has more to run after it.
 */
const killIndexes = ([0, 1] as const).map((half) => {
  const largest = documents.filter((d) => halfOf(d.doc) === half).sort((a, b) => b.steps.length - a.steps.length)[0];
  if (!largest) return -1;
  let i = firstIndexOf(largest.doc) + Math.floor(largest.steps.length / 2);
  while (plan[i + 1]?.doc === largest.doc && plan[i]?.step.kind === 'file') i++;
  return i;
});

const withIndex = documents.map(({ doc, steps }) => ({
  doc,
  half: halfOf(doc),
  steps: steps.map((step, inDoc) => ({
    step,
    index: firstIndexOf(doc) + inDoc,
    name: `${inDoc + 1}. line ${step.block.line} (${step.kind})`,
  })),
}));

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

/** Subscribers per pub/sub channel on the Redis at `url` (the revocation channels; their names are not per platform). */
async function subscribers(url: string): Promise<Record<string, number>> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    // Not the Sentinels' own `__sentinel__:hello`.
    const channels = ((await redis.call('PUBSUB', 'CHANNELS')) as string[]).filter((c) => !c.startsWith('__sentinel__:'));
    if (channels.length === 0) return {};
    const counts = (await redis.call('PUBSUB', 'NUMSUB', ...channels)) as Array<string | number>;
    const out: Record<string, number> = {};
    for (let i = 0; i < counts.length; i += 2) out[String(counts[i])] = Number(counts[i + 1]);
    return out;
  } finally {
    redis.disconnect();
  }
}

/** The channels of `before` with fewer subscribers in `after`. */
function missingSubscribers(before: Record<string, number>, after: Record<string, number>): string[] {
  return Object.entries(before).flatMap(([channel, n]) =>
    (after[channel] ?? 0) < n ? [`${channel} ${after[channel] ?? 0}/${n}`] : [],
  );
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

/** One failover: where it happened and what it did. */
interface Kill {
  readonly doc: string;
  readonly example: string;
  readonly primaryBefore: string;
  /** The killed platform's queue keys on the primary just before the kill. */
  readonly keysBefore: number;
  /** Its subscribers per channel just before the kill, and at the end of its document (on the promoted primary). */
  readonly subscribersBefore: Record<string, number>;
  subscribersAfter?: Record<string, number>;
  readonly killedAt: number;
  readonly failover: Promise<Failover>;
  promotedAt?: number;
  readonly watch: ReadinessWatch;
  /** The examples run after the kill in its half: how many, the first few (started: s after the kill). */
  examples: number;
  readonly first: Array<{ example: string; started_s: number; took_s: number; before_promotion: boolean }>;
  /** Rate-limit counters on the promoted primary at the end of the killed document. */
  rateLimitKeys?: number;
}

describe('faults: every doc example against Sentinel-backed stacks, a primary SIGKILLed mid-document in each half', () => {
  const groups: SentinelGroup[] = [];
  const runStartedAt = Date.now();
  const kills: Array<Kill | undefined> = [undefined, undefined];
  /** Per document: seconds to start its platform, run its examples, stop it. */
  const timings: Array<{ doc: string; start_s: number; examples_s: number; stop_s: number }> = [];
  const tolerated: Array<{ example: string; waited_s: number }> = [];
  /** Per platform: its prefix, the primary at its end, its queue keys and the revocation channels subscribed there. */
  const platforms: Array<{ doc: string; prefix: string; primary: string; keys: number; channels: number }> = [];

  beforeAll(async () => {
    assertBuilt();
    const t0 = Date.now();
    const started = await Promise.allSettled([SentinelGroup.start(), SentinelGroup.start()]);
    for (const s of started) if (s.status === 'fulfilled') groups.push(s.value);
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    report('contract-failover setup', {
      two_sentinel_groups_up_s: (Date.now() - t0) / 1000,
      examples: plan.length,
      second_half_from: documents[secondHalfFrom ?? 0]?.doc,
      kills_before: killIndexes.map((i) => `${plan[i]?.doc}:${plan[i]?.step.block.line} (example ${i + 1})`),
    });
  }, 90_000);

  afterAll(async () => {
    for (const kill of kills) await kill?.watch.stop();
    await Promise.all(groups.map((g) => g.destroy()));
    // Only keys a service wrongly wrote to the shared Redis (the last test fails then).
    for (const p of platforms) await dropQueueKeys(sharedRedisUrl(), p.prefix);
  }, 60_000);

  it('has examples to run, two halves and a kill point inside a document of each', () => {
    expect(plan.length).toBeGreaterThan(10);
    expect(secondHalfFrom).toBeDefined();
    for (const i of killIndexes) expect(plan[i]?.inDoc).toBeGreaterThan(0);
  });

  describe.each(withIndex)('$doc', ({ doc, half, steps }) => {
    let group: SentinelGroup;
    let platform: DocPlatform;
    let session: DocSession;
    let readerDir: string | undefined;
    let broken: string | undefined;
    let examplesFrom = 0;
    let startS = 0;

    beforeAll(async () => {
      const t0 = Date.now();
      const g = groups[half];
      if (!g) throw new Error('no Sentinel group (the setup failed)');
      group = g;
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
        const kill = kills[half];
        if (kill && kill.doc === doc) {
          // The readiness window is measured to its end, not cut off by the end of the
          // document: the promotion, then every service of the killed platform answering 200.
          await kill.failover.catch(() => undefined);
          try {
            await waitUntil('every service of the killed platform ready again', () => kill.watch.allReady(), 30_000);
          } catch (err) {
            const tail = platform.logs().split('\n').slice(-40).join('\n');
            throw new Error(
              `${(err as Error).message}: ${JSON.stringify(kill.watch.windows())}\n--- service logs (last lines)\n${tail}`,
              { cause: err },
            );
          } finally {
            await kill.watch.stop();
          }
          const promoted = `redis://${await group.primary()}`;
          // Per tenant and expiring after their window, so counted while this platform's are fresh.
          kill.rateLimitKeys = await countKeys(promoted, 'ratelimit:*');
          // Every subscriber is back (bounded wait: each reconnects on its own schedule).
          kill.subscribersAfter = await waitUntil(
            'the killed platform resubscribed on the promoted primary',
            async () => {
              const now = await subscribers(promoted);
              return missingSubscribers(kill.subscribersBefore, now).length === 0 ? now : undefined;
            },
            10_000,
          ).catch(() => subscribers(promoted));
        }
        if (platform) {
          const primary = await group.primary();
          platforms.push({
            doc,
            prefix: platform.queuePrefix,
            primary,
            keys: await countKeys(`redis://${primary}`, `${platform.queuePrefix}:*`),
            // Only this platform's services use this group now, so these are their subscriptions.
            // (Bounded wait: after a failover a subscriber reconnects on its own schedule.)
            channels: Object.keys(
              await waitUntil(
                'revocation subscriptions on the primary',
                async () => {
                  const now = await subscribers(`redis://${primary}`);
                  return Object.keys(now).length > 0 ? now : undefined;
                },
                10_000,
              ).catch(() => ({})),
            ).length,
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
        const at = `${doc}:${step.block.line}`;
        if (index === killIndexes[half]) {
          const primaryBefore = await group.primary();
          const keysBefore = await countKeys(`redis://${primaryBefore}`, `${platform.queuePrefix}:*`);
          const subscribersBefore = await subscribers(`redis://${primaryBefore}`);
          const killedAt = Date.now();
          const kill: Kill = {
            doc,
            example: at,
            primaryBefore,
            keysBefore,
            subscribersBefore,
            killedAt,
            watch: new ReadinessWatch(platform.services, killedAt),
            failover: group.killPrimary(),
            examples: 0,
            first: [],
          };
          kills[half] = kill;
          // Not awaited: the next example runs at once; the promotion is awaited at the end.
          kill.failover.then(
            () => (kill.promotedAt = Date.now()),
            () => undefined,
          );
        }
        const kill = kills[half];
        const startedAt = Date.now();
        const beforePromotion = kill !== undefined && kill.promotedAt === undefined;
        let outcome = await runStep(session, platform, step);
        if (kill && step.kind !== 'file') {
          kill.examples++;
          if (kill.first.length < 8)
            kill.first.push({
              example: at,
              started_s: (startedAt - kill.killedAt) / 1000,
              took_s: (Date.now() - startedAt) / 1000,
              before_promotion: beforePromotion,
            });
        }
        if (outcome.why && outcome.result && kill && refusedAsNotReady(step, outcome.result.stdout)) {
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

  it('failed over once in each half, and every platform used its Sentinel group, not the shared Redis', async () => {
    // Settled, not awaited one by one: the figures are printed even when a failover went wrong.
    const settled = await Promise.allSettled(kills.map((k) => (k ? k.failover : Promise.resolve(undefined))));
    const done = settled.map((r) => (r.status === 'fulfilled' ? r.value : undefined));
    const shared: Record<string, number> = {};
    for (const p of platforms) shared[p.prefix] = await countKeys(sharedRedisUrl(), `${p.prefix}:*`);
    report('contract-failover', {
      run_s: (Date.now() - runStartedAt) / 1000,
      examples: plan.length,
      kills: kills.map((k, i) => ({
        before: k?.example,
        failover_s: done[i]?.seconds,
        ...(settled[i]?.status === 'rejected' ? { failover_error: String(settled[i].reason) } : {}),
        primary: { before: k?.primaryBefore, after: done[i]?.primary },
        readiness_after_kill: k?.watch.windows(),
        readiness_unexpected_answers: k?.watch.unexpected(),
        examples_after_kill: k?.examples,
        first_examples_after_kill: k?.first,
        killed_platform_queue_keys_before: k?.keysBefore,
        rate_limit_keys_on_the_promoted_primary: k?.rateLimitKeys,
        subscribers: { before: k?.subscribersBefore, after: k?.subscribersAfter },
      })),
      examples_after_a_kill: kills.reduce((n, k) => n + (k?.examples ?? 0), 0),
      tolerated_readiness_503: tolerated,
      per_platform_on_its_primary: platforms.map((p) => ({
        doc: p.doc,
        primary: p.primary,
        queue_keys: p.keys,
        channels: p.channels,
      })),
      queue_keys_on_the_shared_redis: Object.values(shared),
      per_document_s: timings,
    });
    for (const [i, kill] of kills.entries()) {
      expect(kill).toBeDefined();
      expect(settled[i]?.status === 'rejected' ? String(settled[i].reason) : 'promoted').toBe('promoted');
      expect(done[i]?.primary).not.toBe(kill?.primaryBefore);
      // "No failure beyond a short readiness 503": every not-ready answer after the kill was
      // readiness's contract 503 naming Redis (never a timeout, a reset, a 500), and each
      // service answered 200 again (the killed document's afterAll waits for that).
      expect(kill?.watch.unexpected()).toEqual({});
      expect(kill?.examples).toBeGreaterThan(0);
      // Queue keys and rate-limit counters on the primaries the Sentinels named.
      expect(kill?.keysBefore).toBeGreaterThan(0);
      expect(kill?.rateLimitKeys).toBeGreaterThan(0);
      // Every revocation subscriber of the killed platform resubscribed on the promoted primary.
      expect(Object.keys(kill?.subscribersBefore ?? {}).length).toBeGreaterThan(0);
      expect(missingSubscribers(kill?.subscribersBefore ?? {}, kill?.subscribersAfter ?? {})).toEqual([]);
    }
    // Each platform's queue keys were on its group's primary of the time, none on the shared
    // test Redis (the default a service falls back to without REDIS_URL); its revocation
    // subscribers too, the killed platforms' included (resubscribed after the promotion).
    expect(platforms.length).toBe(documents.length);
    expect(platforms.filter((p) => p.keys === 0).map((p) => p.doc)).toEqual([]);
    expect(platforms.filter((p) => p.channels === 0).map((p) => p.doc)).toEqual([]);
    expect(Object.entries(shared).filter(([, n]) => n > 0)).toEqual([]);
  });
});
