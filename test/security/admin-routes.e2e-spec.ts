/**
 * Every /admin/v1 operation of every service — enumerated from its /openapi.json and
 * checked against the routes Nest actually mapped — refuses every credential but
 * ADMIN_API_KEY (a tenant's console session included) with 401, `WWW-Authenticate: Bearer
 * realm="admin"` and the contract body,
 * and changes nothing in the database. A new admin route is tested automatically.
 */
import { randomBytes } from 'node:crypto';
import type { PlatformConfig, ServiceDefinition } from '@app/platform';
import { offersService } from '../../apps/offers-api/src/service';
import { paymentsService } from '../../apps/payments-api/src/service';
import { vectorService } from '../../apps/vector-api/src/service';
import { startTestApp, type TestApp } from '../support/app';
import { type ErrorBody, fillPath, mappedRoutes, openApiOperations, type Operation, opKey, snapshotDatabase } from './support';

const ADMIN_KEY = `adm_${randomBytes(24).toString('hex')}`;
const adminAuth = { authorization: `Bearer ${ADMIN_KEY}` };

interface Fixture {
  /** Path parameter values by route prefix and parameter name. */
  readonly values: (path: string) => Record<string, string>;
  /** Valid bodies, so that a guard bypass would have an effect. */
  readonly bodies: Record<string, object>;
  /** The service's own (non-admin) credential, which must not open admin routes. */
  readonly principal: string;
  /** A console session of the tenant (Cookie header and CSRF token), which must not either. */
  readonly console: Record<string, string>;
}

/** Signs in to the console as the tenant named by `body` (a link from the admin route, redeemed once). */
async function consoleOf(t: TestApp<PlatformConfig>, body: object): Promise<Record<string, string>> {
  const link = await post<{ url: string }>(t, '/admin/v1/console-links', body);
  const token = /#token=(cl_\w+)$/.exec(link.url)?.[1] ?? '';
  const res = await t.app.inject({ method: 'POST', url: '/console/sign-in', payload: { token } });
  if (res.statusCode !== 200) throw new Error(`console sign-in: ${res.statusCode} ${res.body}`);
  const cookie = /^(console_session_[a-z]+=cs_\w+);/.exec(String(res.headers['set-cookie']))?.[1] ?? '';
  return { cookie, 'x-csrf-token': res.json<{ csrf_token: string }>().csrf_token };
}

interface ServiceCase {
  readonly name: string;
  readonly definition: ServiceDefinition<PlatformConfig>;
  readonly env: Record<string, string>;
  readonly seed: (t: TestApp<PlatformConfig>) => Promise<Fixture>;
}

async function post<T>(
  t: TestApp<PlatformConfig>,
  url: string,
  payload?: object,
  headers: Record<string, string> = adminAuth,
): Promise<T> {
  const res = await t.app.inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload }) });
  if (res.statusCode >= 300) throw new Error(`seed ${url}: ${res.statusCode} ${res.body}`);
  return res.json<T>();
}

const hour = 3_600_000;
const offerBody = (): object => ({
  company: 'Guarded plc',
  ticker: 'GRD',
  type: 'ipo',
  price_per_share: 2.5,
  currency: 'gbp',
  minimum_investment: 250,
  opens_at: new Date(Date.now() + hour).toISOString(),
  closes_at: new Date(Date.now() + 48 * hour).toISOString(),
  shares_offered: 1000,
});

