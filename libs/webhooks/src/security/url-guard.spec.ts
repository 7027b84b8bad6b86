import { checkUrl, checkUrlShape, guardedLookup, isBlockedAddress, type Resolver } from './url-guard';

const strict = { allowPrivateUrls: false, requireHttps: true };
const dev = { allowPrivateUrls: true, requireHttps: false };
const resolverOf =
  (table: Record<string, string[]>): Resolver =>
  (host) =>
    table[host] ? Promise.resolve(table[host]) : Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }));

describe('isBlockedAddress', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.5',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '[::1]',
  ])('blocks %s', (ip) => {
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (ip) => {
    expect(isBlockedAddress(ip)).toBe(false);
  });
});

describe('checkUrl', () => {
  it('requires https in production and an http(s) URL everywhere', () => {
    expect(checkUrlShape('http://example.com/hook', strict)).toEqual({ ok: false, reason: 'url must use https' });
    expect(checkUrlShape('http://example.com/hook', dev).ok).toBe(true);
    expect(checkUrlShape('ftp://example.com/hook', dev)).toEqual({ ok: false, reason: 'url must be an http or https URL' });
    expect(checkUrlShape('ftp://example.com/hook', strict)).toEqual({ ok: false, reason: 'url must be an https URL' });
    expect(checkUrlShape('not a url', dev).ok).toBe(false);
    expect(checkUrlShape('https://user:pw@example.com/', dev).ok).toBe(false);
  });

  it('refuses raw control characters (the URL parser would drop or encode them: another URL than the one shown)', () => {
    for (const raw of [
      'http://a.example/x\r\nHost: b',
      'http://a.example/\tx',
      'http://a.example/x\u0000',
      'http://a.example/x\u007f',
      'http://a.example/\u0085',
    ]) {
      expect(checkUrlShape(raw, dev)).toEqual({
        ok: false,
        reason: 'url must not contain control characters (CR, LF, TAB, NUL, DEL, C1)',
      });
    }
    expect(checkUrlShape('http://a.example/x%0D%0A', dev).ok).toBe(true);
    expect(checkUrlShape('http://a.example/caf\u00e9', dev).ok).toBe(true);
  });

  it('refuses literal and named private hosts unless allowed', async () => {
    const resolver = resolverOf({
      'example.com': ['93.184.215.14'],
      'evil.example': ['169.254.169.254'],
      'mixed.example': ['8.8.8.8', '10.0.0.1'],
    });
    expect((await checkUrl('https://127.0.0.1/x', strict, resolver)).ok).toBe(false);
    expect((await checkUrl('https://[::1]/x', strict, resolver)).ok).toBe(false);
    expect((await checkUrl('https://localhost/x', strict, resolver)).ok).toBe(false);
    expect((await checkUrl('https://metadata.google.internal/x', strict, resolver)).ok).toBe(false);
    expect((await checkUrl('https://evil.example/x', strict, resolver)).ok).toBe(false);
    expect((await checkUrl('https://mixed.example/x', strict, resolver)).ok).toBe(false);
    expect((await checkUrl('https://nowhere.example/x', strict, resolver)).ok).toBe(false);
    expect((await checkUrl('https://example.com/x', strict, resolver)).ok).toBe(true);
    expect((await checkUrl('http://127.0.0.1:9/x', dev, resolver)).ok).toBe(true);
  });
});

describe('guardedLookup (delivery-time check on the address actually connected to)', () => {
  it('refuses a host that resolves to loopback', async () => {
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => guardedLookup('localhost', {}, (e) => resolve(e)));
    expect(err?.code).toBe('EWEBHOOKBLOCKED');
  });
});
