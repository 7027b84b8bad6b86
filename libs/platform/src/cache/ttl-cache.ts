/**
 * A per-instance map whose entries expire `ttlMs` after they were set: the one TTL cache of the
 * repository (libs/auth's API-key lookups, an app's OAuth client status). Bounded crudely:
 * when `maxEntries` is reached it starts again empty (a cache of credentials, refilled in a second).
 * `ttlMs <= 0` caches nothing. `now` is the clock (milliseconds), injected by the tests.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { readonly value: V; readonly expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly options: { readonly maxEntries?: number; readonly now?: () => number } = {},
  ) {}

  /** The value set less than `ttlMs` ago, else undefined (an expired entry is dropped). */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= (this.options.maxEntries ?? 10_000)) this.entries.clear();
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
  }

  /**
   * The cached value, or `load()`'s (cached when not null). A miss is not cached, and drops
   * any entry of the key: a new credential works at once, a deleted one is forgotten.
   */
  async getOrLoad(key: K, load: (key: K) => Promise<V | null>): Promise<V | null> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const value = await load(key);
    if (value === null) this.entries.delete(key);
    else this.set(key, value);
    return value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Drops every entry whose value matches (e.g. every cached hash of a revoked credential id). */
  invalidate(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
