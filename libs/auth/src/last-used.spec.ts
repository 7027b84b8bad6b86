import { LAST_USED_EVERY_MS, LastUsedThrottle } from './last-used';

describe('LastUsedThrottle', () => {
  const setup = (write: (id: string, at: Date) => Promise<void> = () => Promise.resolve()) => {
    const writes: Array<[string, number]> = [];
    const warnings: unknown[] = [];
    const throttle = new LastUsedThrottle(
      (id, at) => {
        writes.push([id, at.getTime()]);
        return write(id, at);
      },
      { warn: (...args: unknown[]) => warnings.push(args) },
      'a key use',
    );
    return { throttle, writes, warnings };
  };

  it('writes the first use of each id at the given time, then at most once per interval', () => {
    const { throttle, writes } = setup();
    const t0 = 1_000_000;
    expect(throttle.record('k1', t0)).toBe(true);
    expect(throttle.record('k1', t0 + 1)).toBe(false);
    expect(throttle.record('k2', t0 + 2)).toBe(true);
    expect(throttle.record('k1', t0 + LAST_USED_EVERY_MS - 1)).toBe(false);
    expect(throttle.record('k1', t0 + LAST_USED_EVERY_MS)).toBe(true);
    expect(writes).toEqual([
      ['k1', t0],
      ['k2', t0 + 2],
      ['k1', t0 + LAST_USED_EVERY_MS],
    ]);
  });

  it('logs a failed write and does not throw', async () => {
    const { throttle, warnings } = setup(() => Promise.reject(new Error('db down')));
    expect(throttle.record('k1', 0)).toBe(true);
    await Promise.resolve();
    await Promise.resolve();
    expect(warnings).toHaveLength(1);
    const [fields, message] = warnings[0] as [{ err: unknown }, string];
    expect(fields.err).toBeInstanceOf(Error);
    expect(message).toBe('could not record a key use');
  });

  it('forgets every id past maxEntries, so the next use of each is written again', () => {
    const writes: string[] = [];
    const throttle = new LastUsedThrottle((id) => (writes.push(id), Promise.resolve()), { warn: () => undefined }, 'a use', {
      maxEntries: 2,
    });
    for (const id of ['a', 'b', 'c', 'd', 'a']) throttle.record(id, 0);
    expect(writes).toEqual(['a', 'b', 'c', 'd', 'a']);
    expect(throttle.record('d', 1)).toBe(false);
  });
});
