import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiter, SLOT_TOLERANCE_MS } from './rate-limiter';
import { testRedisUrl } from '../../../../test/support/redis';

/** Against the real Redis of the machine (REDIS_URL or 127.0.0.1:6379), under a prefix of its own. */
describe('RateLimiter (real Redis)', () => {
  let redis: Redis;
  let limiter: RateLimiter;
  const prefix = `test-rate-${randomBytes(4).toString('hex')}`;

  beforeAll(() => {
    redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
    limiter = new RateLimiter(redis, RateLimiter.prefixFor(prefix, 'partner'));
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('lets the first delivery go and gives each later one its own slot, one interval apart', async () => {
    const waits: number[] = [];
    for (let i = 0; i < 20; i++) waits.push(await limiter.reserve('we_a', 2, `dlv_${i}`));
    expect(waits[0]).toBe(0);
    // 2/s: slot i is i × 500 ms after the first (less the few ms the calls took)
    for (let i = 1; i < 20; i++) {
      expect(waits[i]).toBeGreaterThan(i * 500 - 200);
      expect(waits[i]).toBeLessThanOrEqual(i * 500 + 1);
    }
  });

  it('a delivery asking again keeps its slot (no new reservation) and goes once it is due', async () => {
    expect(await limiter.reserve('we_b', 10, 'dlv_x')).toBe(0);
    const first = await limiter.reserve('we_b', 10, 'dlv_y');
    expect(first).toBeGreaterThan(SLOT_TOLERANCE_MS);
    // asking again early: the same slot, and the next delivery is still one interval later
    const again = await limiter.reserve('we_b', 10, 'dlv_y');
    expect(again).toBeLessThanOrEqual(first);
    expect(again).toBeGreaterThan(first - 50);
    const next = await limiter.reserve('we_b', 10, 'dlv_z');
    expect(next).toBeGreaterThan(first + 50);
    await new Promise((r) => setTimeout(r, first));
    expect(await limiter.reserve('we_b', 10, 'dlv_y')).toBe(0);
  });

  it('keeps endpoints apart and starts afresh after a quiet spell', async () => {
    expect(await limiter.reserve('we_c', 1, 'dlv_1')).toBe(0);
    expect(await limiter.reserve('we_d', 1, 'dlv_2')).toBe(0);
    expect(await limiter.reserve('we_c', 1, 'dlv_3')).toBeGreaterThan(900);
    const fast = 'we_e';
    expect(await limiter.reserve(fast, 20, 'dlv_4')).toBe(0);
    await new Promise((r) => setTimeout(r, 120));
    // more than an interval (50 ms) later: no debt, goes at once
    expect(await limiter.reserve(fast, 20, 'dlv_5')).toBe(0);
  });

  it('shares the slots between limiters (worker processes) of the same prefix', async () => {
    const other = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
    try {
      const second = new RateLimiter(other, RateLimiter.prefixFor(prefix, 'partner'));
      // 1/s: a shared line makes the second wait about a second (an unshared one: 0); the
      // margin absorbs a loaded machine's delay between the two calls
      expect(await limiter.reserve('we_f', 1, 'dlv_a')).toBe(0);
      expect(await second.reserve('we_f', 1, 'dlv_b')).toBeGreaterThan(500);
    } finally {
      await other.quit();
    }
  });
});
