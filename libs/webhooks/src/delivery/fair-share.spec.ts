import { type DeliveryRoute, FairShare, fallbackDelayMs, WaitingRoom } from './fair-share';

const route = (endpointId: string, ownerId = 'o1'): DeliveryRoute => ({ endpointId, ownerId });

describe('FairShare', () => {
  it('limits attempts in flight per endpoint and per owner, and frees them on release', () => {
    let releases = 0;
    const fair = new FairShare({ perEndpoint: 2, perOwner: 3 }, () => releases++);
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
    expect(releases).toBe(1);
    expect(fair.inFlight).toBe(3);
    expect(fair.room(route('e1'))).toBe(1);
    expect(fair.room(route('e3'))).toBe(1);
    expect(fair.room(route('e3'), { endpoint: 0, owner: 1 })).toBe(0);
    expect(typeof fair.tryAcquire(route('e3'))).toBe('object');
  });
});

describe('WaitingRoom', () => {
  interface FakeJob {
    readonly id: string;
  }
  let now = 0;
  let woken: string[] = [];
  let failWake = false;
  const fair = (limits = { perEndpoint: 1, perOwner: 2 }) => new FairShare(limits);
  const room = (f: FairShare, concurrency = 10) =>
    new WaitingRoom<FakeJob>({
      fair: f,
      wake: (job) => {
        woken.push(job.id);
        return failWake ? Promise.reject(new Error('not delayed')) : Promise.resolve();
      },
      concurrency,
      capacity: 5,
      wakeTtlMs: 1_000,
      now: () => now,
    });
  beforeEach(() => {
    now = 0;
    woken = [];
    failWake = false;
  });

  it('wakes nothing while the slots stay taken, then the oldest parked delivery of a freed endpoint', () => {
    const f = fair();
    const r = room(f);
    const lease = f.tryAcquire(route('e1'));
    r.park('d1', { id: 'd1' }, route('e1'), 30_000);
    r.park('d2', { id: 'd2' }, route('e1'), 30_000);
    expect(r.pump()).toBe(0);
    expect(r.pump()).toBe(0);
    expect(woken).toEqual([]);

    if (typeof lease === 'string') throw new Error('expected a lease');
    lease.release();
    expect(r.pump()).toBe(1);
    expect(woken).toEqual(['d1']);
    // d1 holds the freed slot while it travels back: d2 is not woken too
    expect(r.pump()).toBe(0);
    expect(r.arrive('d1')).toEqual(route('e1'));
    expect(typeof f.tryAcquire(route('e1'))).toBe('object');
    r.leave('d1');
    expect(r.size).toBe(1);
  });

  it('re-parking keeps a delivery its place in line and counts its parks', () => {
    const f = fair();
    const r = room(f);
    f.tryAcquire(route('e1'));
    expect(r.nextPark('d1')).toBe(1);
    r.park('d1', { id: 'd1' }, route('e1'), 1_000);
    r.park('d2', { id: 'd2' }, route('e1'), 1_000);
    // d1's fallback delay ran out: it arrives, finds no room and is parked again
    r.arrive('d1');
    expect(r.nextPark('d1')).toBe(2);
    r.park('d1', { id: 'd1' }, route('e1'), 3_000);
    expect(r.nextPark('d1')).toBe(3);
    expect(r.size).toBe(2);
  });

  it('shares an owner between its endpoints in turn, and never wakes more than could start', () => {
    const f = fair({ perEndpoint: 1, perOwner: 1 });
    const r = room(f);
    for (const [id, ep] of [
      ['a1', 'ea'],
      ['a2', 'ea'],
      ['b1', 'eb'],
      ['b2', 'eb'],
    ] as const) {
      r.park(id, { id }, route(ep), 60_000);
    }
    expect(r.pump()).toBe(1);
    expect(woken).toEqual(['a1']);
    r.arrive('a1');
    const lease = f.tryAcquire(route('ea'));
    r.leave('a1');
    if (typeof lease === 'string') throw new Error('expected a lease');
    lease.release();
    expect(r.pump()).toBe(1);
    // endpoint eb's turn, though ea's a2 parked earlier
    expect(woken).toEqual(['a1', 'b1']);

    const busy = room(fair({ perEndpoint: 5, perOwner: 5 }), 2);
    for (const id of ['x1', 'x2', 'x3']) busy.park(id, { id }, route('ex'), 60_000);
    expect(busy.pump()).toBe(2);
  });

  it('a woken delivery that went to another process releases its reservation after the TTL and is forgotten', () => {
    const f = fair();
    const r = room(f);
    r.park('d1', { id: 'd1' }, route('e1'), 60_000);
    r.park('d2', { id: 'd2' }, route('e1'), 60_000);
    expect(r.pump()).toBe(1);
    now = 500;
    expect(r.pump()).toBe(0);
    now = 1_501;
    expect(r.pump()).toBe(1);
    expect(woken).toEqual(['d1', 'd2']);
    expect(r.size).toBe(1);
  });

  it('forgets a delivery that cannot be woken, one whose fallback has passed, and beyond its capacity', async () => {
    const f = fair({ perEndpoint: 9, perOwner: 9 });
    const r = room(f);
    failWake = true;
    r.park('d1', { id: 'd1' }, route('e1'), 60_000);
    r.pump();
    await Promise.resolve();
    await Promise.resolve();
    expect(r.size).toBe(0);

    failWake = false;
    r.park('d2', { id: 'd2' }, route('e1'), 1_000);
    now = 2_001;
    r.prune();
    expect(r.size).toBe(0);

    for (let i = 0; i < 7; i++) r.park(`c${i}`, { id: `c${i}` }, route('e2'), 60_000);
    expect(r.size).toBe(5);
    expect(r.nextPark('c6')).toBeUndefined();
  });
});

describe('fallbackDelayMs', () => {
  it('starts at 1 s, doubles per park up to the cap, jittered down by at most half', () => {
    expect(fallbackDelayMs(1, 30_000, () => 1)).toBe(1_000);
    expect(fallbackDelayMs(1, 30_000, () => 0)).toBe(500);
    expect(fallbackDelayMs(3, 30_000, () => 1)).toBe(4_000);
    expect(fallbackDelayMs(10, 30_000, () => 1)).toBe(30_000);
    expect(fallbackDelayMs(Number.MAX_SAFE_INTEGER, 30_000, () => 0)).toBe(15_000);
  });
});
