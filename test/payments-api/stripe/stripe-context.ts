/**
 * payments-api on a loopback port with the official `stripe` SDK pointed at it (issue 35):
 * the SDK's resource methods call `/v1/...` with form-encoded bodies, as they call Stripe.
 */
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { ADMIN, type PaymentsApp, startPayments } from '../payments-context';

export interface StripeApp {
  readonly t: PaymentsApp;
  readonly port: number;
  /** The account's test secret key (sk_test_…) and live one. */
  readonly secretKey: string;
  readonly liveKey: string;
  readonly accountId: string;
  /** The SDK with the test key, no retries. */
  readonly stripe: Stripe;
  /** Another SDK client of this app (another key, retries…). */
  sdk(key: string, options?: Stripe.StripeConfig): Stripe;
  /** A new account on the same app: its id and keys. */
  newAccount(name?: string): Promise<{ id: string; secretKey: string; liveKey: string }>;
  close(): Promise<void>;
}

export async function startStripeApp(env: Record<string, string> = {}): Promise<StripeApp> {
  const t = await startPayments(env);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.getHttpServer().address() as AddressInfo;
  const sdk = (key: string, options: Stripe.StripeConfig = {}): Stripe =>
    new Stripe(key, { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0, telemetry: false, ...options });
  const newAccount = async (name = 'Stripe shop'): Promise<{ id: string; secretKey: string; liveKey: string }> => {
    const res = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: ADMIN, payload: { name } });
    if (res.statusCode !== 201) throw new Error(`account create answered ${res.statusCode}: ${res.body}`);
    const a = res.json<{ id: string; test_key: string; live_key: string }>();
    return { id: a.id, secretKey: a.test_key, liveKey: a.live_key };
  };
  const account = await newAccount();
  return {
    t,
    port,
    secretKey: account.secretKey,
    liveKey: account.liveKey,
    accountId: account.id,
    stripe: sdk(account.secretKey),
    sdk,
    newAccount,
    close: () => t.close(),
  };
}

/** The rejection of `promise` (fails the test if it resolves). */
export async function stripeRejection(promise: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof Stripe.errors.StripeError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}