const SERVICES: ServiceCase[] = [
  {
    name: 'offers-api',
    definition: offersService as unknown as ServiceDefinition<PlatformConfig>,
    env: { OAUTH_TOKEN_FAILURES_PER_MINUTE: '10000' },
    seed: async (t) => {
      const partner = await post<{ id: string }>(t, '/admin/v1/partners', { name: 'Guarded', tier: 'growth' });
      const client = await post<{ client_id: string; client_secret: string }>(t, `/admin/v1/partners/${partner.id}/clients`);
      const offer = await post<{ id: string }>(t, '/admin/v1/offers', offerBody());
      const token = await t.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: 'client_credentials', ...client }).toString(),
      });
      return {
        values: (path): Record<string, string> =>
          path.startsWith('/admin/v1/partners')
            ? { id: partner.id, client_id: client.client_id, offer_id: offer.id }
            : { id: offer.id, offer_id: offer.id },
        bodies: {
          'POST /admin/v1/partners': { name: 'Intruder', tier: 'enterprise' },
          'POST /admin/v1/offers': offerBody(),
          'PATCH /admin/v1/offers/{id}': { company: 'Hijacked plc' },
          'POST /admin/v1/terms': { version: 'evil-1', title: 'Evil', body: 'Evil terms' },
          'POST /admin/v1/offers/{id}/allocations': { shares_available: 10, policy: 'pro_rata' },
          'POST /admin/v1/console-links': { partner_id: partner.id },
          'POST /admin/v1/console-sessions/revoke': { partner_id: partner.id },
        },
        principal: token.json<{ access_token: string }>().access_token,
        console: await consoleOf(t, { partner_id: partner.id }),
      };
    },
  },
  {
    name: 'payments-api',
    definition: paymentsService as unknown as ServiceDefinition<PlatformConfig>,
    env: {},
    seed: async (t) => {
      const account = await post<{ id: string; test_key: string }>(t, '/admin/v1/accounts', { name: 'Guarded' });
      return {
        values: () => ({ id: account.id }),
        bodies: {
          'POST /admin/v1/accounts': { name: 'Intruder' },
          'POST /admin/v1/console-links': { account_id: account.id },
          'POST /admin/v1/console-sessions/revoke': { account_id: account.id },
        },
        principal: account.test_key,
        console: await consoleOf(t, { account_id: account.id }),
      };
    },
  },
  {
    name: 'vector-api',
    definition: vectorService as unknown as ServiceDefinition<PlatformConfig>,
    env: {},
    seed: async (t) => {
      const token = await post<{ id: string; token: string; project_id: string }>(t, '/admin/v1/tokens', { name: 'guarded' });
      return {
        values: (path) => ({ id: path.startsWith('/admin/v1/projects') ? token.project_id : token.id }),
        bodies: {
          'POST /admin/v1/tokens': { name: 'intruder' },
          'POST /admin/v1/projects': { name: 'intruder' },
          'POST /admin/v1/projects/{id}/tokens': { name: 'intruder' },
          'POST /admin/v1/console-links': { project_id: token.project_id },
          'POST /admin/v1/console-sessions/revoke': { project_id: token.project_id },
        },
        principal: token.token,
        console: await consoleOf(t, { project_id: token.project_id }),
      };
    },
  },
];

/** Credentials that are not the admin key, with the answer each must get. */
function impostors(
  principal: string,
  consoleSession: Record<string, string>,
): Array<{ label: string; headers: Record<string, string>; code: string }> {
  const wrong = { code: 'invalid_api_key' };
  const missing = { code: 'authentication_required' };
  return [
    { label: 'no Authorization', headers: {}, ...missing },
    { label: 'empty Bearer', headers: { authorization: 'Bearer ' }, ...missing },
    { label: 'key in another header', headers: { 'x-api-key': ADMIN_KEY, 'x-admin-key': ADMIN_KEY }, ...missing },
    {
      label: 'key as Basic password',
      headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_KEY}`).toString('base64')}` },
      ...missing,
    },
    { label: 'key without scheme', headers: { authorization: ADMIN_KEY }, ...missing },
    { label: 'key twice', headers: { authorization: `Bearer ${ADMIN_KEY} ${ADMIN_KEY}` }, ...missing },
    { label: 'a wrong key', headers: { authorization: `Bearer ${randomBytes(24).toString('hex')}` }, ...wrong },
    { label: 'key + suffix (key as prefix)', headers: { authorization: `Bearer ${ADMIN_KEY}x` }, ...wrong },
    { label: 'prefix + key (key as suffix)', headers: { authorization: `Bearer x${ADMIN_KEY}` }, ...wrong },
    { label: 'key minus its last character', headers: { authorization: `Bearer ${ADMIN_KEY.slice(0, -1)}` }, ...wrong },
    { label: 'key minus its first character', headers: { authorization: `Bearer ${ADMIN_KEY.slice(1)}` }, ...wrong },
    { label: 'key in another case', headers: { authorization: `Bearer ${ADMIN_KEY.toUpperCase()}` }, ...wrong },
    { label: 'the development default', headers: { authorization: 'Bearer dev-admin-key' }, ...wrong },
    { label: "the service's own credential", headers: { authorization: `Bearer ${principal}` }, ...wrong },
    { label: "the tenant's console session (cookie and CSRF token)", headers: consoleSession, ...missing },
  ];
}

