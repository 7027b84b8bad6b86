import { Inject, Injectable } from '@nestjs/common';
import type { AuthModuleOptions } from './auth.options';
import { AUTH_OPTIONS } from './auth.tokens';

/** How long an instance trusts a cached API-key lookup by default (revocations also evict it at once). */
export const API_KEY_CACHE_TTL_MS = 1_000;

/**
 * A short-lived, per-instance cache of API-key lookups (hash → principal), so an
 * authenticated request does not need a database round trip. Entries expire after `ttlMs`;
 * revocations remove them at once on this instance and, through RevocationBus, on the others.
 */
export class ApiKeyCache<T> {
  private readonly entries = new Map<string, { value: T; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: T): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
  }

  /** The cached value, or `load()`'s (cached when found). Misses are not cached: a new key works at once. */
  async getOrLoad(key: string, load: (key: string) => Promise<T | null>): Promise<T | null> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const value = await load(key);
    if (value !== null) this.set(key, value);
    return value;
  }

  /** Drops every entry whose value matches (e.g. every cached hash of a revoked credential id). */
  invalidate(matches: (value: T) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }
}

/** Makes the API-key caches of an app's authenticators, with the TTL given to AuthModule.forRoot. */
@Injectable()
export class ApiKeyCaches {
  private readonly ttlMs: number;

  constructor(@Inject(AUTH_OPTIONS) options: AuthModuleOptions) {
    this.ttlMs = options.apiKeyCacheTtlMs ?? API_KEY_CACHE_TTL_MS;
  }

  create<T>(): ApiKeyCache<T> {
    return new ApiKeyCache<T>(this.ttlMs);
  }
}
