import type { NestFastifyApplication } from '@nestjs/platform-fastify';

const ADMIN = { authorization: 'Bearer dev-admin-key' };

export type ConsoleService = 'offers' | 'vector' | 'payments';

/** The admin route that creates each service's tenant, and the field a console link names it by. */
const TENANTS: Record<ConsoleService, { url: string; field: string; body: Record<string, unknown> }> = {
  offers: { url: '/admin/v1/partners', field: 'partner_id', body: { name: 'Console Partner', tier: 'growth' } },
  vector: { url: '/admin/v1/projects', field: 'project_id', body: { name: 'Console Project' } },
  payments: { url: '/admin/v1/accounts', field: 'account_id', body: { name: 'Console Shop' } },
};

/** A new tenant of the service (through its admin API): its id. */
export async function newConsoleTenant(app: NestFastifyApplication, service: ConsoleService, name?: string): Promise<string> {
  const spec = TENANTS[service];
  const res = await app.inject({
    method: 'POST',
    url: spec.url,
    headers: ADMIN,
    payload: { ...spec.body, ...(name ? { name } : {}) },
  });
  expect(res.statusCode).toBe(201);
  return res.json<{ id: string }>().id;
}

/** A one-time sign-in link for the tenant: `{url, expires_at}` and the token from its fragment. */
export async function consoleLink(
  app: NestFastifyApplication,
  service: ConsoleService,
  tenantId: string,
  ttlSeconds?: number,
): Promise<{ url: string; expires_at: string; token: string }> {
  const res = await app.inject({
    method: 'POST',
    url: '/admin/v1/console-links',
    headers: ADMIN,
    payload: { [TENANTS[service].field]: tenantId, ...(ttlSeconds === undefined ? {} : { ttl_seconds: ttlSeconds }) },
  });
  expect(res.statusCode).toBe(201);
  const body = res.json<{ url: string; expires_at: string }>();
  const token = /#token=(cl_[A-Za-z0-9]+)$/.exec(body.url)?.[1];
  if (!token) throw new Error(`no token in ${body.url}`);
  return { ...body, token };
}

/** Signs in with a fresh link: the Cookie header to send and the session's CSRF token. */
export async function consoleSession(
  app: NestFastifyApplication,
  service: ConsoleService,
  tenantId: string,
): Promise<{ cookie: string; csrf: string; headers: { cookie: string; 'x-csrf-token': string } }> {
  const { token } = await consoleLink(app, service, tenantId);
  const res = await app.inject({ method: 'POST', url: '/console/sign-in', payload: { token } });
  expect(res.statusCode).toBe(200);
  const setCookie = String(res.headers['set-cookie']);
  const cookie = /^(console_session_[a-z]+=cs_[A-Za-z0-9]+);/.exec(setCookie)?.[1];
  if (!cookie) throw new Error(`no session cookie in ${setCookie}`);
  const csrf = res.json<{ csrf_token: string }>().csrf_token;
  return { cookie, csrf, headers: { cookie, 'x-csrf-token': csrf } };
}
