import { ThrottledWarning } from './throttled-warning';

describe('ThrottledWarning', () => {
  it('writes the first warning of each key, then at most one per interval', () => {
    const lines: string[] = [];
    let now = 1_000;
    const warn = new ThrottledWarning({ warn: (m: string) => lines.push(m) }, 10_000, () => now);
    expect(warn.warn('a1', 'a')).toBe(true);
    expect(warn.warn('a2', 'a')).toBe(false);
    expect(warn.warn('b1', 'b')).toBe(true);
    now += 9_999;
    expect(warn.warn('a3', 'a')).toBe(false);
    now += 1;
    expect(warn.warn('a4', 'a')).toBe(true);
    expect(lines).toEqual(['a1', 'b1', 'a4']);
  });
});
