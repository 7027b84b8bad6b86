import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { vectorService } from '../../apps/vector-api/src/service';
import { jest } from '@jest/globals';
import { Clock, type PlatformConfig, type ServiceDefinition } from '@app/platform';
import { startTestApp, type TestApp } from '../support/app';
import { consoleLink, consoleSession, type ConsoleService, newConsoleTenant } from '../support/console';

/** A read route and a state-changing route of the tenant, per service. */
const ROUTES: Record<ConsoleService, { read: string; write: { url: string; payload: Record<string, unknown> } }> = {
  offers: { read: '/api/v1/offers', write: { url: '/api/v1/clients', payload: { name: 'from the console' } } },
  vector: { read: '/v1/tables', write: { url: '/v1/tokens', payload: { name: 'from the console' } } },
  payments: { read: '/v2/customers', write: { url: '/v2/customers', payload: { email: 'a@example.com' } } },
};

const SERVICES: Array<[ConsoleService, ServiceDefinition<PlatformConfig>]> = [
  ['offers', offersService as unknown as ServiceDefinition<PlatformConfig>],
  ['vector', vectorService as unknown as ServiceDefinition<PlatformConfig>],
  ['payments', paymentsService as unknown as ServiceDefinition<PlatformConfig>],
];

describe.each(SERVICES)('console sessions: %s', (service, definition) => {
  let t: TestApp<PlatformConfig>;
  let tenant: string;

  beforeAll(async () => {
    t = await startTestApp(definition);
    tenant = await newConsoleTenant(t.app, service);
  });
  afterAll(() => t.close());

  it('a link signs in once: the cookie is HttpOnly, SameSite=Strict and Secure; the session acts as the tenant', async () => {
    const { token, url, expires_at } = await consoleLink(t.app, service, tenant);
    // outside production without *_PUBLIC_URL: the service's own loopback port, never the Host header
    expect(url.startsWith(`http://127.0.0.1:${t.config.port}/console/sign-in#token=cl_`)).toBe(true);
    expect(Date.parse(expires_at) - Date.now()).toBeGreaterThan(800_000);
    const first = await t.app.inject({ method: 'POST', url: '/console/sign-in', payload: { token } });
    expect(first.statusCode).toBe(200);
    const setCookie = String(first.headers['set-cookie']);
    expect(setCookie).toMatch(
      new RegExp(`^console_session_${service}=cs_\\w+; Max-Age=43200; Path=/; HttpOnly; SameSite=Strict; Secure$`),
    );
    expect(first.json()).toMatchObject({ object: 'console_session', tenant: { id: tenant }, idle_timeout_seconds: 43200 });

    const again = await t.app.inject({ method: 'POST', url: '/console/sign-in', payload: { token } });
    expect(again.statusCode).toBe(400);
    expect(again.json<{ error: { code: string; message: string } }>().error).toMatchObject({ code: 'console_link_invalid' });
    expect(again.json<{ error: { message: string } }>().error.message).toContain('already been used');
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('an expired link opens no session', async () => {
    const { token, expires_at } = await consoleLink(t.app, service, tenant, 1);
    // the service's clock a second past the link's life, instead of waiting it out
    const pastExpiry = new Date(Date.parse(expires_at) + 1000);
    const spy = jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => pastExpiry);
    const res = await t.app
      .inject({ method: 'POST', url: '/console/sign-in', payload: { token } })
      .finally(() => spy.mockRestore());
    expect(res.statusCode).toBe(400);
    expect(res.json<{ error: { code: string; message: string } }>().error).toMatchObject({ code: 'console_link_invalid' });
    expect(res.json<{ error: { message: string } }>().error.message).toContain('expired');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('reads with the cookie; writes need the CSRF token (403 without, or with a wrong one)', async () => {
    const session = await consoleSession(t.app, service, tenant);
    const read = await t.app.inject({ method: 'GET', url: ROUTES[service].read, headers: { cookie: session.cookie } });
    expect(read.statusCode).toBe(200);
    const { url, payload } = ROUTES[service].write;
    for (const headers of [{ cookie: session.cookie }, { cookie: session.cookie, 'x-csrf-token': 'x'.repeat(43) }]) {
      const refused = await t.app.inject({ method: 'POST', url, headers, payload });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ error: { code: 'csrf_token_invalid' } });
    }
    const written = await t.app.inject({ method: 'POST', url, headers: session.headers, payload });
    expect(written.statusCode).toBe(201);
  });

  it('sign-out ends the session server-side; the same cookie is refused afterwards', async () => {
    const session = await consoleSession(t.app, service, tenant);
    const noCsrf = await t.app.inject({ method: 'POST', url: '/console/sign-out', headers: { cookie: session.cookie } });
    expect(noCsrf.statusCode).toBe(403);
    const out = await t.app.inject({ method: 'POST', url: '/console/sign-out', headers: session.headers });
    expect(out.statusCode).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(new RegExp(`^console_session_${service}=; Max-Age=0`));
    const after = await t.app.inject({ method: 'GET', url: ROUTES[service].read, headers: { cookie: session.cookie } });
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ error: { code: 'console_session_invalid' } });
    const sessionRoute = await t.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: session.cookie } });
    expect(sessionRoute.statusCode).toBe(401);
  });

  it("the operator revokes a tenant's sessions at once; another tenant's stay", async () => {
    const other = await newConsoleTenant(t.app, service, 'Other tenant');
    const mine = [await consoleSession(t.app, service, tenant), await consoleSession(t.app, service, tenant)];
    const theirs = await consoleSession(t.app, service, other);
    const field = { offers: 'partner_id', vector: 'project_id', payments: 'account_id' }[service];
    const admin = { authorization: 'Bearer dev-admin-key' };
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/console-sessions/revoke',
      headers: admin,
      payload: { [field]: tenant },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ revoked: number }>().revoked).toBeGreaterThanOrEqual(2);
    for (const session of mine) {
      const after = await t.app.inject({ method: 'GET', url: ROUTES[service].read, headers: { cookie: session.cookie } });
      expect(after.statusCode).toBe(401);
    }
    const kept = await t.app.inject({ method: 'GET', url: ROUTES[service].read, headers: { cookie: theirs.cookie } });
    expect(kept.statusCode).toBe(200);
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/console-sessions/revoke',
      headers: admin,
      payload: { [field]: 'nope' },
    });
    expect(unknown.statusCode).toBe(400);
    const noAdmin = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/console-sessions/revoke',
      headers: theirs.headers,
      payload: { [field]: other },
    });
    expect(noAdmin.statusCode).toBe(401);
  });

  it('a session cookie of another service is not a session here', async () => {
    const session = await consoleSession(t.app, service, tenant);
    const foreign = session.cookie.replace(
      /^console_session_[a-z]+=/,
      `console_session_${service === 'offers' ? 'vector' : 'offers'}=`,
    );
    const res = await t.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: foreign } });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: { code: 'console_session_invalid' } });
  });

  it('a link for an unknown tenant is 400 resource_missing; ttl_seconds above 900 is 400', async () => {
    const field = { offers: 'partner_id', vector: 'project_id', payments: 'account_id' }[service];
    const admin = { authorization: 'Bearer dev-admin-key' };
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/console-links',
      headers: admin,
      payload: { [field]: 'nope' },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ error: { code: 'resource_missing', param: field } });
    const long = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/console-links',
      headers: admin,
      payload: { [field]: tenant, ttl_seconds: 901 },
    });
    expect(long.statusCode).toBe(400);
  });

  it('pages carry the strict CSP; every path under /console is the app', async () => {
    for (const path of ['/console', '/console/', '/console/settings/anything']) {
      const res = await t.app.inject({ method: 'GET', url: path });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
    }
  });
});
