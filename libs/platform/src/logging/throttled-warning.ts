import type { Logger } from '@nestjs/common';

/**
 * Logs a warning at most once every `everyMs` per key: a dependency that is down (Redis,
 * PostgreSQL's LISTEN connection) fails every call, and one line per call would flood the
 * log. The first warning of a burst is always written.
 */
export class ThrottledWarning {
  private readonly last = new Map<string, number>();

  constructor(
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly everyMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Writes `message` unless a warning with the same `key` was written less than `everyMs` ago. */
  warn(message: string, key = ''): boolean {
    const at = this.now();
    const previous = this.last.get(key);
    if (previous !== undefined && at - previous < this.everyMs) return false;
    this.last.set(key, at);
    this.logger.warn(message);
    return true;
  }
}
