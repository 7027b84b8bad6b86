import type { Redis } from 'ioredis';
import type { Blocker, DeliveryRoute } from './fair-share';

/** A line nobody touched for this long is dropped by Redis (its jobs come back after their fallback delay anyway). */
export const LINE_TTL_MS = 24 * 3_600_000;

/**
 * Pops the oldest delivery id of two lines (sorted sets scored by the job's creation time):
 * the endpoint's (deliveries that found their endpoint full) and the owner's (deliveries
 * that found their owner full). False when both are empty.
 */
const NEXT = `
local e = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local o = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
local key, id
if e[1] and (not o[1] or tonumber(e[2]) <= tonumber(o[2])) then
  key, id = KEYS[1], e[1]
elseif o[1] then
  key, id = KEYS[2], o[1]
else
  return false
end
redis.call('ZREM', key, id)
return id`;

/**
 * The deliveries parked because their endpoint or owner had no free slot, in Redis, shared
 * by every worker process of the owner type: whichever process releases a slot of an
 * endpoint or owner wakes the oldest delivery waiting for it, so a parked delivery never
 * depends on the process that parked it. The keys share one hash tag (one cluster slot).
 */
export class ParkingLines {
  constructor(
    private readonly redis: Redis,
    /** `<QUEUE_PREFIX>:{webhook-lines:<owner type>}` */
    private readonly prefix: string,
  ) {}

  static prefixFor(queuePrefix: string, ownerType: string): string {
    return `${queuePrefix}:{webhook-lines:${ownerType}}`;
  }

  private endpointKey(route: DeliveryRoute): string {
    return `${this.prefix}:endpoint:${route.endpointId}`;
  }

  private ownerKey(route: DeliveryRoute): string {
    return `${this.prefix}:owner:${route.ownerId}`;
  }

  /** Puts a parked delivery in the line of the limit that stopped it, by age (`score`: the job's creation time). */
  async park(route: DeliveryRoute, blocker: Blocker, deliveryId: string, score: number): Promise<void> {
    const key = blocker === 'endpoint' ? this.endpointKey(route) : this.ownerKey(route);
    await this.redis.multi().zadd(key, score, deliveryId).pexpire(key, LINE_TTL_MS).exec();
  }

  /** Takes the oldest delivery waiting for a slot of the route's endpoint or owner; null when none. */
  async next(route: DeliveryRoute): Promise<string | null> {
    const id = (await this.redis.eval(NEXT, 2, this.endpointKey(route), this.ownerKey(route))) as string | null;
    return typeof id === 'string' ? id : null;
  }
}
