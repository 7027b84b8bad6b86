/**
 * LOG_FORMAT=pretty: each JSON log line as one short line a person reads in a terminal
 * (docs/operations.md, "Logs"). Our own formatter, not pino-pretty: it must work in a
 * production install without dev dependencies, so it imports only node: modules and pino's
 * types. It receives the line pino already serialized, after the secret scrubbing of
 * `hooks.streamWrite`, so what it prints is what JSON would have carried, shortened.
 *
 *   11:02:03 orders-api    POST /v2/orders 201 3.1 ms  req_2bfcd270
 *   11:02:04 shipping-api  WARN  webhook delivery failed after its last retry  500
 */
import type { DestinationStream } from 'pino';

/** A parsed pino line; every field may be missing (the formatter never trusts its input). */
export type LogLine = Readonly<Record<string, unknown>>;

/** How a line takes part in the pretty format. */
export type LineKind =
  /** Fastify's `incoming request`: dropped, its method and URL go into the completion line */
  | 'request-start'
  /** Fastify's `request completed`: the one line of a request */
  | 'request'
  /** the service's `<name> listening on …` line */
  | 'startup'
  /** Nest's route-mapping and module-init lines, Fastify's own `Server listening at`: dropped */
  | 'boot-noise'
  | 'other';

/** Nest contexts whose info lines list routes and modules at boot (hundreds of lines). */
const BOOT_CONTEXTS = new Set(['RoutesResolver', 'RouterExplorer', 'InstanceLoader', 'NestFactory', 'NestApplication']);

const LEVEL_WARN = 40;
const LEVEL_ERROR = 50;

export function lineKind(line: LogLine): LineKind {
  const msg = typeof line['msg'] === 'string' ? line['msg'] : '';
  const level = numberOf(line['level']) ?? 30;
  if (msg === 'incoming request' && isObject(line['req'])) return 'request-start';
  if (msg === 'request completed' && isObject(line['res'])) return 'request';
  if (level < LEVEL_WARN) {
    if (typeof line['context'] === 'string' && BOOT_CONTEXTS.has(line['context'])) return 'boot-noise';
    if (msg.startsWith('Server listening at ')) return 'boot-noise';
    if (typeof line['port'] === 'number' && / listening on /.test(msg)) return 'startup';
  }
  return 'other';
}

/** The method and URL of a request, remembered from its `incoming request` line. */
export interface RequestStart {
  readonly method: string;
  readonly url: string;
}

export interface FormatOptions {
  readonly color: boolean;
  /** For a `request` line: its method and URL (from the `incoming request` line). */
  readonly request?: RequestStart;
}

// ANSI SGR: only written when FormatOptions.color is true
const SGR = {
  bold: ['\u001b[1m', '\u001b[22m'],
  dim: ['\u001b[2m', '\u001b[22m'],
  red: ['\u001b[31m', '\u001b[39m'],
  green: ['\u001b[32m', '\u001b[39m'],
  yellow: ['\u001b[33m', '\u001b[39m'],
  blue: ['\u001b[34m', '\u001b[39m'],
  magenta: ['\u001b[35m', '\u001b[39m'],
  cyan: ['\u001b[36m', '\u001b[39m'],
} as const;
type Style = keyof typeof SGR;

function paint(color: boolean, text: string, ...styles: Style[]): string {
  if (!color || text === '') return text;
  return styles.reduce((out, s) => `${SGR[s][0]}${out}${SGR[s][1]}`, text);
}

const SERVICE_COLORS: readonly Style[] = ['cyan', 'magenta', 'blue', 'green', 'yellow'];

/** The same colour for a service name on every line (a small stable hash). */
function serviceStyle(name: string): Style {
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return SERVICE_COLORS[h % SERVICE_COLORS.length] ?? 'cyan';
}

/** `HH:MM:SS` in the terminal's local time; the JSON line keeps the full ISO time. */
export function clockTime(time: unknown): string {
  const date = typeof time === 'string' || typeof time === 'number' ? new Date(time) : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) return '--:--:--';
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

