import type { NestFastifyApplication } from '@nestjs/platform-fastify';

export interface OAuthClientCredentials {
  client_id: string;
  client_secret: string;
  partner_id: string;
}

const ADMIN = { authorization: 'Bearer dev-admin-key' };

/** A new partner of `tier` and an OAuth client of it, through the admin API of an in-process offers-api. */
export async function newOAuthClient(t: { app: NestFastifyApplication }, tier = 'growth'): Promise<OAuthClientCredentials> {
  const partner = await t.app.inject({
    method: 'POST',
    url: '/admin/v1/partners',
    headers: ADMIN,
    payload: { name: 'Acme', tier },
  });
  expect(partner.statusCode).toBe(201);
  const res = await t.app.inject({
    method: 'POST',
    url: `/admin/v1/partners/${partner.json<{ id: string }>().id}/clients`,
    headers: ADMIN,
  });
  expect(res.statusCode).toBe(201);
  return res.json<OAuthClientCredentials>();
}
