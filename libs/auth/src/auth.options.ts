import type { PrincipalKind, Tier } from './principal';

/** An HMAC key for access tokens; the first key of the list signs, all of them verify. */
export interface JwtKey {
  readonly kid: string;
  readonly secret: Uint8Array;
}

export interface OAuthOptions {
  readonly issuer: string;
  readonly keys: readonly JwtKey[];
  /** Access token lifetime; the contract fixes 3600 s. */
  readonly tokenTtlSeconds: number;
  /** How long a client's active flag is cached per instance (a disabled client stops within this). */
  readonly clientCacheTtlMs: number;
  /** Failed client authentications per client address per minute before 429 (0: unlimited). */
  readonly failedTokenRequestsPerMinute?: number;
}

export interface RateLimitOptions {
  /** Requests per window for a principal. Partners get theirs by tier. */
  readonly perPrincipal: number | Readonly<Record<Tier, number>>;
  readonly windowSeconds: number;
}

export interface AuthModuleOptions {
  /** Which service mounts the module: decides its credentials and admin routes. */
  readonly service: 'offers' | 'vector' | 'payments';
  readonly oauth?: OAuthOptions;
  readonly rateLimit?: RateLimitOptions;
  /** Per-instance cache of API-key lookups (default 1 s; 0 disables). */
  readonly apiKeyCacheTtlMs?: number;
}

export const DEFAULT_RATE_LIMITS: Readonly<Record<AuthModuleOptions['service'], RateLimitOptions>> = {
  offers: { perPrincipal: { starter: 30, growth: 100, enterprise: 1000 }, windowSeconds: 60 },
  vector: { perPrincipal: 1200, windowSeconds: 60 },
  payments: { perPrincipal: 600, windowSeconds: 60 },
};

export const KIND_OF_SERVICE: Readonly<Record<AuthModuleOptions['service'], PrincipalKind>> = {
  offers: 'partner',
  vector: 'vector_token',
  payments: 'payments_key',
};
