import { describe, expect, it } from '@jest/globals';
import { closesIn, formatMajor, typeLabel } from './format';

const NOW = Date.parse('2026-11-26T12:00:00Z');
const at = (ms: number): string => new Date(NOW + ms).toISOString();
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe('closesIn', () => {
  it('says how long until an offer closes, in its largest whole unit', () => {
    expect(closesIn(at(3 * DAY + HOUR), 'live', NOW)).toBe('in 3 days');
    expect(closesIn(at(DAY + HOUR), 'live', NOW)).toBe('in 1 day');
    expect(closesIn(at(23 * HOUR + 59 * MIN), 'live', NOW)).toBe('in 23 h');
    expect(closesIn(at(5 * MIN + 30_000), 'upcoming', NOW)).toBe('in 5 min');
    expect(closesIn(at(30_000), 'live', NOW)).toBe('in less than a minute');
  });

  it('says how long ago it closed, and just "closed" when it closed before its close time', () => {
    expect(closesIn(at(-2 * HOUR - 5 * MIN), 'closed', NOW)).toBe('closed 2 h ago');
    expect(closesIn(at(0), 'live', NOW)).toBe('closed less than a minute ago');
    expect(closesIn(at(4 * DAY), 'closed', NOW)).toBe('closed');
    expect(closesIn('not a time', 'live', NOW)).toBe('not a time');
  });
});

describe('formatMajor', () => {
  it('formats decimal major units with the currency, and null as no maximum', () => {
    expect(formatMajor(50_000, 'gbp')).toBe('50,000.00 GBP');
    expect(formatMajor(2.5, 'eur', 4)).toBe('2.50 EUR');
    expect(formatMajor(0.1234, 'eur', 4)).toBe('0.1234 EUR');
    expect(formatMajor(null, 'gbp')).toBe('No maximum');
  });

  it('labels offer types, unknown ones as they are', () => {
    expect(typeLabel('retail_offer')).toBe('Retail offer');
    expect(typeLabel('ipo')).toBe('IPO');
    expect(typeLabel('new_kind')).toBe('new_kind');
  });
});
