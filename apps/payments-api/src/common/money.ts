/** Currencies payments-api accepts (lowercase ISO 4217). Amounts are integers in minor units. */
export const SUPPORTED_CURRENCIES = ['usd', 'eur', 'gbp', 'chf', 'cad', 'aud', 'jpy', 'sek', 'nok', 'dkk'] as const;
export type Currency = (typeof SUPPORTED_CURRENCIES)[number];

/** Stripe's largest amount (8 digits of minor units); keeps every sum far inside int32. */
export const MAX_AMOUNT = 99_999_999;
