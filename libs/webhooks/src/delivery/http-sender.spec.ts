import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpSender, type SendResult, socketErrorType } from './http-sender';

describe('socketErrorType', () => {
  it('classes the socket errors by code, anything else as _OTHER', () => {
    const withCode = (code: string): Error => Object.assign(new Error('x'), { code });
    expect(socketErrorType(withCode('ECONNREFUSED'))).toBe('connection_refused');
    expect(socketErrorType(withCode('ECONNRESET'))).toBe('connection_reset');
    expect(socketErrorType(withCode('ENOTFOUND'))).toBe('name_not_resolved');
    expect(socketErrorType(withCode('EWEBHOOKBLOCKED'))).toBe('blocked');
    expect(socketErrorType(withCode('ERR_TLS_CERT_ALTNAME_INVALID'))).toBe('_OTHER');
    expect(socketErrorType(new Error('no code'))).toBe('_OTHER');
  });
});

describe('HttpSender error types (loopback receiver)', () => {
  let server: Server;
  let base: string;
  const sender = new HttpSender();
  const send = (path: string, timeoutMs = 2_000): Promise<SendResult> =>
    sender.send({ url: `${base}${path}`, headers: {}, body: '{}', timeoutMs, allowPrivateUrls: true });

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/slow') return; // never answers
      res.statusCode = req.url === '/fail' ? 503 : 204;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    sender.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('none on success, the status code for an HTTP error, timeout, connection_refused, blocked, invalid_url', async () => {
    expect((await send('/ok')).errorType).toBeNull();
    expect(await send('/fail')).toMatchObject({ statusCode: 503, errorType: '503' });
    expect(await send('/slow', 200)).toMatchObject({ statusCode: null, errorType: 'timeout' });
    // a port nothing listens on: a closed server's
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await sender.send({
      url: `http://127.0.0.1:${closedPort}/`,
      headers: {},
      body: '{}',
      timeoutMs: 2_000,
      allowPrivateUrls: true,
    });
    expect(refused).toMatchObject({ statusCode: null, errorType: 'connection_refused' });
    const blocked = await sender.send({ url: `${base}/ok`, headers: {}, body: '{}', timeoutMs: 2_000, allowPrivateUrls: false });
    expect(blocked).toMatchObject({ statusCode: null, errorType: 'blocked' });
    const invalid = await sender.send({ url: 'not a url', headers: {}, body: '{}', timeoutMs: 2_000, allowPrivateUrls: true });
    expect(invalid.errorType).toBe('invalid_url');
  });
});
