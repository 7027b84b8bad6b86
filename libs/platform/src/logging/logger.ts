import type { LoggerService } from '@nestjs/common';
import { isatty } from 'node:tty';
import pino, { type DestinationStream, type Logger } from 'pino';
import { currentRequestId } from '../http/request-context';
import { logCorrelation } from '../telemetry/log-correlation';
import { type ColorMode, prettyDestination, wantsColor } from './pretty-lines';

/**
 * Paths pino removes from every log line: credentials in headers, and secrets or tokens
 * anywhere in a logged object (two levels deep). Emails are masked too.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'headers["x-csrf-token"]',
  'req.headers["x-api-key"]',
  'req.headers["idempotency-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'authorization',
  ...['password', 'secret', 'client_secret', 'token', 'access_token', 'api_key', 'key', 'test_key', 'live_key', 'email'].flatMap(
    (k) => [k, `*.${k}`, `*.*.${k}`],
  ),
];

/**
 * Credential shapes the platform issues or accepts, scrubbed from every serialized log line
 * as a last line of defence: whatever object, message or error a line carries, a secret of
 * one of these shapes is written as `[redacted]`. (The paths above remove known fields;
 * this catches secrets that reach a log by another way, e.g. inside an error message.)
 */
export const SECRET_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b[sr]k_(?:test|live)_[A-Za-z0-9]{8,}/g, '[redacted]'],
  [/\bwhsec_[A-Za-z0-9+/=]{8,}/g, '[redacted]'],
  [/\b(?:vt|cs|cl)_[A-Za-z0-9]{20,}/g, '[redacted]'],
  [/\beyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]*){0,2}/g, '[redacted-jwt]'],
  [/\b(Bearer|Basic)(\s+|%20|\+)[A-Za-z0-9\-._~+/]{8,}=*/gi, '$1 [redacted]'],
  [/([?&](?:access_token|token|client_secret|secret|api_key|apikey|key|password)=)[^&#"\s\\]*/gi, '$1[redacted]'],
];

/** `line` with every secret-shaped substring replaced (see SECRET_PATTERNS). */
export function scrubSecrets(line: string): string {
  let out = line;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * Error fields that echo stored data: PostgreSQL's DETAIL ("Failing row contains (…)",
 * "Key (…)=(…) already exists") carries whole rows — webhook secrets, emails — and Prisma
 * copies it into `meta.driverAdapterError.cause.detail`.
 */
const ERROR_DATA_KEYS = new Set(['detail']);

function withoutErrorData(value: unknown, depth: number): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => withoutErrorData(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = ERROR_DATA_KEYS.has(k) ? '[redacted]' : withoutErrorData(v, depth + 1);
  }
  return out;
}

/** pino's error serializer, minus the fields through which a database error echoes row data. */
export function serializeError(err: unknown): unknown {
  const serialized: unknown = pino.stdSerializers.err(err as Error);
  return withoutErrorData(serialized, 0);
}

export interface LoggerOptions {
  readonly service: string;
  readonly level: string;
  readonly format: 'json' | 'pretty';
  /** Pretty format only: ANSI colour `always`, `never`, or `auto` (default: when stdout is a terminal). */
  readonly color?: ColorMode;
}

/**
 * The service's pino logger; `destination` defaults to stdout (tests pass a capture stream).
 * `format: 'pretty'` writes our own short lines (./pretty-lines.ts) to that destination; the
 * secret scrubbing of `hooks.streamWrite` runs before, on the JSON line pino serialized.
 */
export function createRootLogger(options: LoggerOptions, destination?: DestinationStream): Logger {
  const target = options.format === 'pretty' ? prettyTarget(options, destination) : destination;
  const settings = {
    level: options.level,
    base: { service: options.service },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError },
    hooks: { streamWrite: scrubSecrets },
    mixin: logCorrelation,
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return target === undefined ? pino(settings) : pino(settings, target);
}

function prettyTarget(options: LoggerOptions, destination: DestinationStream | undefined): DestinationStream {
  const sink = destination ?? pino.destination({ dest: 1, sync: true });
  return prettyDestination(sink, wantsColor(options.color ?? 'auto', destination === undefined && isatty(1)));
}

/** Nest's logger interface over pino; adds the current request id to every line. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  private write(level: 'error' | 'warn' | 'info' | 'debug' | 'trace', message: unknown, params: unknown[]): void {
    const context = typeof params.at(-1) === 'string' ? (params.at(-1) as string) : undefined;
    const reqId = currentRequestId();
    const bindings: Record<string, unknown> = {};
    if (context !== undefined) bindings['context'] = context;
    if (reqId !== undefined) bindings['reqId'] = reqId;
    if (message instanceof Error) {
      this.logger[level]({ ...bindings, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      // Nest's Logger passes `log(fields, text)` as (fields, text, context): keep the text
      const text = context !== undefined && params.length >= 2 && typeof params[0] === 'string' ? params[0] : undefined;
      const fields = { ...bindings, ...(message as Record<string, unknown>) };
      if (text === undefined) this.logger[level](fields);
      else this.logger[level](fields, text);
    } else {
      const stack = level === 'error' && typeof params[0] === 'string' && params.length > 1 ? params[0] : undefined;
      this.logger[level]({ ...bindings, ...(stack === undefined ? {} : { stack }) }, String(message));
    }
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
}
