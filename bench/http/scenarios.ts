/** The routes under load (a–d, f) and the bare-Fastify ceiling (e), built from the seeded data. */
import { randomUUID } from 'node:crypto';
import type { Scenario } from './load';
import type { Platform } from './platform';
import { rng, type Seed, type SeedPart, unitVector, VECTOR_DIM } from './seed';

/** The API version the `stripe` SDK 23.1.0 pins and sends (apps/payments-api/src/compat/stripe/stripe-webhook-dialect.ts). */
const STRIPE_VERSION = '2026-10-28.endive';

export type ScenarioId = 'offers-list' | 'indications' | 'vector-query' | 'payments' | 'stripe-intent' | 'bare';

export interface ScenarioDef extends Scenario {
  readonly id: ScenarioId;
  /** The service process that serves it (for profiling), or undefined for the bare route. */
  readonly service: 'offers-api' | 'vector-api' | 'payments-api' | undefined;
  /** A write route compared with pgbench running its own statements (sql-baseline.ts). */
  readonly directBaseline?: boolean;
}

/** Query bodies: a fixed, seeded set of random unit vectors, cycled through. */
function vectorBodies(count: number): string[] {
  const rand = rng(7);
  return Array.from({ length: count }, () => JSON.stringify({ vector: unitVector(rand, VECTOR_DIM), n: 10 }));
}

/** The scenarios whose service was seeded, in the order a–d, then the bare route. */
export function scenarios(p: Platform, s: Seed, bareBase: string, run: string): ScenarioDef[] {
  let indication = 0;
  let payment = 0;
  let intent = 0;
  let query = 0;
  const out: ScenarioDef[] = [];
  const { offers, vector, payments } = s;
  if (offers) {
    out.push(
      {
        id: 'offers-list',
        title: 'a. GET /api/v1/offers',
        service: 'offers-api',
        base: p.offers,
        request: { method: 'GET', path: '/api/v1/offers', headers: { authorization: `Bearer ${offers.token}` } },
      },
      {
        id: 'indications',
        title: 'b. POST /api/v1/offers/{id}/indications',
        service: 'offers-api',
        directBaseline: true,
        base: p.offers,
        request: {
          method: 'POST',
          path: `/api/v1/offers/${offers.liveOfferId}/indications`,
          headers: { authorization: `Bearer ${offers.token}` },
          next: () => {
            const i = indication++;
            return {
              body: JSON.stringify({
                investor_id: `inv_${run}_${i}`,
                amount: offers.minimumAmount + (i % 1000) * 100,
                currency: offers.currency,
                terms_accepted: true,
                terms_version: offers.termsVersion,
              }),
              headers: { 'idempotency-key': randomUUID() },
            };
          },
        },
      },
    );
  }
  if (vector) {
    const bodies = vectorBodies(256);
    out.push({
      id: 'vector-query',
      title: 'c. POST /v1/tables/{t}/query (hnsw, 10k × 128, n=10)',
      service: 'vector-api',
      base: p.vector,
      request: {
        method: 'POST',
        path: `/v1/tables/${vector.table}/query`,
        headers: { authorization: `Bearer ${vector.token}` },
        next: () => ({ body: bodies[query++ % bodies.length] ?? '' }),
      },
    });
  }
  if (payments) {
    out.push({
      id: 'payments',
      title: 'd. POST /v2/payments',
      service: 'payments-api',
      directBaseline: true,
      base: p.payments,
      request: {
        method: 'POST',
        path: '/v2/payments',
        headers: { authorization: `Bearer ${payments.key}` },
        next: () => {
          const i = payment++;
          return {
            body: JSON.stringify({
              amount: 1000 + (i % 5000),
              currency: 'gbp',
              customer_id: payments.customerId,
              description: `bench order ${i}`,
              metadata: { order: String(i) },
            }),
            headers: { 'idempotency-key': randomUUID() },
          };
        },
      },
    });
    // issue 35: the same payment through Stripe's /v1 as the `stripe` SDK sends
    // paymentIntents.create({…, confirm: true}): a form body with bracketed metadata, an
    // Idempotency-Key on every POST, Stripe-Version; measured in turns with d (run.ts).
    out.push({
      id: 'stripe-intent',
      title: 'f. POST /v1/payment_intents (confirm=true, form body)',
      service: 'payments-api',
      base: p.payments,
      request: {
        method: 'POST',
        path: '/v1/payment_intents',
        headers: {
          authorization: `Bearer ${payments.key}`,
          'content-type': 'application/x-www-form-urlencoded',
          'stripe-version': STRIPE_VERSION,
        },
        next: () => {
          const i = intent++;
          return {
            body: new URLSearchParams({
              amount: String(1000 + (i % 5000)),
              currency: 'gbp',
              customer: payments.customerId,
              description: `bench order ${i}`,
              'metadata[order]': String(i),
              payment_method: 'pm_card_visa',
              confirm: 'true',
            }).toString(),
            headers: { 'idempotency-key': `stripe-node-retry-${randomUUID()}` },
          };
        },
      },
    });
  }
  out.push({
    id: 'bare',
    title: 'e. bare Fastify GET /ping (ceiling)',
    service: undefined,
    base: bareBase,
    request: { method: 'GET', path: '/ping' },
  });
  return out;
}

/** The seed part a scenario needs. */
export function partOf(id: ScenarioId): SeedPart | undefined {
  if (id === 'offers-list' || id === 'indications') return 'offers';
  if (id === 'vector-query') return 'vector';
  if (id === 'payments' || id === 'stripe-intent') return 'payments';
  return undefined;
}
