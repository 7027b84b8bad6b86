import { allocationMoney, decimalToTicks, minimumInMinor, sharesForAmount, ticksToDecimal } from './money';

describe('offer money', () => {
  it('parses and prints decimals of up to four places exactly', () => {
    expect(decimalToTicks('250')).toBe(2_500_000n);
    expect(decimalToTicks('250.50')).toBe(2_505_000n);
    expect(decimalToTicks('0.0125')).toBe(125n);
    expect(decimalToTicks('1.50000')).toBe(15_000n);
    expect(() => decimalToTicks('1.23456')).toThrow();
    expect(() => decimalToTicks('-1')).toThrow();
    expect(ticksToDecimal(2_505_000n)).toBe('250.5');
    expect(ticksToDecimal(125n)).toBe('0.0125');
    expect(ticksToDecimal(0n)).toBe('0');
  });

  it('buys whole shares, rounded down', () => {
    expect(sharesForAmount(100_000, decimalToTicks('2.50'))).toBe(400); // £1,000 at £2.50
    expect(sharesForAmount(100_001, decimalToTicks('2.50'))).toBe(400);
    expect(sharesForAmount(99, decimalToTicks('1'))).toBe(0);
  });

  it('states the minimum investment in minor units', () => {
    expect(minimumInMinor('250')).toBe(25_000);
    expect(minimumInMinor('0.5')).toBe(50);
  });

  it('computes allocated amount, refund and scaling factor', () => {
    expect(allocationMoney(100_000, 400, 400, decimalToTicks('2.5'))).toEqual({
      amountAllocated: '1000',
      amountRefunded: 0,
      scalingFactor: '1',
    });
    expect(allocationMoney(100_050, 400, 100, decimalToTicks('2.5'))).toEqual({
      amountAllocated: '250',
      amountRefunded: 75_050,
      scalingFactor: '0.25',
    });
    // sub-penny price: 3 × 0.0125 = 0.0375 → 3 minor units charged (rounded down), refund 97
    expect(allocationMoney(100, 80, 300 / 100, decimalToTicks('0.0125'))).toEqual({
      amountAllocated: '0.0375',
      amountRefunded: 97,
      scalingFactor: '0.0375',
    });
    expect(allocationMoney(1000, 3, 1, decimalToTicks('1')).scalingFactor).toBe('0.333333');
  });
});
