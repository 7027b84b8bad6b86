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
    const logger = new Logger('Payments');
    Logger.overrideLogger(nest);
    try {
      logger.log({ paymentId: 'pay_1' }, 'authorization pay_1 expired and was canceled');
      logger.warn({ offerId: 'off_1' });
    } finally {
      Logger.overrideLogger(false);
    }
    expect(lines[0]).toMatchObject({
      msg: 'authorization pay_1 expired and was canceled',
      paymentId: 'pay_1',
      context: 'Payments',
    });
    expect(lines[1]).toMatchObject({ offerId: 'off_1', context: 'Payments', level: 40 });
  });
});
