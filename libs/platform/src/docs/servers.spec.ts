import { Expose } from 'class-transformer';
import { IsOptional } from 'class-validator';
import type { FastifyRequest } from 'fastify';
import { problemsOf } from '../../../../test/support/config-problems';
import { loadConfig } from '../config/load-config';
import { IsPublicUrl, parsePublicUrl, PlatformConfig } from '../config/platform-config';
import { parseAuthority, serverUrl } from './servers';

class AppConfig extends PlatformConfig {
  @Expose()
  @IsOptional()
  @IsPublicUrl()
  APP_PUBLIC_URL?: string;

  get port(): number {
    return 3999;
  }

  override get publicUrl(): string | undefined {
    return this.APP_PUBLIC_URL;
  }
}

const base = { DATABASE_URL: 'postgresql://u@localhost:5432/db' };
const config = (env: Record<string, string> = {}): AppConfig => loadConfig(AppConfig, { ...base, ...env });

/** What serverUrl reads of a request: Fastify's host and protocol (which honour TRUST_PROXY), and the socket. */
const request = (host: string | undefined, protocol = 'http', encrypted = false): FastifyRequest =>
  ({ host, protocol, raw: { socket: { encrypted } } }) as unknown as FastifyRequest;

describe('parsePublicUrl (*_PUBLIC_URL)', () => {
  it('normalises an http(s) URL to its origin and path without a trailing slash', () => {
    expect(parsePublicUrl('https://api.example.com')).toBe('https://api.example.com');
    expect(parsePublicUrl('https://API.Example.com/')).toBe('https://api.example.com');
    expect(parsePublicUrl('http://10.0.0.5:8080/shop/')).toBe('http://10.0.0.5:8080/shop');
    expect(parsePublicUrl('https://[2001:db8::1]:8443')).toBe('https://[2001:db8::1]:8443');
  });

  it('refuses other schemes, credentials, queries, fragments, spaces and non-URLs', () => {
    for (const bad of [
      'ftp://example.com',
      'javascript:alert(1)',
      'https://user:pw@example.com',
      'https://example.com/?a=1',
      'https://example.com/#x',
      'https://example.com/a b',
      'example.com',
      '/relative',
      '',
    ]) {
      expect([bad, parsePublicUrl(bad)]).toEqual([bad, undefined]);
    }
  });

  it('is validated at boot under the app variable that holds it', () => {
    expect(config({ APP_PUBLIC_URL: 'https://api.example.com/' }).publicUrl).toBe('https://api.example.com/');
    expect(config().publicUrl).toBeUndefined();
    expect(problemsOf(() => config({ APP_PUBLIC_URL: 'api.example.com' }))).toEqual(['APP_PUBLIC_URL']);
    expect(problemsOf(() => config({ APP_PUBLIC_URL: 'https://x.example/?q' }))).toEqual(['APP_PUBLIC_URL']);
  });
});

describe('parseAuthority (a Host header as the authority of a URL)', () => {
  it('accepts host names, IP literals and ports, lowercased', () => {
    expect(parseAuthority('api.example.com')).toBe('api.example.com');
    expect(parseAuthority('API.Example.COM:8443')).toBe('api.example.com:8443');
    expect(parseAuthority('localhost:3000')).toBe('localhost:3000');
    expect(parseAuthority('offers_api:3000')).toBe('offers_api:3000');
    expect(parseAuthority('127.0.0.1:3000')).toBe('127.0.0.1:3000');
    expect(parseAuthority('[::1]:3000')).toBe('[::1]:3000');
    expect(parseAuthority('[2001:DB8::1]')).toBe('[2001:db8::1]');
  });

  it('refuses anything that could put something else into a URL', () => {
    for (const hostile of [
      undefined,
      '',
      'evil.example/path',
      'user@evil.example',
      'evil.example?x=1',
      'evil.example#x',
      'evil.example:0',
      'evil.example:65536',
      'evil.example:80:80',
      'evil.example"><script>alert(1)</script>',
      "evil.example'",
      'evil.example\\x',
      'a b',
      '-leading.example',
      'trailing-.example',
      'double..dot',
      '[not:an:ip:zz]',
      '[::1',
      'javascript:alert(1)',
      `${'a'.repeat(64)}.example`,
      `${'a.'.repeat(130)}example`,
    ]) {
      expect([hostile, parseAuthority(hostile)]).toEqual([hostile, undefined]);
    }
  });
});

describe('serverUrl (the OpenAPI document servers)', () => {
  it('is the configured public URL, whatever the request says', () => {
    expect(serverUrl(request('attacker.example', 'https'), config({ APP_PUBLIC_URL: 'https://api.example.com/v/' }))).toBe(
      'https://api.example.com/v',
    );
  });

  it("is otherwise the request's origin: its scheme and Host", () => {
    expect(serverUrl(request('api.example.com:8080'), config())).toBe('http://api.example.com:8080');
    expect(serverUrl(request('api.example.com', 'https'), config())).toBe('https://api.example.com');
  });

  it('falls back to the listen address for a hostile or missing Host', () => {
    expect(serverUrl(request('evil.example/"><script>'), config())).toBe('http://localhost:3999');
    expect(serverUrl(request(undefined), config())).toBe('http://localhost:3999');
    expect(serverUrl(request('a@b'), config({ HOST: '127.0.0.1' }))).toBe('http://127.0.0.1:3999');
    expect(serverUrl(request(''), config({ HOST: '::1' }))).toBe('http://[::1]:3999');
    expect(serverUrl(request(''), config({ HOST: '::' }))).toBe('http://localhost:3999');
  });

  it('takes only http or https as the scheme, else the connection’s own', () => {
    expect(serverUrl(request('api.example.com', 'javascript'), config())).toBe('http://api.example.com');
    expect(serverUrl(request('api.example.com', 'https://evil.example/'), config())).toBe('http://api.example.com');
    expect(serverUrl(request('api.example.com', 'gopher', true), config())).toBe('https://api.example.com');
    expect(serverUrl(request('api.example.com', 'HTTPS'), config())).toBe('https://api.example.com');
  });
});
