import { GateRefused, VerificationGate } from './verification-gate';

interface Held {
  readonly done: Promise<unknown>;
  finish(): void;
}

/** Starts a verification on `gate` that runs until `finish()`; `started` says whether its work began. */
function hold(gate: VerificationGate, address: string, started: string[], label = address): Held {
  let finish = (): void => undefined;
  const gateOpen = new Promise<void>((resolve) => (finish = resolve));
  const done = gate
    .run(address, async () => {
      started.push(label);
      await gateOpen;
    })
    .catch((err: unknown) => err);
  return { done, finish: () => finish() };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('VerificationGate (bounded, per-address fair secret verification)', () => {
  it('runs at most `concurrency` at once and one address at most half of them', async () => {
    const gate = new VerificationGate({ concurrency: 4, queue: 10, timeoutMs: 10_000, perAddress: 10 });
    const started: string[] = [];
    const a = [1, 2, 3, 4].map((i) => hold(gate, 'A', started, `A${i}`));
    await tick();
    expect(started).toEqual(['A1', 'A2']); // half of 4
    const b = hold(gate, 'B', started, 'B1');
    await tick();
    expect(started).toEqual(['A1', 'A2', 'B1']); // another address finds a free slot at once
    expect(gate.load).toEqual({ running: 3, waiting: 2 });
    a[0]?.finish();
    await tick();
    expect(started).toEqual(['A1', 'A2', 'B1', 'A3']);
    for (const h of [...a, b]) h.finish();
    await Promise.all([...a, b].map((h) => h.done));
    expect(started).toHaveLength(5);
    expect(gate.load).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses an address over its places at once, and others once the queue is full', async () => {
    const gate = new VerificationGate({ concurrency: 2, queue: 2, timeoutMs: 10_000, perAddress: 2 });
    const started: string[] = [];
    const held = [hold(gate, 'A', started), hold(gate, 'A', started)]; // one runs (its share of 2), one waits
    const busy = await gate.run('A', () => Promise.resolve('ran')).catch((err: unknown) => err);
    expect(busy).toEqual(new GateRefused('address_busy'));
    held.push(hold(gate, 'B', started), hold(gate, 'C', started)); // B runs, C waits: the queue holds 2
    held.push(hold(gate, 'D', started)); // refused: queue full
    await tick();
    expect(started).toEqual(['A', 'B']);
    const full = await gate.run('E', () => Promise.resolve('ran')).catch((err: unknown) => err);
    expect(full).toEqual(new GateRefused('queue_full'));
    for (const h of held) h.finish();
    const results = await Promise.all(held.map((h) => h.done));
    expect(results.filter((r) => r instanceof GateRefused)).toEqual([new GateRefused('queue_full')]);
  });

  it('gives up on a wait after timeoutMs without running the work', async () => {
    const gate = new VerificationGate({ concurrency: 1, queue: 5, timeoutMs: 30, perAddress: 5 });
    const started: string[] = [];
    const first = hold(gate, 'A', started);
    let ran = false;
    const waited = await gate
      .run('B', () => {
        ran = true;
        return Promise.resolve();
      })
      .catch((err: unknown) => err);
    expect(waited).toEqual(new GateRefused('timeout'));
    expect(ran).toBe(false);
    expect(gate.load).toEqual({ running: 1, waiting: 0 });
    first.finish();
    await first.done;
    expect(await gate.run('B', () => Promise.resolve('ran'))).toBe('ran'); // its place was given back
  });

  it('releases the slot when the work throws', async () => {
    const gate = new VerificationGate({ concurrency: 1, queue: 0, timeoutMs: 10, perAddress: 1 });
    await expect(gate.run('A', () => Promise.reject(new Error('scrypt failed')))).rejects.toThrow('scrypt failed');
    expect(await gate.run('A', () => Promise.resolve(1))).toBe(1);
  });
});