/** `req_2bfcd2705e022ccde051bb14` → `req_2bfcd270`: enough to find the JSON line again. */
export function shortRequestId(reqId: unknown): string {
  if (typeof reqId !== 'string') return '';
  const m = /^([a-z]+_)([0-9A-Za-z]{8})[0-9A-Za-z]+$/.exec(reqId);
  return m ? `${m[1]}${m[2]}` : reqId.slice(0, 16);
}

const MAX_URL = 100;
const STACK_FRAMES = 2;
/** Fields worth a few characters on a short line, when the line has them. */
const SHOWN_FIELDS = ['statusCode', 'reason', 'error'] as const;

/**
 * One JSON log line as text (without the newline), or `undefined` for a line the pretty
 * format drops (`request-start`, `boot-noise`). Errors take more than one line: the message,
 * then the error's first stack frames.
 */
export function formatLine(line: LogLine, options: FormatOptions): string | undefined {
  const kind = lineKind(line);
  if (kind === 'request-start' || kind === 'boot-noise') return undefined;
  const { color } = options;
  const level = numberOf(line['level']) ?? 30;
  const service = typeof line['service'] === 'string' ? line['service'] : '';
  const head = `${paint(color, clockTime(line['time']), 'dim')} ${paint(color, service.padEnd(12), serviceStyle(service))} `;
  const reqId = shortRequestId(line['reqId']);
  const tail = reqId === '' ? '' : `  ${paint(color, reqId, 'dim')}`;

  if (kind === 'request') {
    const status = numberOf((line['res'] as Record<string, unknown>)['statusCode']);
    const ms = numberOf(line['responseTime']);
    const what = options.request ? `${options.request.method} ${truncate(options.request.url, MAX_URL)} ` : 'request ';
    const statusText = status === undefined ? '' : paint(color, String(status), statusStyle(status));
    const time = ms === undefined ? '' : ` ${paint(color, `${ms.toFixed(1)} ms`, 'dim')}`;
    return `${head} ${what}${statusText}${time}${tail}`;
  }

  const msg = oneLine(typeof line['msg'] === 'string' ? line['msg'] : '');
  // `orders-api listening on …` after the service column: the name once is enough
  if (kind === 'startup') return `${head} ${paint(color, msg.replace(`${service} `, ''), 'bold', 'green')}${tail}`;

  const label = levelLabel(level);
  const labelText = label === '' ? '' : `${paint(color, label.padEnd(5), ...labelStyles(level))} `;
  const fields = SHOWN_FIELDS.flatMap((k) => {
    const v = line[k];
    return typeof v === 'string' || typeof v === 'number' ? [truncate(oneLine(String(v)), 120)] : [];
  });
  const fieldText = fields.length === 0 ? '' : `  ${paint(color, fields.join('  '), 'dim')}`;
  const msgText = level >= LEVEL_ERROR ? paint(color, msg, 'red') : level >= LEVEL_WARN ? paint(color, msg, 'yellow') : msg;
  const out = [`${head} ${labelText}${msgText}${fieldText}${tail}`];
  out.push(...errorLines(line, msg, color));
  return out.join('\n');
}

/** An error's type and message (when the line's own message does not already say it) and first frames. */
function errorLines(line: LogLine, msg: string, color: boolean): string[] {
  const err = isObject(line['err']) ? line['err'] : undefined;
  const stack = typeof err?.['stack'] === 'string' ? err['stack'] : typeof line['stack'] === 'string' ? line['stack'] : undefined;
  const out: string[] = [];
  if (err !== undefined) {
    const type = typeof err['type'] === 'string' ? err['type'] : 'Error';
    const message = typeof err['message'] === 'string' ? oneLine(err['message']) : '';
    if (message !== '' && message !== msg) out.push(`    ${paint(color, `${type}: ${truncate(message, 300)}`, 'red')}`);
  }
  if (stack !== undefined) {
    const frames = stack
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('at '))
      .slice(0, STACK_FRAMES);
    out.push(...frames.map((f) => `    ${paint(color, f, 'dim')}`));
  }
  return out;
}

