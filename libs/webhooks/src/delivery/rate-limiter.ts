import type { RedisClient } from '@app/platform';

/**
 * A delivery that comes back this close to its slot (or earlier) goes: BullMQ promotes a
 * delayed job a few ms either side of its timestamp, and Node's and Redis's clocks differ
 * by as much; sending a few ms early leaves the long-run rate unchanged (the next slot is
 * still one interval after this one).
 */
export const SLOT_TOLERANCE_MS = 10;
/** A limiter key outlives its last reservation by this much (then the endpoint starts afresh). */
const KEY_SLACK_MS = 60_000;

/**
 * GCRA with reservations, in one Lua call (atomic across every worker process):
 * KEYS[1] is the endpoint's hash: `tat` = the theoretical arrival time of the next free
 * slot (ms, Redis clock), `r:<delivery id>` = a slot already reserved by that delivery.
 * ARGV = interval ms, delivery id, tolerance ms, key slack ms, and "now" in ms: empty (the
 * Redis clock, shared by every worker) except under a test's clock. Returns 0 (send now) or the ms to wait
 * for the delivery's slot, reserving it the first time: each waiting delivery holds its
 * own slot, so a backlog is spaced one interval apart with one trip through the delayed
 * set each, not a herd that comes back together and asks again.
 */
const RESERVE = `
local now = tonumber(ARGV[5])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[3])
local field = 'r:' .. ARGV[2]
local held = tonumber(redis.call('HGET', KEYS[1], field))
if held then
  if held - now <= tolerance then
    redis.call('HDEL', KEYS[1], field)
    return 0
  end
  return math.ceil(held - now)
end
local tat = tonumber(redis.call('HGET', KEYS[1], 'tat')) or now
if tat < now then tat = now end
redis.call('HSET', KEYS[1], 'tat', tat + interval)
redis.call('PEXPIRE', KEYS[1], math.ceil(tat + interval - now) + tonumber(ARGV[4]))
if tat - now <= tolerance then return 0 end
redis.call('HSET', KEYS[1], field, tat)
return math.ceil(tat - now)`;

/**
 * The per-endpoint `rate_limit_per_second` (contract, "Webhooks, more"): deliveries beyond
 * it wait — never dropped, no attempt counted, their retry schedule untouched — shared by
 * every worker process through Redis. The worker asks before each attempt of a limited
 * endpoint; a delivery told to wait is moved to the delayed set until its slot (as a parked
 * one is) and goes when it comes back.
 */
export class RateLimiter {
  constructor(
    private readonly redis: RedisClient,
    /** `<QUEUE_PREFIX>:{webhook-rate:<owner type>}` */
    private readonly prefix: string,
    /**
     * "Now" in ms for the slots; by default (production) Redis's own clock, read inside the
     * script. A test passes a clock it moves, so "once it is due" needs no sleeping.
     */
    private readonly clockMs?: () => number,
  ) {}

  static prefixFor(queuePrefix: string, ownerType: string): string {
    return `${queuePrefix}:{webhook-rate:${ownerType}}`;
  }

  /** 0: send now; otherwise how many ms until the slot this delivery now holds. */
  async reserve(endpointId: string, perSecond: number, deliveryId: string): Promise<number> {
    const interval = 1000 / Math.max(perSecond, 1e-3);
    const wait = await this.redis.eval(
      RESERVE,
      1,
      `${this.prefix}:${endpointId}`,
      String(interval),
      deliveryId,
      String(SLOT_TOLERANCE_MS),
      String(KEY_SLACK_MS),
      this.clockMs === undefined ? '' : String(this.clockMs()),
    );
    return typeof wait === 'number' ? wait : Number(wait);
  }
}
