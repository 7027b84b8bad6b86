import { parseTimestamp } from './timestamp';

const iso = (value: string, options?: Parameters<typeof parseTimestamp>[1]): string | undefined =>
  parseTimestamp(value, options)?.toISOString();

describe('parseTimestamp', () => {
  it('reads ISO 8601 timestamps; no offset means UTC', () => {
    expect(iso('2026-11-20')).toBe('2026-11-20T00:00:00.000Z');
    expect(iso('2026-11-20T10:30')).toBe('2026-11-20T10:30:00.000Z');
    expect(iso('2026-11-20T10:30:15.123456+01:00')).toBe('2026-11-20T09:30:15.123Z');
    expect(iso('2024-02-29T23:59:59-00:30')).toBe('2024-03-01T00:29:59.000Z');
  });

  it('accepts exactly 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z', () => {
    expect(iso('1970-01-01T00:00:00Z')).toBe('1970-01-01T00:00:00.000Z');
    expect(iso('9999-12-31T23:59:59.999Z')).toBe('9999-12-31T23:59:59.999Z');
    for (const value of [
      '0000-01-01T00:00:00Z',
      '0070-01-01',
      '1969-12-31T23:59:59.999Z',
      '9999-12-31T23:59:59-00:01',
      '1970-01-01T00:30:00+01:00',
    ]) {
      expect({ value, parsed: iso(value) }).toEqual({ value, parsed: undefined });
    }
  });

  it('refuses dates and times that are not on the calendar (JS Date would roll them over)', () => {
    for (const value of [
      '2025-02-29',
      '2024-04-31',
      '2024-13-01',
      '2024-00-10',
      '2024-01-00',
      '2024-01-01T24:00Z',
      '2024-01-01T23:60Z',
      '2024-01-01T00:00:60Z',
      '2024-01-01T00:00+24:00',
      'yesterday',
      '2024-1-1',
      '',
    ]) {
      expect({ value, parsed: iso(value) }).toEqual({ value, parsed: undefined });
    }
  });

  it('reads Unix seconds only when asked, within the range', () => {
    expect(iso('1700000000')).toBeUndefined();
    expect(iso('1700000000', { unixSeconds: true })).toBe('2023-11-14T22:13:20.000Z');
    expect(iso('0', { unixSeconds: true })).toBe('1970-01-01T00:00:00.000Z');
    expect(iso('999999999999', { unixSeconds: true })).toBeUndefined();
  });

  it('requires Z or an offset when asked', () => {
    expect(iso('2026-11-20T10:30', { requireOffset: true })).toBeUndefined();
    expect(iso('2026-11-20', { requireOffset: true })).toBeUndefined();
    expect(iso('2026-11-20T10:30Z', { requireOffset: true })).toBe('2026-11-20T10:30:00.000Z');
  });
});
