/**
 * The payments demo: account "Demo Shop" (test mode) with customers and payments of every
 * kind a dashboard shows: succeeded, refunded in full and in part, declined, authorized and
 * waiting for capture, captured in part, canceled.
 *
 * The API sets `created` itself and offers no way to back-date it (as Stripe's), so every
 * demo payment is created now: the volume-per-day chart shows today's bar only.
 */
import { type SeedClient, SeedHttpError } from './http';

interface Payment {
  id: string;
  status: string;
}

const CUSTOMERS: ReadonlyArray<readonly [name: string, email: string]> = [
  ['Ada Lovelace', 'ada@example.com'],
  ['Alan Turing', 'alan@example.com'],
  ['Grace Hopper', 'grace@example.com'],
  ['Katherine Johnson', 'katherine@example.com'],
  ['Edsger Dijkstra', 'edsger@example.com'],
  ['Barbara Liskov', 'barbara@example.com'],
  ['Donald Knuth', 'donald@example.com'],
  ['Margaret Hamilton', 'margaret@example.com'],
];

const PRODUCTS: ReadonlyArray<readonly [description: string, amount: number]> = [
  ['Espresso machine', 24_900],
  ['Coffee beans, 1 kg', 2_450],
  ['Milk frother', 6_900],
  ['Grinder', 13_900],
  ['Gift card', 5_000],
  ['Descaling kit', 1_299],
  ['Cups, set of 6', 3_600],
  ['Barista course', 18_000],
];

/** A small deterministic generator, so every fresh database gets the same demo. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface PaymentsDemo {
  readonly accountId: string;
  readonly testKey: string;
  readonly payments: number;
}

export async function seedPayments(admin: SeedClient): Promise<PaymentsDemo> {
  const account = await admin.post<{ id: string; test_key: string }>('/admin/v1/accounts', { name: 'Demo Shop' });
  const api = admin.as(account.test_key);
  const random = mulberry32(20);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];

  const customers: string[] = [];
  for (const [name, email] of CUSTOMERS) {
    const customer = await api.post<{ id: string }>('/v2/customers', { name, email, metadata: { source: 'demo' } });
    customers.push(customer.id);
  }

  let order = 1000;
  const pay = async (extra: Record<string, unknown> = {}): Promise<Payment> => {
    const [description, amount] = pick(PRODUCTS);
    order += 1;
    return api.post<Payment>('/v2/payments', {
      amount,
      currency: random() < 0.8 ? 'usd' : 'eur',
      customer_id: pick(customers),
      description,
      metadata: { order_id: `ord_${order}` },
      ...extra,
    });
  };

  let count = 0;
  const succeeded: Payment[] = [];
  for (let i = 0; i < 24; i++) {
    succeeded.push(await pay());
    count += 1;
  }
  // refunds: two in full, three in part (one of them twice)
  for (const payment of succeeded.slice(0, 2)) {
    await api.post('/v2/refunds', { payment_id: payment.id, reason: 'requested_by_customer' });
  }
  for (const payment of succeeded.slice(2, 5)) {
    await api.post('/v2/refunds', { payment_id: payment.id, amount: 500, reason: 'requested_by_customer' });
  }
  if (succeeded[2]) await api.post('/v2/refunds', { payment_id: succeeded[2].id, amount: 200 });

  // declined cards: the API stores a failed payment and answers 402 card_error
  for (const method of ['pm_card_declined', 'pm_card_insufficient_funds']) {
    try {
      await pay({ payment_method: method });
      throw new Error(`a payment with ${method} succeeded`);
    } catch (err) {
      if (!(err instanceof SeedHttpError) || err.status !== 402) throw err;
    }
    count += 1;
  }

  // manual capture: three waiting (capture them in the console), one captured in part, one canceled
  const authorized: Payment[] = [];
  for (let i = 0; i < 5; i++) {
    authorized.push(await pay({ capture_method: 'manual' }));
    count += 1;
  }
  const [partial, canceled] = authorized.slice(3);
  if (partial) await api.post(`/v2/payments/${partial.id}/capture`, { amount_to_capture: 1_000 });
  if (canceled) await api.post(`/v2/payments/${canceled.id}/cancel`, { cancellation_reason: 'abandoned' });
  return { accountId: account.id, testKey: account.test_key, payments: count };
}
