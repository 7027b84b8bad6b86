import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  clockTime,
  colorMode,
  formatLine,
  lineKind,
  PrettyLines,
  prettyDestination,
  shortRequestId,
  wantsColor,
} from './pretty-lines';

/** An ISO time whose local clock reads `hh:mm:ss` (the format prints local time). */
const at = (hh: number, mm: number, ss: number): string => new Date(2026, 10, 29, hh, mm, ss, 250).toISOString();
const ESC = '\u001b[';
/** The text without its SGR sequences (`ESC[<n>m`). */
const stripAnsi = (text: string): string =>
  text
    .split(ESC)
    .map((part, i) => (i === 0 ? part : part.replace(/^\d+m/, '')))
    .join('');
const reqId = 'req_2bfcd2705e022ccde051bb14';

describe('pretty log lines', () => {
  it('prints a request as one line: method, URL, status, time, short request id', () => {
    const lines = new PrettyLines(false);
    const incoming = lines.format({
      level: 30,
      time: at(11, 2, 3),
      service: 'orders-api',
      reqId,
      req: { method: 'POST', url: '/v2/orders', host: 'localhost:3000', remoteAddress: '127.0.0.1' },
      msg: 'incoming request',
    });
    const completed = lines.format({
      level: 30,
      time: at(11, 2, 3),
      service: 'orders-api',
      reqId,
      res: { statusCode: 201 },
      responseTime: 3.0817,
      msg: 'request completed',
    });
    expect(incoming).toBeUndefined();
    expect(completed).toBe('11:02:03 orders-api    POST /v2/orders 201 3.1 ms  req_2bfcd270');
  });

  it('without its incoming line, a completed request still prints its status', () => {
    const text = formatLine(
      {
        level: 30,
        time: at(9, 0, 0),
        service: 'search-api',
        reqId,
        res: { statusCode: 503 },
        responseTime: 1,
        msg: 'request completed',
      },
      { color: false },
    );
    expect(text).toBe('09:00:00 search-api    request 503 1.0 ms  req_2bfcd270');
  });

  it("drops Nest's route-mapping and module lines and Fastify's own listening lines, keeps the service's", () => {
    const boot = [
      { context: 'RoutesResolver', msg: 'HealthController {/health}:' },
      { context: 'RouterExplorer', msg: 'Mapped {/health/live, GET} route' },
      { context: 'InstanceLoader', msg: 'AppModule dependencies initialized' },
      { context: 'NestFactory', msg: 'Starting Nest application...' },
      { context: 'NestApplication', msg: 'Nest application successfully started' },
      { msg: 'Server listening at http://127.0.0.1:3002' },
    ];
    for (const line of boot) {
      expect(lineKind({ level: 30, ...line })).toBe('boot-noise');
      expect(formatLine({ level: 30, service: 'shipping-api', ...line }, { color: false })).toBeUndefined();
    }
    // a warning from one of those contexts is not noise
    expect(lineKind({ level: 40, context: 'RoutesResolver', msg: 'x' })).toBe('other');
    const startup = {
      level: 30,
      time: at(8, 0, 1),
      service: 'shipping-api',
      port: 3002,
      role: 'all',
      msg: 'shipping-api listening on http://0.0.0.0:3002',
    };
    expect(lineKind(startup)).toBe('startup');
    expect(formatLine(startup, { color: false })).toBe('08:00:01 shipping-api  listening on http://0.0.0.0:3002');
  });

  it('labels warnings and errors; an error shows its message and first stack frames', () => {
    const warn = formatLine(
      {
        level: 40,
        time: at(10, 0, 0),
        service: 'shipping-api',
        statusCode: 500,
        msg: 'webhook delivery failed after its last retry',
      },
      { color: false },
    );
    expect(warn).toBe('10:00:00 shipping-api  WARN  webhook delivery failed after its last retry  500');
    const error = formatLine(
      {
        level: 50,
        time: at(10, 0, 1),
        service: 'orders-api',
        reqId,
        err: {
          type: 'TypeError',
          message: "Cannot read properties of undefined (reading 'id')",
          stack:
            "TypeError: Cannot read properties of undefined (reading 'id')\n    at OrdersService.create (/app/orders.service.js:10:5)\n    at async Handler (/app/x.js:2:1)\n    at async Third (/app/y.js:3:1)",
        },
        msg: 'unhandled error',
      },
      { color: false },
    );
    expect(error?.split('\n')).toEqual([
      '10:00:01 orders-api    ERROR unhandled error  req_2bfcd270',
      "    TypeError: Cannot read properties of undefined (reading 'id')",
      '    at OrdersService.create (/app/orders.service.js:10:5)',
      '    at async Handler (/app/x.js:2:1)',
    ]);
  });

  it('colours only when asked: ANSI with colour, none without', () => {
    const line = { level: 50, time: at(10, 0, 0), service: 'orders-api', msg: 'boom' };
    expect(formatLine(line, { color: false })).not.toContain(ESC);
    expect(formatLine(line, { color: true })).toContain(`${ESC}31mboom${ESC}39m`);
    expect(stripAnsi(formatLine(line, { color: true }) ?? '')).toBe(formatLine(line, { color: false }));
  });

  it('colour follows NO_COLOR, FORCE_COLOR and whether the output is a terminal', () => {
    expect(colorMode({})).toBe('auto');
    expect(colorMode({ NO_COLOR: '1' })).toBe('never');
    expect(colorMode({ NO_COLOR: '' })).toBe('auto');
    expect(colorMode({ FORCE_COLOR: '1' })).toBe('always');
    expect(colorMode({ FORCE_COLOR: '1', NO_COLOR: '1' })).toBe('always');
    expect(colorMode({ FORCE_COLOR: '0' })).toBe('never');
    expect([wantsColor('auto', true), wantsColor('auto', false), wantsColor('auto', undefined)]).toEqual([true, false, false]);
    expect([wantsColor('always', false), wantsColor('never', true)]).toEqual([true, false]);
  });

  it('passes lines that are not JSON objects through, and keeps each line one line', () => {
    const lines = new PrettyLines(false);
    expect(lines.formatText('plain text from a library')).toBe('plain text from a library');
    expect(lines.formatText('{not json')).toBe('{not json');
    expect(lines.formatText(JSON.stringify({ level: 30, time: at(1, 2, 3), service: 's', msg: 'a\nb' }))).toBe(
      '01:02:03 s             a ⏎ b',
    );
  });

  it('as a pino destination: one output line per input line, dropped lines leave nothing', () => {
    const out: string[] = [];
    const dest = prettyDestination({ write: (t: string) => out.push(t) }, false);
    dest.write(`${JSON.stringify({ level: 30, time: at(1, 0, 0), service: 's', context: 'RouterExplorer', msg: 'Mapped' })}\n`);
    dest.write(`${JSON.stringify({ level: 30, time: at(1, 0, 0), service: 's', msg: 'hello' })}\n`);
    expect(out).toEqual(['01:00:00 s             hello\n']);
  });

  it('helpers: local clock time, short request id', () => {
    expect(clockTime(at(23, 59, 58))).toBe('23:59:58');
    expect(clockTime('not a time')).toBe('--:--:--');
    expect(shortRequestId(reqId)).toBe('req_2bfcd270');
    expect(shortRequestId(undefined)).toBe('');
  });

  it('imports only node: modules and pino (LOG_FORMAT=pretty needs no dev dependency)', () => {
    const source = readFileSync(join(process.cwd(), 'libs/platform/src/logging/pretty-lines.ts'), 'utf8');
    const imports = [...source.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    for (const specifier of imports) expect(specifier).toMatch(/^(node:|pino$)/);
    expect(source).not.toMatch(/require\(|import\(/);
  });
});
