/** Formatting helpers of the partner dashboard. */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "3 days", "2 h", "5 min", "less than a minute": a duration in its largest whole unit. */
function span(ms: number): string {
  if (ms >= 2 * DAY) return `${Math.floor(ms / DAY)} days`;
  if (ms >= DAY) return '1 day';
  if (ms >= HOUR) return `${Math.floor(ms / HOUR)} h`;
  if (ms >= MINUTE) return `${Math.floor(ms / MINUTE)} min`;
  return 'less than a minute';
}

/**
 * When an offer closes, relative to `now`: "in 3 days", or "closed 2 h ago" (just "closed"
 * when the offer was closed before its close time).
 */
export function closesIn(closesAt: string, status: string, now: number = Date.now()): string {
  const at = Date.parse(closesAt);
  if (Number.isNaN(at)) return closesAt;
  const diff = at - now;
  if (diff > 0) return status === 'closed' ? 'closed' : `in ${span(diff)}`;
  return `closed ${span(-diff)} ago`;
}

/** A decimal amount in major units (as the offers API sends prices and investment limits). */
export function formatMajor(value: number | null, currency: string, maximumFractionDigits = 2): string {
  if (value === null) return 'No maximum';
  const digits = value.toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits });
  return `${digits} ${currency.toUpperCase()}`;
}

export const TYPE_LABELS: Record<string, string> = { ipo: 'IPO', placing: 'Placing', retail_offer: 'Retail offer' };

export const typeLabel = (type: string): string => TYPE_LABELS[type] ?? type;
