import { randomBytes } from 'node:crypto';
import { testRedisUrl } from '../../../../test/support/redis';
import { waitFor } from '../../../../test/support/wait';
import { RedisService } from '../queue/redis.service';
import { FixedWindowCounter } from './fixed-window-counter';
import { type BudgetedHit, WindowBudgets } from './window-budgets';

/**
 * Two limiter instances (each with its own Redis connection, as two service instances
 * have) sharing the real Redis of the machine, under keys of their own.
 */
describe('WindowBudgets (two instances, real Redis)', () => {
  const prefix = `test-budget-${randomBytes(4).toString('hex')}`;
  let redisA: RedisService;
  let redisB: RedisService;
  let a: WindowBudgets;
  let b: WindowBudgets;
  let evals: number;

  beforeAll(async () => {
    redisA = new RedisService({ mode: 'single', url: testRedisUrl() });
    redisB = new RedisService({ mode: 'single', url: testRedisUrl() });
    await Promise.all(
      [redisA, redisB].map((r) =>
        r.commands.status === 'ready' ? Promise.resolve() : new Promise((resolve) => r.commands.once('ready', resolve)),
      ),
    );
    // Counts the round trips to Redis (the budgets' only command is eval).
    for (const r of [redisA, redisB]) {
      const original = r.commands.eval.bind(r.commands) as (...args: unknown[]) => Promise<unknown>;
      (r.commands as unknown as { eval: (...args: unknown[]) => Promise<unknown> }).eval = (...args: unknown[]) => {
        evals++;
        return original(...args);
      };
    }
  });
  beforeEach(() => {
    evals = 0;
    a = new WindowBudgets(redisA, { maxBurst: 10, share: 4 });
    b = new WindowBudgets(redisB, { maxBurst: 10, share: 4 });
  });
  afterAll(async () => {
    const keys = await redisA.commands.keys(`${prefix}:*`);
    if (keys.length > 0) await redisA.commands.del(...keys);
    redisA.onApplicationShutdown();
    redisB.onApplicationShutdown();
  });

  const key = (name: string): string => `${prefix}:${name}`;
  const allowed = (hits: ReadonlyArray<BudgetedHit | undefined>): number => hits.filter((h) => h?.allowed).length;

  it('one instance: exactly the limit is admitted, with the counts a Redis round trip per request would give, in far fewer round trips', async () => {
    const hits: Array<BudgetedHit | undefined> = [];
    for (let i = 0; i < 130; i++) hits.push(await a.hit(key('one'), 100, 60));
    expect(allowed(hits)).toBe(100);
    expect(hits.slice(0, 100).map((h) => h?.count)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(hits.slice(100).every((h) => h?.allowed === false && h.count > 100)).toBe(true);
    expect(hits.every((h) => h !== undefined && h.resetSeconds >= 1 && h.resetSeconds <= 60)).toBe(true);
    // 100 admitted through grants of at most 10, shrinking near the limit (a quarter of what is left), plus one per refusal.
    const admittedCalls = evals - 30;
    expect(admittedCalls).toBeLessThan(40);
    expect(await redisA.commands.get(key('one'))).toBe(String(100 + 30));
  });

  it('the same key and count as FixedWindowCounter: a window it started is spent from, and the other way round', async () => {
    const counter = new FixedWindowCounter(redisA);
    expect((await counter.hit(key('mixed'), 60))?.count).toBe(1);
    const first = await a.hit(key('mixed'), 20, 60);
    // a grant of floor(19 / 4) = 4: the window holds 1 + 4, this request is the second
    expect(first).toMatchObject({ allowed: true, count: 2 });
    expect(await redisA.commands.get(key('mixed'))).toBe('5');
    expect((await counter.hit(key('mixed'), 60))?.count).toBe(6);
  });

  it('two instances sharing the limit never admit more than it together, whatever the interleaving', async () => {
    for (const [round, limit] of [
      [0, 7],
      [1, 50],
      [2, 333],
    ] as const) {
      const k = key(`shared-${round}`);
      const results: Array<BudgetedHit | undefined> = [];
      // Concurrent bursts from both instances, unevenly split, well past the limit.
      for (let wave = 0; wave < 12; wave++) {
        const burst = Math.ceil(limit / 8);
        const calls: Array<Promise<BudgetedHit | undefined>> = [];
        for (let i = 0; i < burst; i++) calls.push(a.hit(k, limit, 60));
        for (let i = 0; i < Math.ceil(burst / 3); i++) calls.push(b.hit(k, limit, 60));
        results.push(...(await Promise.all(calls)));
      }
      const admitted = allowed(results);
      // The bound: no over-admission at all (within the "at most one local burst per instance").
      expect(admitted).toBeLessThanOrEqual(limit);
      // The other way: what is missing is what the instances still hold, at most one burst each.
      expect(admitted + a.held(k) + b.held(k)).toBe(limit);
      expect(a.held(k)).toBeLessThanOrEqual(10);
      expect(b.held(k)).toBeLessThanOrEqual(10);
    }
  });

  it('a slice held by the other instance makes a 429 come early by at most that slice, which the window end returns', async () => {
    const k = key('held');
    // b takes a slice (a quarter of 40 = 10) and spends one request of it.
    expect(await b.hit(k, 40, 1)).toMatchObject({ allowed: true, count: 1 });
    expect(b.held(k)).toBe(9);
    const fromA: Array<BudgetedHit | undefined> = [];
    for (let i = 0; i < 40; i++) fromA.push(await a.hit(k, 40, 1));
    // a gets the rest of the limit, 30, then is refused while b still holds 9.
    expect(allowed(fromA)).toBe(30);
    expect(fromA[30]).toMatchObject({ allowed: false, resetSeconds: 1 });
    // b still admits from its slice until the window ends
    expect(await b.hit(k, 40, 1)).toMatchObject({ allowed: true });
    // After the window (1 s), both start afresh: the old slice is not spent in the new window.
    // Its end (at the latest) is when b stops holding the slice: waited for, not slept through.
    await waitFor('the window to end', () => b.held(k) === 0, { timeoutMs: 5_000, everyMs: 20 });
    expect(await b.hit(k, 40, 1)).toMatchObject({ allowed: true, count: 1 });
    expect(await a.hit(k, 40, 1)).toMatchObject({ allowed: true });
  });

  it('concurrent requests of one key on one instance share one claim', async () => {
    const k = key('coalesced');
    const hits = await Promise.all(Array.from({ length: 10 }, () => a.hit(k, 1000, 60)));
    expect(allowed(hits)).toBe(10);
    expect(evals).toBe(1);
    expect(hits.map((h) => h?.count).sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('a changed limit (a tier change) drops the old slice', async () => {
    const k = key('tier');
    expect(await a.hit(k, 1000, 60)).toMatchObject({ allowed: true, count: 1 });
    expect(evals).toBe(1);
    expect(await a.hit(k, 5, 60)).toMatchObject({ allowed: false });
    expect(evals).toBe(2);
  });

  it('drops its slices when the connection to Redis comes back (a new primary has none of the old windows)', async () => {
    const k = key('reconnect');
    expect(await a.hit(k, 1000, 60)).toMatchObject({ allowed: true, count: 1 });
    expect(a.held(k)).toBe(9);
    // What a failover to a primary without the window looks like to this instance.
    await redisB.commands.del(k);
    const back = new Promise((resolve) => redisA.commands.once('ready', resolve));
    redisA.commands.disconnect(true);
    await back;
    expect(a.held(k)).toBe(0);
    expect(await a.hit(k, 1000, 60)).toMatchObject({ allowed: true, count: 1 });
    expect(await redisA.commands.get(k)).toBe('10');
  });

  it('fails open without Redis', async () => {
    const down = new RedisService({ mode: 'single', url: 'redis://127.0.0.1:1' });
    try {
      const budgets = new WindowBudgets(down);
      expect(await budgets.hit(key('down'), 10, 60)).toBeUndefined();
    } finally {
      down.onApplicationShutdown();
    }
  });
});
