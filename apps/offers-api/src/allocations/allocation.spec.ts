import fc from 'fast-check';
import { allocate, allocateMinThenProRata, allocateProRata, type ShareRequest } from './allocation';

const req = (id: string, shares: number, submittedAt = 0): ShareRequest => ({ id, shares, submittedAt });
const total = (m: ReadonlyMap<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);

/** Unique ids, whole share requests (some of them huge), distinct-or-equal times. */
const requestsArb = fc
  .uniqueArray(
    fc.record({
      id: fc.stringMatching(/^ind_[a-z0-9]{1,6}$/),
      shares: fc.oneof(fc.integer({ min: 0, max: 1_000 }), fc.integer({ min: 0, max: 2_000_000_000 })),
      submittedAt: fc.integer({ min: 0, max: 50 }),
    }),
    { selector: (r) => r.id, maxLength: 40 },
  )
  .map((rs) => rs as ShareRequest[]);
const availableArb = fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 2_000_000_000 }));

describe('allocateProRata', () => {
  it('fills everyone in full when demand does not exceed supply', () => {
    const out = allocateProRata([req('a', 10), req('b', 20)], 30);
    expect(Object.fromEntries(out)).toEqual({ a: 10, b: 20 });
  });

  it('rounds down and gives leftovers to the largest remainders', () => {
    // quotas: a 100×10/300 = 3.33, b 200×10/300 = 6.67 → 3 + 6 = 9, leftover 1 → b
    expect(Object.fromEntries(allocateProRata([req('a', 100), req('b', 200)], 10))).toEqual({ a: 3, b: 7 });
  });

  it('breaks equal remainders by indication time, then id', () => {
    const three = [req('c', 1, 30), req('a', 1, 20), req('b', 1, 10)];
    // 2 shares for 3 equal requests: the two earliest win
    expect(Object.fromEntries(allocateProRata(three, 2))).toEqual({ a: 1, b: 1, c: 0 });
    const sameTime = [req('z', 1, 5), req('y', 1, 5), req('x', 1, 5)];
    expect(Object.fromEntries(allocateProRata(sameTime, 1))).toEqual({ x: 1, y: 0, z: 0 });
  });

  it('handles no requests and no supply', () => {
    expect(allocateProRata([], 100).size).toBe(0);
    expect(Object.fromEntries(allocateProRata([req('a', 5)], 0))).toEqual({ a: 0 });
  });

  it('rejects duplicate ids and fractional shares', () => {
    expect(() => allocateProRata([req('a', 1), req('a', 2)], 1)).toThrow(/duplicate/);
    expect(() => allocateProRata([req('a', 1.5)], 1)).toThrow(RangeError);
  });
});

describe('allocateMinThenProRata', () => {
  it('gives each the minimum first, then the rest pro rata over what is still asked', () => {
    // minimum 10: a 10, b 5 (all it asked), c 10 → 25 used; 75 left over residuals a 90, c 190
    const out = allocateMinThenProRata([req('a', 100), req('b', 5), req('c', 200)], 100, 10);
    expect(out.get('b')).toBe(5);
    expect(out.get('a')).toBe(10 + 24); // 90×75/280 = 24.1
    expect(out.get('c')).toBe(10 + 51); // 190×75/280 = 50.9 → leftover
    expect(total(out)).toBe(100);
  });

  it('shares supply pro rata over the minimums when they alone exceed it', () => {
    const out = allocateMinThenProRata([req('a', 100, 1), req('b', 100, 2), req('c', 3, 3)], 10, 5);
    // minimums 5, 5, 3 = 13 > 10 → 3.85, 3.85, 2.31 → 3, 3, 2 + leftovers by remainder then time
    expect(Object.fromEntries(out)).toEqual({ a: 4, b: 4, c: 2 });
  });
});

describe('allocation properties (fast-check)', () => {
  const policies = fc.oneof(
    fc.constant({ policy: 'pro_rata' as const }),
    fc.record({ policy: fc.constant('min_then_pro_rata' as const), minimumShares: fc.integer({ min: 0, max: 500 }) }),
  );

  it('never allocates more than available, nor more than anyone asked for, and uses supply fully', () => {
    fc.assert(
      fc.property(requestsArb, availableArb, policies, (requests, available, policy) => {
        const out = allocate(requests, { ...policy, sharesAvailable: available });
        const demand = requests.reduce((s, r) => s + r.shares, 0);
        expect(total(out)).toBeLessThanOrEqual(available);
        expect(total(out)).toBe(Math.min(available, demand));
        for (const r of requests) {
          const got = out.get(r.id);
          expect(Number.isInteger(got)).toBe(true);
          expect(got).toBeGreaterThanOrEqual(0);
          expect(got).toBeLessThanOrEqual(r.shares);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('pro rata is fair within one share of the exact quota', () => {
    fc.assert(
      fc.property(requestsArb, availableArb, (requests, available) => {
        const out = allocateProRata(requests, available);
        const demand = requests.reduce((s, r) => s + BigInt(r.shares), 0n);
        if (demand <= BigInt(available)) return;
        for (const r of requests) {
          // |got − shares × available / demand| < 1, compared exactly in integers
          const got = BigInt(out.get(r.id) ?? -1);
          const exact = BigInt(r.shares) * BigInt(available);
          const diff = got * demand - exact;
          expect(diff < demand && -diff < demand).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('an applicant who asked for more never gets fewer shares (pro rata)', () => {
    fc.assert(
      fc.property(requestsArb, availableArb, (requests, available) => {
        const out = allocateProRata(requests, available);
        for (const a of requests)
          for (const b of requests)
            if (a.shares > b.shares) expect(out.get(a.id) ?? 0).toBeGreaterThanOrEqual(out.get(b.id) ?? 0);
      }),
      { numRuns: 200 },
    );
  });

  it('min_then_pro_rata gives everyone their minimum whenever the minimums fit', () => {
    fc.assert(
      fc.property(requestsArb, availableArb, fc.integer({ min: 0, max: 500 }), (requests, available, minimum) => {
        const firsts = requests.reduce((s, r) => s + Math.min(r.shares, minimum), 0);
        fc.pre(firsts <= available);
        const out = allocateMinThenProRata(requests, available, minimum);
        for (const r of requests) expect(out.get(r.id)).toBeGreaterThanOrEqual(Math.min(r.shares, minimum));
      }),
      { numRuns: 300 },
    );
  });

  it('is deterministic: the same input, in any order, gives the same allocation', () => {
    fc.assert(
      fc.property(requestsArb, availableArb, policies, fc.nat(), (requests, available, policy, seed) => {
        const params = { ...policy, sharesAvailable: available };
        const first = Object.fromEntries(allocate(requests, params));
        const shuffled = [...requests].sort(
          (a, b) => ((a.id.charCodeAt(4) * 31 + seed) % 7) - ((b.id.charCodeAt(4) * 31 + seed) % 7),
        );
        expect(Object.fromEntries(allocate(shuffled, params))).toEqual(first);
        expect(Object.fromEntries(allocate(requests, params))).toEqual(first);
      }),
      { numRuns: 300 },
    );
  });
});
