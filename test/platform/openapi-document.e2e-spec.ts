/**
 * What each service's OpenAPI document promises, checked against what the service does:
 * `servers` (the configured public URL, else the request's origin, never a hostile Host). test/platform/openapi.e2e-spec.ts keeps the
 * reviewed copy of the whole document.
 */
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { vectorService } from '../../apps/vector-api/src/service';
import { startTestApp, type TestApp } from '../support/app';
import type { PlatformConfig, ServiceDefinition } from '@app/platform';

const services: Array<ServiceDefinition<PlatformConfig>> = [offersService, vectorService, paymentsService].map(
  (s) => s as unknown as ServiceDefinition<PlatformConfig>,
);

/** Each service's public URL variable (apps/<app>/src/config.ts). */
const PUBLIC_URL: Record<string, string> = {
  'offers-api': 'OFFERS_PUBLIC_URL',
  'vector-api': 'VECTOR_PUBLIC_URL',
  'payments-api': 'PAYMENTS_PUBLIC_URL',
};

interface Document {
  servers?: Array<{ url: string }>;
}

describe.each(services)('$name OpenAPI document', (definition) => {
  let t: TestApp<PlatformConfig>;
  const publicUrl = PUBLIC_URL[definition.name];

  beforeAll(async () => {
    t = await startTestApp(definition, { [publicUrl]: '', TRUST_PROXY: 'false', HOST: '0.0.0.0' });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('servers', () => {
    const host = { host: 'api.example.test:8443' };

    it("is the request's origin in /openapi.json, /openapi.yaml and the /docs UI (Try it out)", async () => {
      const json = await t.app.inject({ method: 'GET', url: '/openapi.json', headers: host });
      expect(json.json<Document>().servers).toEqual([{ url: 'http://api.example.test:8443' }]);
      const yaml = await t.app.inject({ method: 'GET', url: '/openapi.yaml', headers: host });
      expect(yaml.statusCode).toBe(200);
      expect(yaml.body).toMatch(/^servers:\n {2}- url: http:\/\/api\.example\.test:8443$/m);
      const ui = await t.app.inject({ method: 'GET', url: '/docs/swagger-ui-init.js', headers: host });
      expect(ui.statusCode).toBe(200);
      expect(ui.body).toMatch(/"servers": \[\s*\{\s*"url": "http:\/\/api\.example\.test:8443"\s*\}\s*\]/);
    });

    it('never reflects a hostile Host: the listen address instead', async () => {
      for (const hostile of ['evil.example/"><script>alert(1)</script>', 'user@evil.example', 'evil.example:99999', 'a b']) {
        for (const url of ['/openapi.json', '/openapi.yaml', '/docs/swagger-ui-init.js']) {
          const res = await t.app.inject({ method: 'GET', url, headers: { host: hostile } });
          expect([hostile, url, res.statusCode]).toEqual([hostile, url, 200]);
          expect(res.body).not.toContain('evil.example');
          expect(res.body).toContain(`http://localhost:${t.config.port}`);
        }
      }
    });

    it('takes no X-Forwarded-Proto or X-Forwarded-Host from a peer TRUST_PROXY does not trust', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/openapi.json',
        headers: { host: 'api.example.test', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'proxy.example' },
      });
      expect(res.json<Document>().servers).toEqual([{ url: 'http://api.example.test' }]);
    });

    it(`is ${publicUrl} when it is set, whatever the request says`, async () => {
      const configured = await startTestApp(definition, { [publicUrl]: 'https://api.example.com/base/' });
      try {
        for (const url of ['/openapi.json', '/docs/swagger-ui-init.js']) {
          const res = await configured.app.inject({
            method: 'GET',
            url,
            headers: { host: 'other.example', 'x-forwarded-proto': 'http' },
          });
          expect(res.body).toMatch(/"servers": ?\[\s*\{\s*"url": ?"https:\/\/api\.example\.com\/base"\s*\}\s*\]/);
          expect(res.body).not.toContain('other.example');
        }
      } finally {
        await configured.close();
      }
    });
  });
});

describe('servers behind a proxy TRUST_PROXY trusts', () => {
  let t: TestApp<PlatformConfig>;
  beforeAll(async () => {
    t = await startTestApp(services[0], { OFFERS_PUBLIC_URL: '', TRUST_PROXY: '1' });
  });
  afterAll(async () => {
    await t.close();
  });

  const servers = async (headers: Record<string, string>): Promise<unknown> =>
    (await t.app.inject({ method: 'GET', url: '/openapi.json', headers })).json<Document>().servers;

  it('takes the scheme and host the proxy forwards', async () => {
    expect(await servers({ host: 'internal:3000', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' })).toEqual(
      [{ url: 'https://api.example.com' }],
    );
  });

  it('but only http or https, and only a plain host', async () => {
    expect(await servers({ host: 'internal:3000', 'x-forwarded-proto': 'javascript' })).toEqual([
      { url: 'http://internal:3000' },
    ]);
    expect(await servers({ host: 'internal:3000', 'x-forwarded-host': 'evil.example/x?' })).toEqual([
      { url: `http://localhost:${t.config.port}` },
    ]);
  });
});