describe.each(SERVICES)('$name: /admin/v1 needs ADMIN_API_KEY', (service) => {
  let t: TestApp<PlatformConfig>;
  let fixture: Fixture;
  let adminOps: Operation[];

  beforeAll(async () => {
    // ROLE=api: no background worker writes, so any database change comes from a request.
    // Hundreds of wrong keys from one address: the failure limit (tested in
    // http-hardening.e2e-spec.ts) would answer 429 instead of the 401s checked here.
    t = await startTestApp(service.definition, {
      ADMIN_API_KEY: ADMIN_KEY,
      ROLE: 'api',
      ADMIN_AUTH_FAILURES_PER_MINUTE: '0',
      ...service.env,
    });
    fixture = await service.seed(t);
    adminOps = (await openApiOperations(t.app)).filter((op) => op.path.startsWith('/admin/'));
  });
  afterAll(async () => {
    await t.close();
  });

  it('enumerates every admin route: OpenAPI lists exactly the mapped /admin routes, each with the admin scheme', () => {
    expect(adminOps.length).toBeGreaterThan(1);
    const mapped = mappedRoutes(t.logs).filter((r) => r.path.startsWith('/admin/'));
    expect(adminOps.map(opKey).sort()).toEqual(mapped.map(opKey).sort());
    for (const op of adminOps) expect([opKey(op), op.security]).toEqual([opKey(op), ['admin']]);
  });

  it('refuses every other credential on every admin operation with 401 and no side effect', async () => {
    expect(adminOps.length).toBeGreaterThan(1); // the loops below cannot pass by checking nothing
    const before = await snapshotDatabase(t.db.url);
    for (const op of adminOps) {
      const url = fillPath(op.path, fixture.values(op.path));
      const payload = fixture.bodies[opKey(op)];
      for (const who of impostors(fixture.principal, fixture.console)) {
        const res = await t.app.inject({ method: op.method, url, headers: who.headers, ...(payload ? { payload } : {}) });
        const label = `${opKey(op)} with ${who.label}`;
        const body = res.statusCode === 401 ? res.json<ErrorBody>() : res.body;
        const challenge = who.code === 'invalid_api_key' ? 'Bearer realm="admin", error="invalid_token"' : 'Bearer realm="admin"';
        expect([label, res.statusCode, res.headers['www-authenticate'], body]).toEqual([
          label,
          401,
          challenge,
          {
            error: {
              type: 'authentication_error',
              code: who.code,
              message: expect.any(String) as unknown,
              request_id: res.headers['request-id'],
            },
          },
        ]);
      }
    }
    expect(await snapshotDatabase(t.db.url)).toEqual(before);
  });

  it('opens every admin operation to the right key (so the 401s above came from the guard), and the snapshot sees writes', async () => {
    expect(adminOps.length).toBeGreaterThan(1);
    const before = await snapshotDatabase(t.db.url);
    for (const op of adminOps) {
      const payload = fixture.bodies[opKey(op)];
      const res = await t.app.inject({
        method: op.method,
        url: fillPath(op.path, fixture.values(op.path)),
        headers: adminAuth,
        ...(payload ? { payload } : {}),
      });
      expect([opKey(op), res.statusCode < 400 || res.statusCode === 409]).toEqual([opKey(op), true]);
    }
    if (adminOps.some((op) => op.method !== 'GET')) expect(await snapshotDatabase(t.db.url)).not.toEqual(before);
  });
});
