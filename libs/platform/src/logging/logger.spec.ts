import { Logger } from '@nestjs/common';
import { Writable } from 'node:stream';
import { runWithRequestId } from '../http/request-context';
import { createRootLogger, PinoNestLogger } from './logger';

function capture(): { lines: Array<Record<string, unknown>>; stream: Writable } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

describe('structured logging', () => {
  it('redacts authorization headers, secrets and tokens', () => {
    const { lines, stream } = capture();
    const logger = createRootLogger({ service: 'test', level: 'info', format: 'json' }, stream);
    logger.info(
      {
        req: {
          headers: {
            authorization: 'Bearer abc.def',
            cookie: 'sid=1',
            'idempotency-key': 'k1',
            'x-csrf-token': 'csrf-hmac-value',
            accept: 'json',
          },
        },
        link: 'opened /console/sign-in#token=cl_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg',
        client: { client_secret: 's3cr3t', name: 'acme' },
        body: { access_token: 'tok', nested: { token: 'deep' } },
        secret: 'whsec_x',
        email: 'a@b.c',
      },
      'hello',
    );
    const text = JSON.stringify(lines);
    for (const leaked of ['abc.def', 'sid=1', 's3cr3t', '"tok"', 'deep', 'whsec_x', 'a@b.c', 'csrf-hmac-value', 'AbCdEfGhIjKl'])
      expect(text).not.toContain(leaked);
    expect(lines[0]).toMatchObject({ service: 'test', msg: 'hello', client: { name: 'acme' } });
    expect((lines[0]?.['req'] as { headers: Record<string, string> }).headers.accept).toBe('json');
  });

  it('adds the current request id to Nest log lines', () => {
    const { lines, stream } = capture();
    const nest = new PinoNestLogger(createRootLogger({ service: 'test', level: 'info', format: 'json' }, stream));
    runWithRequestId('req_abc', () => nest.log('inside', 'Ctx'));
    nest.warn('outside');
    expect(lines[0]).toMatchObject({ msg: 'inside', reqId: 'req_abc', context: 'Ctx', level: 30 });
    expect(lines[1]).toMatchObject({ msg: 'outside', level: 40 });
    expect(lines[1]).not.toHaveProperty('reqId');
  });

  it("keeps the text of Nest's log(fields, text) next to the fields", () => {
    const { lines, stream } = capture();
    const nest = new PinoNestLogger(createRootLogger({ service: 'test', level: 'info', format: 'json' }, stream));
    const logger = new Logger('Billing');
    Logger.overrideLogger(nest);
    try {
      logger.log({ invoiceId: 'inv_1' }, 'invoice inv_1 expired and was voided');
      logger.warn({ orderId: 'ord_1' });
    } finally {
      Logger.overrideLogger(false);
    }
    expect(lines[0]).toMatchObject({
      msg: 'invoice inv_1 expired and was voided',
      invoiceId: 'inv_1',
      context: 'Billing',
    });
    expect(lines[1]).toMatchObject({ orderId: 'ord_1', context: 'Billing', level: 40 });
  });
});

describe('LOG_FORMAT', () => {
  function text(): { out: string[]; stream: Writable } {
    const out: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        out.push(chunk.toString('utf8'));
        done();
      },
    });
    return { out, stream };
  }

  it('pretty: short lines, secrets scrubbed and redacted before the formatter sees them', () => {
    const { out, stream } = text();
    const logger = createRootLogger({ service: 'test', level: 'info', format: 'pretty', color: 'never' }, stream);
    logger.warn(
      { secret: 'whsec_hidden', statusCode: 500 },
      'receiver refused sk_test_AbCdEfGhIjKlMnOp with Bearer abcdefghijkl',
    );
    logger.error({ err: new Error('failed for vt_AbCdEfGhIjKlMnOpQrStUvWx') }, 'boom');
    const all = out.join('');
    for (const leaked of ['whsec_hidden', 'AbCdEfGhIjKlMnOp', 'abcdefghijkl', 'vt_AbCd']) expect(all).not.toContain(leaked);
    expect(all).not.toMatch(/^\{/m);
    const lines = all.split('\n');
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d test {10}WARN {2}receiver refused \[redacted\] with Bearer \[redacted\] {2}500$/);
    expect(lines[1]).toMatch(/ERROR boom$/);
    expect(lines[2]).toBe('    Error: failed for [redacted]');
    expect(lines[3]).toMatch(/^ {4}at /);
  });

  it('pretty: colour only when asked (a capture stream is no terminal)', () => {
    const plain = text();
    createRootLogger({ service: 'test', level: 'info', format: 'pretty' }, plain.stream).error('x');
    const forced = text();
    createRootLogger({ service: 'test', level: 'info', format: 'pretty', color: 'always' }, forced.stream).error('x');
    expect(plain.out.join('')).not.toContain('\u001b[');
    expect(forced.out.join('')).toContain('\u001b[31m');
  });

  it('json: one JSON object per line', () => {
    const { out, stream } = text();
    createRootLogger({ service: 'test', level: 'info', format: 'json' }, stream).info({ statusCode: 200 }, 'hello');
    expect(JSON.parse(out.join(''))).toMatchObject({ level: 30, service: 'test', statusCode: 200, msg: 'hello' });
  });
});
