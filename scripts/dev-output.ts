/**
 * What `npm start` (scripts/dev-start.ts) prints: the log format it gives the services, and
 * in the pretty format, the services' lines formatted here, in the launcher, so that the
 * noise of starting (health polls, the demo data's hundred requests) can be held back while
 * warnings and errors still show at once.
 */
import { colorMode, type LogLine, PrettyLines, lineKind, wantsColor } from '../libs/platform/src/logging/pretty-lines';

export type LogFormat = 'json' | 'pretty';

/**
 * The format of the services' logs under `npm start`: LOG_FORMAT when set; else `pretty` in
 * development (NODE_ENV unset or `development`) and `json` otherwise (production: always JSON
 * unless asked). A service started by itself keeps its own default, `json` (docs/decisions.md).
 */
export function startLogFormat(env: Readonly<Record<string, string | undefined>>): LogFormat {
  if (env.LOG_FORMAT !== undefined && env.LOG_FORMAT !== '') return env.LOG_FORMAT === 'pretty' ? 'pretty' : 'json';
  return (env.NODE_ENV ?? 'development') === 'development' ? 'pretty' : 'json';
}

/** Colour for the launcher's own output: NO_COLOR / FORCE_COLOR, else whether stdout is a terminal. */
export function startColor(env: Readonly<Record<string, string | undefined>>, isTTY: boolean | undefined): boolean {
  return wantsColor(colorMode({ NO_COLOR: env.NO_COLOR, FORCE_COLOR: env.FORCE_COLOR }), isTTY);
}

const LEVEL_WARN = 40;

/**
 * The services' JSON lines in the pretty format, written through `write`. While `quiet`
 * (starting and seeding demo data), info lines are counted, not written, except each
 * service's startup line; warnings and errors are always written.
 */
export class ServiceOutput {
  private readonly pretty: PrettyLines;
  private held = 0;
  quiet = true;

  constructor(
    color: boolean,
    private readonly write: (text: string) => void,
  ) {
    this.pretty = new PrettyLines(color);
  }

  /** One line a service printed on stdout (a JSON object, or anything else: passed through). */
  line(raw: string): void {
    if (raw.trim() === '') return;
    const parsed = parseObject(raw);
    if (parsed === undefined) {
      this.write(raw);
      return;
    }
    const text = this.pretty.format(parsed);
    if (text === undefined) return;
    if (this.quiet && !loud(parsed)) {
      this.held += 1;
      return;
    }
    this.write(text);
  }

  /** How many info lines were held back while quiet, and resets the count. */
  takeHeld(): number {
    const held = this.held;
    this.held = 0;
    return held;
  }
}

function loud(line: LogLine): boolean {
  const level = typeof line['level'] === 'number' ? line['level'] : 30;
  return level >= LEVEL_WARN || lineKind(line) === 'startup';
}

function parseObject(raw: string): LogLine | undefined {
  const text = raw.trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as LogLine) : undefined;
  } catch {
    return undefined;
  }
}

/** ANSI emphasis for the launcher's own lines (no-op without colour). */
export function emphasis(color: boolean): { bold(text: string): string; red(text: string): string; dim(text: string): string } {
  const wrap =
    (open: string, close: string) =>
    (text: string): string =>
      color ? `${open}${text}${close}` : text;
  return { bold: wrap('\u001b[1m', '\u001b[22m'), red: wrap('\u001b[31m', '\u001b[39m'), dim: wrap('\u001b[2m', '\u001b[22m') };
}
