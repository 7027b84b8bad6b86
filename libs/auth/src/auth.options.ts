import type { Type } from '@nestjs/common';
import type { Authenticator } from './authenticator';
import type { Principal } from './principal';

/** One rate-limit policy: `limit` requests per `windowSeconds`, named in the RateLimit headers. */
export interface RateLimitPolicy {
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

export interface RateLimitOptions<P extends Principal = Principal> {
  /** Prefix of the app's counters in Redis: `ratelimit:<namespace>:<principal key>`. */
  readonly namespace: string;
  /** The policy a principal's requests are counted under. */
  policyFor(principal: P): RateLimitPolicy;
}

export interface AuthModuleOptions<P extends Principal = Principal> {
  /**
   * The app's authenticators, one per credential kind it accepts. Each is a provider of one
   * of the app's own modules (it usually needs the app's repositories); the guard finds it there.
   */
  readonly authenticators: ReadonlyArray<Type<Authenticator<P>>>;
  readonly rateLimit: RateLimitOptions<P>;
  /** Per-instance cache of API-key lookups (ApiKeyCaches; default 1 s, 0 disables). */
  readonly apiKeyCacheTtlMs?: number;
}
