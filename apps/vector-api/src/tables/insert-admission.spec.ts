import { ByteBudget } from './insert-admission';

describe('ByteBudget', () => {
  it('admits within its capacity, first come first served, and never holds more (but one larger request alone)', async () => {
    const budget = new ByteBudget(100);
    const order: string[] = [];
    const a = await budget.acquire(60);
    const b = budget.acquire(60).then((release) => (order.push('b'), release));
    const c = budget.acquire(30).then((release) => (order.push('c'), release)); // fits now, but waits behind b
    await Promise.resolve();
    expect(budget.inFlight).toBe(60);
    expect(budget.queued).toBe(2);
    a();
    const releaseB = await b;
    const releaseC = await c;
    expect(order).toEqual(['b', 'c']);
    expect(budget.inFlight).toBe(90);
    const huge = budget.acquire(500).then((release) => (order.push('huge'), release));
    releaseB();
    releaseB(); // twice gives back once
    expect(budget.inFlight).toBe(30);
    releaseC();
    (await huge)();
    expect(order).toEqual(['b', 'c', 'huge']);
    expect(budget.inFlight).toBe(0);
    expect(budget.maxInFlight).toBe(500); // alone: more than the capacity only when nothing else held any
  });
});
