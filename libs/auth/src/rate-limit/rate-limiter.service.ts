import { Inject, Injectable, Logger } from '@nestjs/common';
import { DomainError, RedisService, ThrottledWarning } from '@app/platform';
import type { AuthModuleOptions, RateLimitOptions, RateLimitPolicy } from '../auth.options';
import { AUTH_OPTIONS } from '../auth.tokens';
import type { Principal } from '../principal';

/**
 * Fixed-window counter per principal, in one atomic Lua script, so the limit holds across
 * every instance sharing the Redis. Returns the count in the window and the window's
 * remaining milliseconds.
 */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

/** The window's count and remaining milliseconds, without counting. */
const PEEK_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
return {count, ttl}
`;

/**
 * Gives back one count taken by HIT_SCRIPT (reserve, then refund when the attempt turns out
 * not to count). Only while the window lives and above zero: a refund never creates a key
 * without expiry nor a negative count.
 */
const REFUND_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then
  return redis.call('DECR', KEYS[1])
end
return 0
`;

export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly headers: Readonly<Record<string, string>>;
  readonly retryAfterSeconds: number;
}

@Injectable()
export class RateLimiter {
  private readonly redisDown = new ThrottledWarning(new Logger('RateLimiter'));
  private readonly limits: RateLimitOptions;

  constructor(
    @Inject(AUTH_OPTIONS) options: AuthModuleOptions,
    private readonly redis: RedisService,
  ) {
    this.limits = options.rateLimit;
  }

  /** The app's policy for `principal` (AuthModule.forRoot's `rateLimit.policyFor`). */
  policyFor(principal: Principal): RateLimitPolicy {
    return this.limits.policyFor(principal);
  }

  /**
   * Counts one request of `principal`, whose stable key is `principalKey`. Headers follow
   * draft-ietf-httpapi-ratelimit-headers-10: `RateLimit-Policy: "growth";q=100;w=60` and
   * `RateLimit: "growth";r=42;t=17`. If Redis cannot answer, the request is allowed (fail
   * open) and a warning logged.
   */
  async hit(principal: Principal, principalKey: string): Promise<RateLimitDecision | undefined> {
    return this.hitKey(`ratelimit:${this.limits.namespace}:${principalKey}`, this.policyFor(principal));
  }

  /** Counts one request against any key (e.g. a client address) under `policy`. */
  async hitKey(key: string, policy: RateLimitPolicy): Promise<RateLimitDecision | undefined> {
    return this.run(HIT_SCRIPT, key, policy, (count) => count <= policy.limit);
  }

  /**
   * Gives back one request counted by `hitKey` (reserve-then-confirm: count an attempt before
   * the expensive work, refund it when it must not count). A refund after the window ended
   * does nothing. Best effort: without Redis it is skipped (the limit fails open anyway).
   */
  async refundKey(key: string): Promise<void> {
    try {
      await this.redis.commands.eval(REFUND_SCRIPT, 1, key);
    } catch (err) {
      this.redisDown.warn(`rate limiting disabled while Redis is unavailable (failing open): ${(err as Error).message}`);
    }
  }

  /** Whether one more request fits under `policy` for `key`, without counting it. */
  async peekKey(key: string, policy: RateLimitPolicy): Promise<RateLimitDecision | undefined> {
    return this.run(PEEK_SCRIPT, key, policy, (count) => count < policy.limit);
  }

  private async run(
    script: string,
    key: string,
    policy: RateLimitPolicy,
    allows: (count: number) => boolean,
  ): Promise<RateLimitDecision | undefined> {
    const windowMs = policy.windowSeconds * 1000;
    let count: number;
    let ttlMs: number;
    try {
      const result = (await this.redis.commands.eval(script, 1, key, String(windowMs))) as [number, number];
      [count, ttlMs] = result;
      if (ttlMs < 0) ttlMs = windowMs;
    } catch (err) {
      this.redisDown.warn(`rate limiting disabled while Redis is unavailable (failing open): ${(err as Error).message}`);
      return undefined;
    }
    const remaining = Math.max(0, policy.limit - count);
    const reset = Math.max(1, Math.ceil(ttlMs / 1000));
    return {
      allowed: allows(count),
      retryAfterSeconds: reset,
      headers: {
        'RateLimit-Policy': `"${policy.name}";q=${policy.limit};w=${policy.windowSeconds}`,
        RateLimit: `"${policy.name}";r=${remaining};t=${reset}`,
      },
    };
  }

  /** Throws the contract's 429 (`rate_limit_error`, `Retry-After`). */
  static exceeded(decision: RateLimitDecision): DomainError {
    return new DomainError('rate_limit_exceeded', `Too many requests. Retry after ${decision.retryAfterSeconds} seconds.`, {
      headers: { ...decision.headers, 'Retry-After': String(decision.retryAfterSeconds) },
    });
  }
}
