import { Inject, Injectable } from '@nestjs/common';
import { DomainError, FixedWindowCounter, type WindowCount, WindowBudgets } from '@app/platform';
import type { AuthModuleOptions, RateLimitOptions, RateLimitPolicy } from '../auth.options';
import { AUTH_OPTIONS } from '../auth.tokens';
import type { Principal } from '../principal';

export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly headers: Readonly<Record<string, string>>;
  readonly retryAfterSeconds: number;
}

@Injectable()
export class RateLimiter {
  private readonly limits: RateLimitOptions;

  constructor(
    @Inject(AUTH_OPTIONS) options: AuthModuleOptions,
    private readonly counter: FixedWindowCounter,
    private readonly budgets: WindowBudgets,
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
   *
   * Spent from a local budget (WindowBudgets): this instance takes a slice of the window
   * from Redis in one call and admits requests from it without a round trip each. Every
   * admitted request is counted in Redis before it is admitted, so the instances together
   * never pass the limit; the headers are exact on one instance (docs/auth.md, "Rate limits").
   */
  async hit(principal: Principal, principalKey: string): Promise<RateLimitDecision | undefined> {
    const policy = this.policyFor(principal);
    const window = await this.budgets.hit(
      `ratelimit:${this.limits.namespace}:${principalKey}`,
      policy.limit,
      policy.windowSeconds,
    );
    return window && decision(window, policy, window.allowed);
  }

  /** Counts one request against any key (e.g. a client address) under `policy`. */
  async hitKey(key: string, policy: RateLimitPolicy): Promise<RateLimitDecision | undefined> {
    const window = await this.counter.hit(key, policy.windowSeconds);
    return window && decision(window, policy, window.count <= policy.limit);
  }

  /**
   * Gives back one request counted by `hitKey` (reserve-then-confirm: count an attempt before
   * the expensive work, refund it when it must not count). A refund after the window ended
   * does nothing. Best effort: without Redis it is skipped (the limit fails open anyway).
   */
  refundKey(key: string): Promise<void> {
    return this.counter.refund(key);
  }

  /** Throws the contract's 429 (`rate_limit_error`, `Retry-After`). */
  static exceeded(decision: RateLimitDecision): DomainError {
    return new DomainError('rate_limit_exceeded', `Too many requests. Retry after ${decision.retryAfterSeconds} seconds.`, {
      headers: { ...decision.headers, 'Retry-After': String(decision.retryAfterSeconds) },
    });
  }
}

/** The decision and its RateLimit headers for a window's count under `policy`. */
function decision(window: WindowCount, policy: RateLimitPolicy, allowed: boolean): RateLimitDecision {
  const remaining = Math.max(0, policy.limit - window.count);
  return {
    allowed,
    retryAfterSeconds: window.resetSeconds,
    headers: {
      'RateLimit-Policy': `"${policy.name}";q=${policy.limit};w=${policy.windowSeconds}`,
      RateLimit: `"${policy.name}";r=${remaining};t=${window.resetSeconds}`,
    },
  };
}
