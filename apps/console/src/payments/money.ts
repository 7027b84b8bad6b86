import { minorDigits } from '../components/minor-digits';

/**
 * "12.34" (or "12") in `currency` → 1234 minor units, parsed on the digits (no float), or an
 * error message for the field. Limits (at most what is refundable…) are the API's to check.
 */
export function parseMoney(text: string, currency: string): { minor: number } | { error: string } {
  const digits = minorDigits(currency);
  const value = text.trim().replace(/,/g, '');
  const pattern = digits ? /^(\d{1,9})(?:\.(\d{1,2}))?$/ : /^(\d{1,9})$/;
  const match = pattern.exec(value);
  if (!match) {
    return {
      error: digits
        ? `Enter an amount like 12.34 (${currency.toUpperCase()}).`
        : `Enter a whole amount (${currency.toUpperCase()} has no minor units).`,
    };
  }
  const whole = Number(match[1]);
  const fraction = digits ? Number((match[2] ?? '').padEnd(digits, '0')) : 0;
  const minor = whole * 10 ** digits + fraction;
  if (minor < 1) return { error: 'Enter an amount greater than zero.' };
  return { minor };
}

/** 1234 → "12.34" (the value for an amount field). */
export function moneyInput(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  if (!digits) return String(minor);
  const abs = String(minor).padStart(digits + 1, '0');
  return `${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
}

/**
 * A short amount for a chart's axis and bars (the currency is in the chart's title): exact
 * under 1,000, then "12.3k" / "4.5M", so the axis labels fit.
 */
export function compactMoney(minor: number, currency: string): string {
  const major = minor / 10 ** minorDigits(currency);
  if (Math.abs(major) < 1000) return moneyInput(Math.round(minor), currency);
  if (Math.abs(major) < 1_000_000) return `${(major / 1000).toFixed(1)}k`;
  return `${(major / 1_000_000).toFixed(1)}M`;
}
