import { emphasis, ServiceOutput, startColor, startLogFormat } from './dev-output';

const line = (fields: Record<string, unknown>): string =>
  JSON.stringify({ level: 30, time: '2026-11-29T11:02:03.000Z', service: 'offers-api', ...fields });

describe('npm start output', () => {
  it('LOG_FORMAT for the services: as set; else pretty in development, JSON elsewhere', () => {
    expect(startLogFormat({})).toBe('pretty');
    expect(startLogFormat({ NODE_ENV: 'development' })).toBe('pretty');
    expect(startLogFormat({ NODE_ENV: 'production' })).toBe('json');
    expect(startLogFormat({ NODE_ENV: 'test' })).toBe('json');
    expect(startLogFormat({ NODE_ENV: 'development', LOG_FORMAT: 'json' })).toBe('json');
    expect(startLogFormat({ NODE_ENV: 'production', LOG_FORMAT: 'pretty' })).toBe('pretty');
  });

  it('colour: a terminal, unless NO_COLOR; FORCE_COLOR forces it', () => {
    expect([
      startColor({}, true),
      startColor({}, false),
      startColor({ NO_COLOR: '1' }, true),
      startColor({ FORCE_COLOR: '1' }, false),
    ]).toEqual([true, false, false, true]);
    expect(emphasis(false).bold('x')).toBe('x');
    expect(emphasis(true).bold('x')).toBe('\u001b[1mx\u001b[22m');
  });

  it('while quiet, holds back info lines but writes startup lines, warnings and errors; then one line per request', () => {
    const out: string[] = [];
    const output = new ServiceOutput(false, (t) => out.push(t));
    output.line(line({ context: 'RouterExplorer', msg: 'Mapped {/health/live, GET} route' }));
    output.line(line({ context: 'Redis', msg: 'Redis: single server 127.0.0.1:6379' }));
    output.line(line({ port: 3000, role: 'all', msg: 'offers-api listening on http://0.0.0.0:3000' }));
    output.line(line({ reqId: 'req_aaaaaaaaaaaa', req: { method: 'GET', url: '/health/ready' }, msg: 'incoming request' }));
    output.line(line({ reqId: 'req_aaaaaaaaaaaa', res: { statusCode: 200 }, responseTime: 1, msg: 'request completed' }));
    output.line(line({ level: 40, msg: 'careful' }));
    output.line('a line that is not JSON');
    expect(output.takeHeld()).toBe(2);
    output.quiet = false;
    output.line(line({ reqId: 'req_bbbbbbbbbbbb', req: { method: 'POST', url: '/v2/offers' }, msg: 'incoming request' }));
    output.line(line({ reqId: 'req_bbbbbbbbbbbb', res: { statusCode: 201 }, responseTime: 2.25, msg: 'request completed' }));
    expect(out.map((l) => l.replace(/^\d\d:\d\d:\d\d /, ''))).toEqual([
      'offers-api    listening on http://0.0.0.0:3000',
      'offers-api    WARN  careful',
      'a line that is not JSON',
      'offers-api    POST /v2/offers 201 2.3 ms  req_bbbbbbbb',
    ]);
  });
});
