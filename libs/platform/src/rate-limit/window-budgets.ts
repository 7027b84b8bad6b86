import { Logger } from '@nestjs/common';
import { ThrottledWarning } from '../logging/throttled-warning';
import type { RedisService } from '../queue/redis.service';
import type { WindowCount } from './fixed-window-counter';

/**
 * Takes a budget of up to `grant` requests from the key's window in one atomic script: the
 * window (a fixed window starting with its first count and lasting `ARGV[1]` ms, the same
 * key and the same count as FixedWindowCounter's) counts them at once, so requests spent
 * later from the budget were counted before they were admitted. The grant is a share of what
 * is left (`ARGV[4]`-th, at most `ARGV[3]`, at least 1) and never passes the limit
 * (`ARGV[2]`). Over the limit it counts the refused attempt, as FixedWindowCounter.hit does.
 * Returns the window's count, its remaining milliseconds and the grant (0: refused).
 */
const CLAIM_SCRIPT = `
local limit = tonumber(ARGV[2])
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
local grant = 0
if count < limit then
  grant = math.floor((limit - count) / tonumber(ARGV[4]))
  if grant > tonumber(ARGV[3]) then grant = tonumber(ARGV[3]) end
  if grant < 1 then grant = 1 end
  count = redis.call('INCRBY', KEYS[1], grant)
else
  count = redis.call('INCR', KEYS[1])
end
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl, grant}
`;

export interface WindowBudgetOptions {
  /** The most requests one claim takes from Redis (one local burst). */
  readonly maxBurst: number;
  /** A claim takes at most 1/share of what is left of the window's limit. */
  readonly share: number;
}

/** 64 requests at most per Redis call; at most 1/16 of what is left, so near the limit each request asks Redis. */
export const DEFAULT_WINDOW_BUDGET: WindowBudgetOptions = { maxBurst: 64, share: 16 };

export interface BudgetedHit extends WindowCount {
  readonly allowed: boolean;
}

interface Budget {
  /** Requests this instance took from the window and has not admitted yet. */
  tokens: number;
  /** The window's count in Redis after this instance's last claim (all instances' claims). */
  claimed: number;
  /** performance.now() at which the window ends at the latest (measured from before the claim was sent). */
  readonly endsAt: number;
  readonly limit: number;
  readonly windowMs: number;
}

/** How often (ms) expired budgets are dropped, on a claim. */
const SWEEP_EVERY_MS = 10_000;

/**
 * A fixed-window rate limit spent from a local budget (issue 32, "no Redis round trip per
 * request"): each instance takes a slice of a key's window from Redis in one call (the
 * window counts the whole slice at once) and admits requests from it without asking
 * Redis again, until the slice is spent or the window ends; then it claims again. Every
 * admitted request was counted in Redis before it was admitted, so all instances together
 * admit at most the limit per window (no over-admission: the bound is zero local bursts,
 * within the "at most one local burst per instance" the issue allows). The cost is the
 * other way: a slice an instance holds and does not spend before the window ends is lost
 * to the others, so a client spread over several instances may get its 429 up to one
 * unspent slice per other instance early. Slices shrink as the window fills (1/share of
 * what is left, at most maxBurst), so near the limit every request asks Redis, and a limit
 * under 2 × share is counted one request at a time as before. On one instance the counts,
 * the `RateLimit` headers and the 429 are exactly those of FixedWindowCounter.hit.
 *
 * The local budget ends when the window ends at the latest: its deadline is the window's
 * remaining time as Redis reported it, counted from before the claim was sent; and when
 * the connection to Redis comes back after a loss (a failover's new primary, or a restart
 * that emptied it, has none of the old windows). Fails open
 * like FixedWindowCounter: while Redis cannot answer it returns undefined. Provided by
 * PlatformModule (a factory, for the options).
 */
export class WindowBudgets {
  private readonly redisDown = new ThrottledWarning(new Logger('WindowBudgets'));
  private readonly budgets = new Map<string, Budget>();
  private readonly claiming = new Map<string, Promise<BudgetedHit | undefined>>();
  private lastSweep = 0;
  private readonly options: WindowBudgetOptions;

  constructor(
    private readonly redis: RedisService,
    options?: WindowBudgetOptions,
  ) {
    this.options = options ?? DEFAULT_WINDOW_BUDGET;
    // Redis may be a new primary (failover) or restarted empty: slices of its old windows are dropped.
    redis.onReconnect(() => this.budgets.clear());
  }

  /** Counts one request under `key` against `limit` per window of `windowSeconds`; undefined while Redis cannot answer. */
  async hit(key: string, limit: number, windowSeconds: number): Promise<BudgetedHit | undefined> {
    const windowMs = windowSeconds * 1000;
    for (;;) {
      const spent = this.spend(key, limit, windowMs);
      if (spent) return spent;
      const pending = this.claiming.get(key);
      if (pending === undefined) return this.claim(key, limit, windowMs);
      // Another request of this key is claiming: wait for its slice, then take from it (or claim again).
      const result = await pending;
      if (result === undefined || !result.allowed) return result && { ...result, allowed: false };
    }
  }

  /** Requests this instance holds for `key` and has not admitted (for tests and metrics). */
  held(key: string): number {
    const b = this.budgets.get(key);
    return b !== undefined && performance.now() < b.endsAt ? b.tokens : 0;
  }

  private spend(key: string, limit: number, windowMs: number): BudgetedHit | undefined {
    const b = this.budgets.get(key);
    if (b === undefined || b.tokens === 0 || b.limit !== limit || b.windowMs !== windowMs) return undefined;
    const left = b.endsAt - performance.now();
    if (left <= 0) return undefined;
    b.tokens--;
    return { allowed: true, count: b.claimed - b.tokens, resetSeconds: Math.max(1, Math.ceil(left / 1000)) };
  }

  private claim(key: string, limit: number, windowMs: number): Promise<BudgetedHit | undefined> {
    const claim = this.claimOnce(key, limit, windowMs).finally(() => this.claiming.delete(key));
    this.claiming.set(key, claim);
    return claim;
  }

  private async claimOnce(key: string, limit: number, windowMs: number): Promise<BudgetedHit | undefined> {
    const sent = performance.now();
    this.sweep(sent);
    let reply: [number, number, number];
    try {
      reply = (await this.redis.commands.eval(
        CLAIM_SCRIPT,
        1,
        key,
        String(windowMs),
        String(limit),
        String(this.options.maxBurst),
        String(this.options.share),
      )) as [number, number, number];
    } catch (err) {
      this.redisDown.warn(`limits disabled while Redis is unavailable (failing open): ${(err as Error).message}`);
      return undefined;
    }
    const [count, ttl, grant] = reply;
    const remainingMs = ttl < 0 ? windowMs : ttl;
    const resetSeconds = Math.max(1, Math.ceil(remainingMs / 1000));
    if (grant === 0) {
      this.budgets.delete(key);
      return { allowed: false, count, resetSeconds };
    }
    // This request takes the first of the slice; the rest is admitted locally.
    this.budgets.set(key, { tokens: grant - 1, claimed: count, endsAt: sent + remainingMs, limit, windowMs });
    return { allowed: true, count: count - (grant - 1), resetSeconds };
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [key, b] of this.budgets) if (b.endsAt <= now) this.budgets.delete(key);
  }
}
