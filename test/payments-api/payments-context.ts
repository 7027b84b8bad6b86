import { paymentsService } from '../../apps/payments-api/src/service';
import { startTestApp, type TestApp } from '../support/app';

export type PaymentsApp = TestApp<InstanceType<typeof paymentsService.configClass>>;
export const ADMIN = { authorization: 'Bearer dev-admin-key' };

export interface Account {
  id: string;
  test: Record<string, string>;
  live: Record<string, string>;
}

export function startPayments(env: Record<string, string> = {}): Promise<PaymentsApp> {
  return startTestApp(paymentsService, env);
}

/** A fresh account; `test` / `live` are ready-made Authorization headers. */
export async function newAccount(t: PaymentsApp, name = 'Shop'): Promise<Account> {
  const res = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: ADMIN, payload: { name } });
  expect(res.statusCode).toBe(201);
  const a = res.json<{ id: string; test_key: string; live_key: string }>();
  return { id: a.id, test: { authorization: `Bearer ${a.test_key}` }, live: { authorization: `Bearer ${a.live_key}` } };
}

export async function newCustomer(
  t: PaymentsApp,
  auth: Record<string, string>,
  body: object = { email: 'jenny@example.com' },
): Promise<string> {
  const res = await t.app.inject({ method: 'POST', url: '/v2/customers', headers: auth, payload: body });
  expect(res.statusCode).toBe(201);
  return res.json<{ id: string }>().id;
}

export interface ErrorJson {
  error: { type: string; code: string; message: string; param?: string; request_id: string; [k: string]: unknown };
}
