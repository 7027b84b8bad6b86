import type { Logger } from '@nestjs/common';

/** A credential's or session's last use is written at most this often per id and instance. */
export const LAST_USED_EVERY_MS = 60_000;

/**
 * Records that a credential or session was used (`last_used_at`, `last_seen_at`) without a
 * write per request: at most once every `everyMs` per id on this instance, in the background
 * (a failed write is logged and costs the request nothing). The one throttle of the apps'
 * API keys and tokens and of console sessions. The caller passes `now` from its Clock, so a test's clock
 * decides both the written time and the throttle.
 */
export class LastUsedThrottle {
  /** When this instance last wrote each id's use. */
  private readonly written = new Map<string, number>();

  constructor(
    private readonly write: (id: string, at: Date) => Promise<void>,
    private readonly logger: Pick<Logger, 'warn'>,
    /** What the warning says could not be recorded: 'a key use', 'a session use'. */
    private readonly what: string,
    private readonly options: { readonly everyMs?: number; readonly maxEntries?: number } = {},
  ) {}

  /** Writes the use at `now` (ms) unless this id's was written less than `everyMs` ago; whether it wrote. */
  record(id: string, now: number): boolean {
    const last = this.written.get(id);
    if (last !== undefined && now - last < (this.options.everyMs ?? LAST_USED_EVERY_MS)) return false;
    if (this.written.size > (this.options.maxEntries ?? 10_000)) this.written.clear();
    this.written.set(id, now);
    this.write(id, new Date(now)).catch((err: unknown) => this.logger.warn({ err }, `could not record ${this.what}`));
    return true;
  }
}
