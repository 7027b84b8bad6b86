/** The currencies offers are priced in; indications and allocations carry the offer's. */
export const CURRENCIES = ['gbp', 'eur'] as const;
export type Currency = (typeof CURRENCIES)[number];

/**
 * Exact money arithmetic for offers, indications and allocations. Prices are decimals in
 * major units with at most four decimal places (offers.price_per_share is DECIMAL(18,4));
 * we compute in integer "ticks" of 1/10,000 of a major unit with bigint so no float ever
 * touches money.
 */
export const TICKS_PER_MAJOR = 10_000n;
/** One minor unit (a penny, a cent) in ticks. */
export const TICKS_PER_MINOR = 100n;

/** "250.5" / "0.0125" / "3" → ticks. Throws on anything that is not a plain non-negative decimal of ≤ 4 places. */
export function decimalToTicks(value: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,4})0*)?$/.exec(value.trim());
  if (!match) throw new Error(`not a decimal with at most 4 places: ${value}`);
  const [, whole = '0', fraction = ''] = match;
  return BigInt(whole) * TICKS_PER_MAJOR + BigInt(fraction.padEnd(4, '0'));
}

/** ticks → the shortest decimal string in major units ("250", "250.5", "0.0125"). */
export function ticksToDecimal(ticks: bigint): string {
  const negative = ticks < 0n;
  const abs = negative ? -ticks : ticks;
  const whole = abs / TICKS_PER_MAJOR;
  const fraction = (abs % TICKS_PER_MAJOR).toString().padStart(4, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** Whole shares an amount in minor units buys at a price: rounded down. */
export function sharesForAmount(amountMinor: number, priceTicks: bigint): number {
  if (priceTicks <= 0n) throw new Error('price must be positive');
  return Number((BigInt(amountMinor) * TICKS_PER_MINOR) / priceTicks);
}

/** The minimum investment (major units) as minor units; the contract: amount ≥ minimum_investment × 100. */
export function minimumInMinor(minimumInvestment: string): number {
  const ticks = decimalToTicks(minimumInvestment);
  // minimum_investment has at most 2 places (DECIMAL(18,2)), so this division is exact.
  return Number((ticks + TICKS_PER_MINOR - 1n) / TICKS_PER_MINOR);
}

/** The maximum investment (major units, at most 2 places) as minor units: amount ≤ maximum_investment × 100. */
export function maximumInMinor(maximumInvestment: string): number {
  return Number(decimalToTicks(maximumInvestment) / TICKS_PER_MINOR);
}

export interface AllocationMoney {
  /** shares × price, major units, exact decimal string */
  readonly amountAllocated: string;
  /**
   * requested − allocated, minor units. When the price has sub-minor precision the
   * allocated value is rounded down to a whole minor unit first, so the refund rounds in
   * the investor's favour and is never negative.
   */
  readonly amountRefunded: number;
  /** shares_allocated / shares_requested, rounded down to 6 places; "1" when filled in full (or nothing was asked) */
  readonly scalingFactor: string;
}

export function allocationMoney(
  amountRequestedMinor: number,
  sharesRequested: number,
  sharesAllocated: number,
  priceTicks: bigint,
): AllocationMoney {
  const allocatedTicks = BigInt(sharesAllocated) * priceTicks;
  const allocatedMinor = allocatedTicks / TICKS_PER_MINOR;
  const scaled = sharesRequested === 0 ? 1_000_000n : (BigInt(sharesAllocated) * 1_000_000n) / BigInt(sharesRequested);
  return {
    amountAllocated: ticksToDecimal(allocatedTicks),
    amountRefunded: amountRequestedMinor - Number(allocatedMinor),
    scalingFactor: ticksToDecimalPlaces(scaled, 6),
  };
}

function ticksToDecimalPlaces(value: bigint, places: number): string {
  const unit = 10n ** BigInt(places);
  const fraction = (value % unit).toString().padStart(places, '0').replace(/0+$/, '');
  return `${value / unit}${fraction === '' ? '' : `.${fraction}`}`;
}
