import { describe, expect, it } from '@jest/globals';
import { compactMoney, moneyInput, parseMoney } from './money';

describe('payments console money fields', () => {
  it('parses amounts on their digits into minor units', () => {
    expect(parseMoney('12.34', 'gbp')).toEqual({ minor: 1234 });
    expect(parseMoney(' 1,000.5 ', 'eur')).toEqual({ minor: 100050 });
    expect(parseMoney('20', 'usd')).toEqual({ minor: 2000 });
    expect(parseMoney('0.07', 'usd')).toEqual({ minor: 7 });
    expect(parseMoney('500', 'jpy')).toEqual({ minor: 500 });
  });

  it('refuses what is not an amount of the currency, naming the form it expects', () => {
    expect(parseMoney('1.234', 'gbp')).toEqual({ error: 'Enter an amount like 12.34 (GBP).' });
    expect(parseMoney('-1', 'gbp')).toHaveProperty('error');
    expect(parseMoney('abc', 'gbp')).toHaveProperty('error');
    expect(parseMoney('0.00', 'gbp')).toEqual({ error: 'Enter an amount greater than zero.' });
    expect(parseMoney('5.5', 'jpy')).toEqual({ error: 'Enter a whole amount (JPY has no minor units).' });
  });

  it('writes minor units back as a field value, and compactly for a chart', () => {
    expect(moneyInput(1500, 'gbp')).toBe('15.00');
    expect(moneyInput(7, 'gbp')).toBe('0.07');
    expect(moneyInput(500, 'jpy')).toBe('500');
    expect(compactMoney(4200, 'gbp')).toBe('42.00');
    expect(compactMoney(1_234_500, 'gbp')).toBe('12.3k');
    expect(compactMoney(450_000_000, 'gbp')).toBe('4.5M');
  });
});
