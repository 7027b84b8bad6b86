import { Injectable, Logger } from '@nestjs/common';
import { ThrottledWarning } from '../logging/throttled-warning';
import { RedisService } from '../queue/redis.service';

/**
 * Counts one event in the key's current window, in one atomic Lua script (so a limit holds
 * across every instance sharing the Redis): the window starts with the first event and
 * lasts `ARGV[1]` ms. Returns the count and the window's remaining milliseconds.
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

export interface WindowCount {
  /** Events counted in the current window (this one included, for `hit`). */
  readonly count: number;
  /** Whole seconds until the window ends (at least 1): the value of a Retry-After. */
  readonly resetSeconds: number;
}

/**
 * The platform's fixed-window counter in Redis: the admin key's failure limit here, the
 * rate limits of libs/auth on top of it. Fails open: while Redis cannot answer it returns
 * undefined and logs a throttled warning.
 */
@Injectable()
export class FixedWindowCounter {
  private readonly redisDown = new ThrottledWarning(new Logger('FixedWindowCounter'));

  constructor(private readonly redis: RedisService) {}

  /** Counts one event under `key` in a window of `windowSeconds`. */
  hit(key: string, windowSeconds: number): Promise<WindowCount | undefined> {
    return this.run(HIT_SCRIPT, key, windowSeconds);
  }

  /** The current window of `key`, without counting. */
  peek(key: string, windowSeconds: number): Promise<WindowCount | undefined> {
    return this.run(PEEK_SCRIPT, key, windowSeconds);
  }

  /**
   * Gives back one event counted by `hit` (reserve-then-confirm). A refund after the window
   * ended does nothing. Best effort: without Redis it is skipped (the limit fails open anyway).
   */
  async refund(key: string): Promise<void> {
    try {
      await this.redis.commands.eval(REFUND_SCRIPT, 1, key);
    } catch (err) {
      this.redisDown.warn(`limits disabled while Redis is unavailable (failing open): ${(err as Error).message}`);
    }
  }

  private async run(script: string, key: string, windowSeconds: number): Promise<WindowCount | undefined> {
    const windowMs = windowSeconds * 1000;
    try {
      const [count, ttl] = (await this.redis.commands.eval(script, 1, key, String(windowMs))) as [number, number];
      return { count, resetSeconds: Math.max(1, Math.ceil((ttl < 0 ? windowMs : ttl) / 1000)) };
    } catch (err) {
      this.redisDown.warn(`limits disabled while Redis is unavailable (failing open): ${(err as Error).message}`);
      return undefined;
    }
  }
}