function levelLabel(level: number): string {
  if (level >= 60) return 'FATAL';
  if (level >= LEVEL_ERROR) return 'ERROR';
  if (level >= LEVEL_WARN) return 'WARN';
  if (level < 30) return level >= 20 ? 'debug' : 'trace';
  return '';
}

function labelStyles(level: number): Style[] {
  if (level >= LEVEL_ERROR) return ['bold', 'red'];
  if (level >= LEVEL_WARN) return ['bold', 'yellow'];
  return ['dim'];
}

function statusStyle(status: number): Style {
  if (status >= 500) return 'red';
  if (status >= 400) return 'yellow';
  if (status >= 300) return 'cyan';
  return 'green';
}

function numberOf(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ⏎ ');
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Requests whose `incoming request` line came and whose completion did not yet. */
const MAX_OPEN_REQUESTS = 10_000;

/**
 * The pretty format over a stream of lines: remembers each request's method and URL from
 * its `incoming request` line (keyed by request id) for its completion line.
 */
export class PrettyLines {
  private readonly open = new Map<string, RequestStart>();

  constructor(private readonly color: boolean) {}

  /** A parsed line as text, or undefined when the pretty format drops it. */
  format(line: LogLine): string | undefined {
    const kind = lineKind(line);
    const reqId = typeof line['reqId'] === 'string' ? line['reqId'] : undefined;
    if (kind === 'request-start' && reqId !== undefined) {
      const req = line['req'] as Record<string, unknown>;
      if (this.open.size >= MAX_OPEN_REQUESTS) {
        const oldest = this.open.keys().next();
        if (oldest.done !== true) this.open.delete(oldest.value);
      }
      this.open.set(reqId, {
        method: typeof req['method'] === 'string' ? req['method'] : '?',
        url: typeof req['url'] === 'string' ? req['url'] : '?',
      });
    }
    let request: RequestStart | undefined;
    if (kind === 'request' && reqId !== undefined) {
      request = this.open.get(reqId);
      this.open.delete(reqId);
    }
    return formatLine(line, request === undefined ? { color: this.color } : { color: this.color, request });
  }

  /**
   * One raw line (pino's serialized JSON, or anything else a process printed) as text.
   * A line that is not a JSON object is passed through unchanged.
   */
  formatText(text: string): string | undefined {
    const trimmed = text.trim();
    if (!trimmed.startsWith('{')) return text;
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return text;
    }
    return isObject(parsed) ? this.format(parsed) : text;
  }
}

/** Where the formatted lines go: stdout's sonic-boom, a capture stream in tests. */
export interface LineSink {
  write(text: string): unknown;
}

/**
 * A pino destination that writes the pretty format to `sink`. pino writes one serialized
 * line per call (already scrubbed by `hooks.streamWrite`).
 */
export function prettyDestination(sink: LineSink, color: boolean): DestinationStream {
  const lines = new PrettyLines(color);
  return {
    write(chunk: string): void {
      for (const raw of chunk.split('\n')) {
        if (raw === '') continue;
        const text = lines.formatText(raw);
        if (text !== undefined) sink.write(`${text}\n`);
      }
    },
  };
}

/** Colour by the terminal conventions: NO_COLOR (no-color.org) and FORCE_COLOR. */
export type ColorMode = 'auto' | 'always' | 'never';

/**
 * FORCE_COLOR set to anything but `0`/`false` forces colour; else a non-empty NO_COLOR turns
 * it off; else colour follows whether the output is a terminal.
 */
export function colorMode(env: { readonly NO_COLOR?: string | undefined; readonly FORCE_COLOR?: string | undefined }): ColorMode {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force === '0' || force === 'false' ? 'never' : 'always';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 'never';
  return 'auto';
}

export function wantsColor(mode: ColorMode, isTTY: boolean | undefined): boolean {
  return mode === 'always' || (mode === 'auto' && isTTY === true);
}
