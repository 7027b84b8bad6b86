import { TtlCache } from './ttl-cache';

describe('TtlCache', () => {
  let now: number;
  const cache = <V>(ttlMs: number, maxEntries?: number): TtlCache<string, V> =>
    new TtlCache<string, V>(ttlMs, { maxEntries, now: () => now });

  beforeEach(() => (now = 1_000_000));

  it('answers an entry until ttlMs after it was set, then forgets it', () => {
    const c = cache<string>(1_000);
    c.set('a', 'A');
    now += 999;
    expect(c.get('a')).toBe('A');
    now += 1;
    expect(c.get('a')).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('caches nothing with ttlMs <= 0', () => {
    const c = cache<string>(0);
    c.set('a', 'A');
    expect(c.get('a')).toBeUndefined();
  });

  it('getOrLoad: loads a miss once, caches a value but not a null, and a null drops the key', async () => {
    const c = cache<string>(1_000);
    let loads = 0;
    const load = (key: string): Promise<string | null> => {
      loads += 1;
      return Promise.resolve(key === 'gone' ? null : key.toUpperCase());
    };
    expect(await c.getOrLoad('a', load)).toBe('A');
    expect(await c.getOrLoad('a', load)).toBe('A');
    expect(loads).toBe(1);
    expect(await c.getOrLoad('gone', load)).toBeNull();
    expect(await c.getOrLoad('gone', load)).toBeNull();
    expect(loads).toBe(3);
    now += 1_000;
    expect(await c.getOrLoad('a', load)).toBe('A');
    expect(loads).toBe(4);
  });

  it('delete and invalidate drop entries at once', () => {
    const c = cache<{ id: string }>(1_000);
    c.set('h1', { id: 'k1' });
    c.set('h2', { id: 'k1' });
    c.set('h3', { id: 'k2' });
    c.invalidate((v) => v.id === 'k1');
    expect([c.get('h1'), c.get('h2'), c.get('h3')]).toEqual([undefined, undefined, { id: 'k2' }]);
    c.delete('h3');
    expect(c.get('h3')).toBeUndefined();
  });

  it('starts again empty when maxEntries is reached', () => {
    const c = cache<number>(1_000, 3);
    for (const k of ['a', 'b', 'c']) c.set(k, 1);
    c.set('d', 1);
    expect(c.size).toBe(1);
    expect(c.get('a')).toBeUndefined();
    expect(c.get('d')).toBe(1);
  });
});
