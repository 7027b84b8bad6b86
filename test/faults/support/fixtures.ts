/**
 * Set-up through the public HTTP APIs of the running (child-process) services, plus
 * direct reads of the test database for the assertions.
 */
import { queryAt } from '../../support/database';
import { call, must } from './http';
import { ADMIN } from './processes';

export type Auth = { authorization: string };

// ---- offers-api ------------------------------------------------------------------------

export interface Partner {
  readonly id: string;
  readonly auth: Auth;
}

export async function newPartner(base: string, name = 'Fault Partner'): Promise<Partner> {
  const p = await must(call(base, 'POST', '/admin/v1/partners', { headers: ADMIN, body: { name, tier: 'enterprise' } }), 201);
  const id = (p.json as { id: string }).id;
  const c = await must(call(base, 'POST', `/admin/v1/partners/${id}/clients`, { headers: ADMIN }), 201);
  const { client_id, client_secret } = c.json as { client_id: string; client_secret: string };
  const tok = await must(
    call(base, 'POST', '/oauth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }).toString(),
    }),
    200,
  );
  return { id, auth: { authorization: `Bearer ${(tok.json as { access_token: string }).access_token}` } };
}

export async function publishTerms(base: string, version = '2026-01-01'): Promise<string> {
  await must(call(base, 'POST', '/admin/v1/terms', { headers: ADMIN, body: { version, title: 'Terms', body: 'Risk.' } }), 201);
  return version;
}

/** An offer shared with `partner`; `opensAt`/`closesAt` in epoch ms. */
export async function newOffer(base: string, partner: Partner, opensAt: number, closesAt: number): Promise<string> {
  // An offer due to open later is created an hour ahead and offered to the partner before it
  // gets its real schedule: its transitions are announced to the partners that have it when
  // they happen, so one that opened before the PUT (a slow create on a busy machine) would
  // have no offer.opened for the partner: the test's timing, not a lost event.
  const scheduled = opensAt > Date.now();
  const parkedAt = scheduled ? Math.max(closesAt, Date.now()) + 3_600_000 : opensAt;
  const res = await must(
    call(base, 'POST', '/admin/v1/offers', {
      headers: ADMIN,
      body: {
        company: 'Fault Tolerant plc',
        ticker: 'FLT',
        type: 'ipo',
        price_per_share: 2.5,
        currency: 'gbp',
        minimum_investment: 250,
        opens_at: new Date(parkedAt).toISOString(),
        closes_at: new Date(scheduled ? parkedAt + 3_600_000 : closesAt).toISOString(),
        shares_offered: 1_000_000,
      },
    }),
    201,
  );
  const id = (res.json as { id: string }).id;
  await must(call(base, 'PUT', `/admin/v1/partners/${partner.id}/offers/${id}`, { headers: ADMIN }), 200);
  if (!scheduled) return id;
  await must(
    call(base, 'PATCH', `/admin/v1/offers/${id}`, {
      headers: ADMIN,
      body: { opens_at: new Date(opensAt).toISOString(), closes_at: new Date(closesAt).toISOString() },
    }),
    200,
  );
  return id;
}

export async function newWebhookEndpoint(base: string, path: string, auth: Auth, url: string): Promise<string> {
  const res = await must(call(base, 'POST', path, { headers: auth, body: { url } }), 201);
  return (res.json as { id: string }).id;
}

// ---- payments-api ----------------------------------------------------------------------

export interface PaymentsAccount {
  readonly id: string;
  readonly auth: Auth;
}

export async function newAccount(base: string, name = 'Fault Shop'): Promise<PaymentsAccount> {
  const res = await must(call(base, 'POST', '/admin/v1/accounts', { headers: ADMIN, body: { name } }), 201);
  const a = res.json as { id: string; test_key: string };
  return { id: a.id, auth: { authorization: `Bearer ${a.test_key}` } };
}

export async function newCustomer(base: string, auth: Auth): Promise<string> {
  const res = await must(call(base, 'POST', '/v2/customers', { headers: auth, body: { email: 'fault@example.com' } }), 201);
  return (res.json as { id: string }).id;
}

// ---- vector-api ------------------------------------------------------------------------

export async function newVectorToken(base: string): Promise<Auth> {
  const res = await must(call(base, 'POST', '/admin/v1/tokens', { headers: ADMIN, body: { name: 'faults' } }), 201);
  return { authorization: `Bearer ${(res.json as { token: string }).token}` };
}

// ---- database --------------------------------------------------------------------------

export { queryAt as query } from '../../support/database';

/** How many deliveries failed at least once and wait for their retry (in a delayed job, while Redis has it). */
export async function retryingDeliveries(dbUrl: string): Promise<number> {
  const rows = await queryAt<{ n: string }>(
    dbUrl,
    `SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND attempt_count > 0`,
  );
  return Number(rows[0]?.n);
}
