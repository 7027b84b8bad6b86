import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger } from 'pino';
import { currentRequestId } from '../http/request-context';

/**
 * Paths pino removes from every log line: credentials in headers, and secrets or tokens
 * anywhere in a logged object (two levels deep). Emails are masked too.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["idempotency-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'authorization',
  ...['password', 'secret', 'client_secret', 'token', 'access_token', 'api_key', 'key', 'test_key', 'live_key', 'email'].flatMap(
    (k) => [k, `*.${k}`, `*.*.${k}`],
  ),
];

export interface LoggerOptions {
  readonly service: string;
  readonly level: string;
  readonly format: 'json' | 'pretty';
}

/** The service's pino logger; `destination` defaults to stdout (tests pass a capture stream). */
export function createRootLogger(options: LoggerOptions, destination?: DestinationStream): Logger {
  const pretty = options.format === 'pretty' && destination === undefined;
  const settings = {
    level: options.level,
    base: { service: options.service },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true } } } : {}),
  };
  return destination === undefined ? pino(settings) : pino(settings, destination);
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
      this.logger[level]({ ...bindings, ...(message as Record<string, unknown>) });
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
