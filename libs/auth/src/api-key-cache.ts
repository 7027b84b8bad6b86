import { Inject, Injectable } from '@nestjs/common';
import { TtlCache } from '@app/platform';
import type { AuthModuleOptions } from './auth.options';
import { AUTH_OPTIONS } from './auth.tokens';

/** How long an instance trusts a cached API-key lookup by default (revocations also evict it at once). */
export const API_KEY_CACHE_TTL_MS = 1_000;

/**
 * Makes the API-key caches of an app's authenticators (hash → principal), with the TTL given to
 * AuthModule.forRoot: a short-lived, per-instance TtlCache, so an authenticated request does not
 * need a database round trip. Misses are not cached (a new key works at once); revocations
 * remove entries at once on this instance (`invalidate`) and, through RevocationBus, on the others.
 */
@Injectable()
export class ApiKeyCaches {
  private readonly ttlMs: number;

  constructor(@Inject(AUTH_OPTIONS) options: AuthModuleOptions) {
    this.ttlMs = options.apiKeyCacheTtlMs ?? API_KEY_CACHE_TTL_MS;
  }

  create<T>(): TtlCache<string, T> {
    return new TtlCache<string, T>(this.ttlMs);
  }
}
