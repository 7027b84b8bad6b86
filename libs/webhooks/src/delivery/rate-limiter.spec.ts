import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiter, SLOT_TOLERANCE_MS } from './rate-limiter';
import { testRedisUrl } from '../../../../test/support/redis';

/**
 * Against the real Redis of the machine (REDIS_URL or 127.0.0.1:6379), under a prefix of its
 * own. The limiters run on a clock the test moves (the script's "now"), so every wait is an
 * exact figure and "once it is due" needs no sleeping; one test runs on Redis's own clock
 * (production) and asserts only what holds whatever the timing.
 */
describe('RateLimiter (real Redis)', () => {
  let redis: Redis;
  let limiter: RateLimiter;
  let nowMs: number;
  const prefix = `test-rate-${randomBytes(4).toString('hex')}`;
  const keyPrefix = RateLimiter.prefixFor(prefix, 'partner');

  beforeAll(() => {
    redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
    limiter = new RateLimiter(redis, keyPrefix, () => nowMs);
  });
  beforeEach(() => {
    nowMs = 1_700_000_000_000;
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('lets the first delivery go and gives each later one its own slot, one interval apart', async () => {
    const waits: number[] = [];
    for (let i = 0; i < 20; i++) waits.push(await limiter.reserve('we_a', 2, `dlv_${i}`));
    // 2/s: slot i is i × 500 ms after the first
    expect(waits).toEqual(Array.from({ length: 20 }, (_, i) => i * 500));
  });

  it('a delivery asking again keeps its slot (no new reservation) and goes once it is due, not before', async () => {
    expect(await limiter.reserve('we_b', 10, 'dlv_x')).toBe(0);
    const first = await limiter.reserve('we_b', 10, 'dlv_y');
    expect(first).toBe(100);
    // asking again early: the same slot, and the next delivery is still one interval later
    nowMs += 30;
    expect(await limiter.reserve('we_b', 10, 'dlv_y')).toBe(70);
    expect(await limiter.reserve('we_b', 10, 'dlv_z')).toBe(170);
    // just outside the tolerance before its slot: still waiting; at the tolerance: goes
    nowMs += 70 - SLOT_TOLERANCE_MS - 1;
    expect(await limiter.reserve('we_b', 10, 'dlv_y')).toBe(SLOT_TOLERANCE_MS + 1);
    nowMs += 1;
    expect(await limiter.reserve('we_b', 10, 'dlv_y')).toBe(0);
    // its slot is used: dlv_z keeps the one after it (200 ms after the first; now is 90 ms after it)
    expect(await limiter.reserve('we_b', 10, 'dlv_z')).toBe(110);
  });

  it('keeps endpoints apart and starts afresh after a quiet spell', async () => {
    expect(await limiter.reserve('we_c', 1, 'dlv_1')).toBe(0);
    expect(await limiter.reserve('we_d', 1, 'dlv_2')).toBe(0);
    expect(await limiter.reserve('we_c', 1, 'dlv_3')).toBe(1000);
    const fast = 'we_e';
    expect(await limiter.reserve(fast, 20, 'dlv_4')).toBe(0);
    expect(await limiter.reserve(fast, 20, 'dlv_5')).toBe(50);
    nowMs += 120;
    // more than an interval (50 ms) after the last slot was due: no debt, goes at once
    expect(await limiter.reserve(fast, 20, 'dlv_6')).toBe(0);
  });

  it('shares the slots between limiters (worker processes) of the same prefix', async () => {
    const other = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
    try {
      const second = new RateLimiter(other, keyPrefix, () => nowMs);
      expect(await limiter.reserve('we_f', 1, 'dlv_a')).toBe(0);
      expect(await second.reserve('we_f', 1, 'dlv_b')).toBe(1000);
      expect(await limiter.reserve('we_f', 1, 'dlv_c')).toBe(2000);
    } finally {
      await other.quit();
    }
  });

  it("on Redis's clock (production): each waiting delivery holds its own slot, exactly one interval after the previous", async () => {
    const real = new RateLimiter(redis, keyPrefix);
    const key = `${keyPrefix}:we_g`;
    expect(await real.reserve('we_g', 2, 'dlv_0')).toBe(0);
    const waits: number[] = [];
    for (let i = 1; i < 10; i++) waits.push(await real.reserve('we_g', 2, `dlv_${i}`));
    // the slots themselves (Redis-clock timestamps) are spaced exactly, whatever the calls took
    const slots = await Promise.all(waits.map(async (_, j) => Number(await redis.hget(key, `r:dlv_${j + 1}`))));
    expect(slots.map((s) => s - slots[0])).toEqual(waits.map((_, j) => j * 500));
    expect(waits.every((w, j) => w > SLOT_TOLERANCE_MS && (j === 0 || w > waits[j - 1]))).toBe(true);
    // asking again keeps the slot: no new reservation moves the line
    const tat = await redis.hget(key, 'tat');
    expect(await real.reserve('we_g', 2, 'dlv_1')).toBeGreaterThan(0);
    expect(await redis.hget(key, 'tat')).toBe(tat);
    expect(Number(await redis.hget(key, 'r:dlv_1'))).toBe(slots[0]);
  });
});
