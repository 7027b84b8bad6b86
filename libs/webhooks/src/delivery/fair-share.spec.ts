import { jest } from '@jest/globals';
import { type DeliveryRoute, FairShare, fallbackDelayMs } from './fair-share';

const route = (endpointId: string, ownerId = 'o1'): DeliveryRoute => ({ endpointId, ownerId });

describe('FairShare', () => {
  it('limits attempts in flight per endpoint and per owner, and frees them on release', () => {
    const released: DeliveryRoute[] = [];
    const fair = new FairShare({ perEndpoint: 2, perOwner: 3 }, (r) => released.push(r));
    const a1 = fair.tryAcquire(route('e1'));
    const a2 = fair.tryAcquire(route('e1'));
    expect(fair.tryAcquire(route('e1'))).toBe('endpoint');
    const b1 = fair.tryAcquire(route('e2'));
    expect(fair.tryAcquire(route('e3'))).toBe('owner');
    // another owner is not affected
    expect(typeof fair.tryAcquire(route('e9', 'o2'))).toBe('object');
    expect(fair.inFlight).toBe(4);
    expect(fair.room(route('e3'))).toBe(0);

    if (typeof a1 === 'string' || typeof a2 === 'string' || typeof b1 === 'string') throw new Error('expected leases');
    a1.release();
    a1.release(); // idempotent
    expect(released).toEqual([route('e1')]);
    expect(fair.inFlight).toBe(3);
    expect(fair.room(route('e1'))).toBe(1);
    expect(fair.room(route('e3'))).toBe(1);
    expect(typeof fair.tryAcquire(route('e3'))).toBe('object');
  });
});

describe('FairShare.acquire', () => {
  let now = 0;
  beforeEach(() => {
    jest.useFakeTimers();
    now = 0;
  });
  afterEach(() => jest.useRealTimers());
  const lease = (l: unknown): { release(): void } => {
    if (typeof l !== 'object' || l === null) throw new Error(`expected a lease, got ${String(l)}`);
    return l as { release(): void };
  };

  it('behind young attempts, waits in the process for the next free slot instead of parking', async () => {
    const wakes: DeliveryRoute[] = [];
    const fair = new FairShare(
      { perEndpoint: 1, perOwner: 5 },
      (r) => wakes.push(r),
      () => now,
    );
    const first = lease(fair.tryAcquire(route('e1')));
    now = 100;
    const waiting = fair.acquire(route('e1'), 250);
    expect(fair.waiting).toBe(1);
    first.release();
    const second = lease(await waiting);
    // the slot went to the local waiter, and one parked delivery is woken to wait next
    expect(wakes).toEqual([route('e1')]);
    expect(fair.inFlightOf(route('e1'))).toEqual({ endpoint: 1, owner: 1 });
    second.release();
    expect(wakes).toEqual([route('e1'), route('e1')]);
  });

  it('behind an attempt older than the wait (a slow receiver), or after the wait, says which limit is reached', async () => {
    const fair = new FairShare(
      { perEndpoint: 1, perOwner: 1 },
      () => undefined,
      () => now,
    );
    fair.tryAcquire(route('e1'));
    now = 300;
    await expect(fair.acquire(route('e1'), 250)).resolves.toBe('endpoint');
    await expect(fair.acquire(route('e2'), 250)).resolves.toBe('owner');

    // at most the limit waits here; the rest of a burst is parked at once
    now = 0;
    const burst = new FairShare(
      { perEndpoint: 2, perOwner: 9 },
      () => undefined,
      () => now,
    );
    burst.tryAcquire(route('e1'));
    burst.tryAcquire(route('e1'));
    void burst.acquire(route('e1'), 250);
    void burst.acquire(route('e1'), 250);
    await expect(burst.acquire(route('e1'), 250)).resolves.toBe('endpoint');
    expect(burst.waiting).toBe(2);
    jest.advanceTimersByTime(250);

    now = 0;
    const young = new FairShare(
      { perEndpoint: 1, perOwner: 1 },
      () => undefined,
      () => now,
    );
    young.tryAcquire(route('e1'));
    const waiting = young.acquire(route('e1'), 250);
    jest.advanceTimersByTime(250);
    await expect(waiting).resolves.toBe('endpoint');
    expect(young.waiting).toBe(0);
  });
});

describe('fallbackDelayMs', () => {
  it('is the lock duration jittered down by at most half', () => {
    expect(fallbackDelayMs(30_000, () => 1)).toBe(30_000);
    expect(fallbackDelayMs(30_000, () => 0)).toBe(15_000);
  });
});
