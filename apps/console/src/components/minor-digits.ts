/** Digits of a currency's minor unit: 0 for the currencies without one (JPY, KRW), else 2. */
export function minorDigits(currency: string): number {
  return ['jpy', 'krw'].includes(currency.toLowerCase()) ? 0 : 2;
}
