import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * The instants a timestamp input may name: from the Unix epoch to the last millisecond of
 * year 9999. PostgreSQL's timestamptz (4713 BC to 294276 AD, but no year 0) and JS Date
 * (±273,790 years) both hold every one, and `toISOString()` writes each with four year
 * digits, so what is stored is echoed in the same format it was given in. Year 0 or
 * 10000 reached PostgreSQL before and was a 500.
 */
export const EARLIEST_TIMESTAMP = '1970-01-01T00:00:00Z';
export const LATEST_TIMESTAMP = '9999-12-31T23:59:59.999Z';
const EARLIEST_MS = 0;
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export interface TimestampOptions {
  /** Also accept Unix seconds (1 to 12 digits). */
  readonly unixSeconds?: boolean;
  /** Require a time with `Z` or an offset (otherwise a date alone, or a time without offset, is UTC). */
  readonly requireOffset?: boolean;
}

/** `YYYY-MM-DD`, optionally `THH:MM[:SS[.fraction]]` and `Z` / `±HH:MM`. */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** Days of `month` (1-12) in `year` (≥ 100: Date.UTC reads years 0-99 as 1900-1999). */
const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * The instant `value` names, or undefined when it is not a real calendar date and time
 * (2024-02-30, 24:00, minute 60 — JS Date would roll them over) or lies outside
 * [EARLIEST_TIMESTAMP, LATEST_TIMESTAMP]. Parsed here, not by `new Date(string)`, whose
 * reading of a time without offset depends on the server's time zone.
 */
export function parseTimestamp(value: string, options: TimestampOptions = {}): Date | undefined {
  let ms: number;
  if (options.unixSeconds && /^\d{1,12}$/.test(value)) {
    ms = Number(value) * 1000;
  } else {
    const m = ISO.exec(value);
    if (!m) return undefined;
    const [, y, mo, d, h, mi, s, fraction, offset] = m;
    if (options.requireOffset && offset === undefined) return undefined;
    const year = Number(y);
    const month = Number(mo);
    const day = Number(d);
    const hour = Number(h ?? 0);
    const minute = Number(mi ?? 0);
    const second = Number(s ?? 0);
    if (year < 1000 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
    if (hour > 23 || minute > 59 || second > 59) return undefined;
    let offsetMinutes = 0;
    if (offset !== undefined && offset !== 'Z') {
      const oh = Number(offset.slice(1, 3));
      const om = Number(offset.slice(4, 6));
      if (oh > 23 || om > 59) return undefined;
      offsetMinutes = (offset.startsWith('-') ? -1 : 1) * (oh * 60 + om);
    }
    const millis = fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
    ms = Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000;
  }
  if (!(ms >= EARLIEST_MS && ms <= LATEST_MS)) return undefined;
  return new Date(ms);
}

/** The validator's name in class-validator's metadata (the OpenAPI document reads it). */
export const IS_TIMESTAMP = 'isTimestamp';

/**
 * The one validator of every date input: an ISO 8601 timestamp (or, with `unixSeconds`,
 * Unix seconds) naming a real instant from EARLIEST_TIMESTAMP to LATEST_TIMESTAMP; anything
 * else is 400 `parameter_invalid` naming the field. Convert the value with `parseTimestamp`
 * and the same options.
 */
export function IsTimestamp(options: TimestampOptions = {}, validationOptions?: ValidationOptions): PropertyDecorator {
  const format = options.requireOffset
    ? 'an ISO 8601 timestamp with Z or an offset'
    : options.unixSeconds
      ? 'an ISO 8601 timestamp or Unix seconds'
      : 'an ISO 8601 timestamp';
  return ValidateBy(
    {
      name: IS_TIMESTAMP,
      // read by the OpenAPI document (docs/validator-schemas.ts): `format: date-time` unless Unix seconds are accepted
      constraints: [options],
      validator: {
        validate: (value: unknown) => typeof value === 'string' && parseTimestamp(value, options) !== undefined,
        defaultMessage: (args) =>
          `${args?.property ?? 'value'} must be ${format} from ${EARLIEST_TIMESTAMP} to ${LATEST_TIMESTAMP} (a real calendar date)`,
      },
    },
    validationOptions,
  );
}
