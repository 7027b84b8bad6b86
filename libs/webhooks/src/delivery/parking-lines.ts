import type { RedisClient } from '@app/platform';
import type { Blocker, DeliveryRoute } from './fair-share';

/** A line nobody touched for this long is dropped by Redis (its jobs come back after their fallback delay anyway). */
export const LINE_TTL_MS = 24 * 3_600_000;

/** A non-empty line, as listed by `lines()`: an endpoint's (with its owner) or an owner's. */
export type Line =
  | { readonly kind: 'endpoint'; readonly endpointId: string; readonly ownerId: string }
  | { readonly kind: 'owner'; readonly ownerId: string };

/**
 * Pops the oldest delivery id of the lines KEYS[2..] (sorted sets scored by the job's
 * creation time); ARGV[i] is line KEYS[i+1]'s member in the index KEYS[1], removed with the
 * line's last id. False when all are empty.
 */
const NEXT = `
local best, bestScore, bestIndex
for i = 2, #KEYS do
  local head = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  if head[1] and (bestScore == nil or tonumber(head[2]) < bestScore) then
    best, bestScore, bestIndex = head[1], tonumber(head[2]), i
  end
end
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then redis.call('SREM', KEYS[1], ARGV[i - 1]) end
end
if best == nil then return false end
redis.call('ZREM', KEYS[bestIndex], best)
if redis.call('ZCARD', KEYS[bestIndex]) == 0 then redis.call('SREM', KEYS[1], ARGV[bestIndex - 1]) end
return best`;

/** Pops up to ARGV[2] oldest ids of line KEYS[2]; ARGV[1] is its member in the index KEYS[1]. */
const TAKE = `
local ids = redis.call('ZPOPMIN', KEYS[2], tonumber(ARGV[2]))
if redis.call('EXISTS', KEYS[2]) == 0 then redis.call('SREM', KEYS[1], ARGV[1]) end
local out = {}
for i = 1, #ids, 2 do out[#out + 1] = ids[i] end
return out`;

/**
 * The deliveries parked because their endpoint or owner had no free slot, in Redis, shared
 * by every worker process of the owner type: one line per endpoint (deliveries that found
 * their endpoint full) and one per owner (found their owner full), oldest first, plus an
 * index of the non-empty lines. A release of a slot takes the next delivery of its
 * endpoint's and owner's lines; each process also looks over the index periodically and
 * wakes what it has room for, so a delivery never depends on the process that parked it.
 * The keys share one hash tag (one cluster slot).
 */
export class ParkingLines {
  private readonly indexKey: string;

  constructor(
    private readonly redis: RedisClient,
    /** `<QUEUE_PREFIX>:{webhook-lines:<owner type>}` */
    private readonly prefix: string,
  ) {
    this.indexKey = `${prefix}:index`;
  }

  static prefixFor(queuePrefix: string, ownerType: string): string {
    return `${queuePrefix}:{webhook-lines:${ownerType}}`;
  }

  /** Puts a parked delivery in the line of the limit that stopped it, by age (`score`: the job's creation time). */
  async park(route: DeliveryRoute, blocker: Blocker, deliveryId: string, score: number): Promise<void> {
    const line: Line = blocker === 'endpoint' ? { kind: 'endpoint', ...route } : { kind: 'owner', ownerId: route.ownerId };
    const key = this.key(line);
    await this.redis
      .multi()
      .zadd(key, score, deliveryId)
      .pexpire(key, LINE_TTL_MS)
      .sadd(this.indexKey, member(line))
      .pexpire(this.indexKey, LINE_TTL_MS)
      .exec();
  }

  /** Takes the oldest delivery waiting for a slot of the route's endpoint or owner; null when none. */
  async next(route: DeliveryRoute): Promise<string | null> {
    const lines: Line[] = [
      { kind: 'endpoint', ...route },
      { kind: 'owner', ownerId: route.ownerId },
    ];
    const id = (await this.redis.eval(
      NEXT,
      1 + lines.length,
      this.indexKey,
      ...lines.map((l) => this.key(l)),
      ...lines.map(member),
    )) as string | null;
    return typeof id === 'string' ? id : null;
  }

  /** The non-empty lines. */
  async lines(): Promise<Line[]> {
    const members = await this.redis.smembers(this.indexKey);
    return members.map(parseMember).filter((l): l is Line => l !== undefined);
  }

  /** Takes up to `count` oldest deliveries of a line. */
  async take(line: Line, count: number): Promise<string[]> {
    return (await this.redis.eval(TAKE, 2, this.indexKey, this.key(line), member(line), String(count))) as string[];
  }

  private key(line: Line): string {
    return line.kind === 'endpoint' ? `${this.prefix}:endpoint:${line.endpointId}` : `${this.prefix}:owner:${line.ownerId}`;
  }
}

/** A line's member in the index: its kind and ids, JSON-encoded (any owner id). */
function member(line: Line): string {
  return JSON.stringify(line.kind === 'endpoint' ? ['e', line.endpointId, line.ownerId] : ['o', line.ownerId]);
}

function parseMember(m: string): Line | undefined {
  let parts: unknown;
  try {
    parts = JSON.parse(m);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parts) || !parts.every((p) => typeof p === 'string')) return undefined;
  const [kind, a, b] = parts;
  if (kind === 'e' && a !== undefined && b !== undefined) return { kind: 'endpoint', endpointId: a, ownerId: b };
  if (kind === 'o' && a !== undefined) return { kind: 'owner', ownerId: a };
  return undefined;
}
