/**
 * The steady traffic the Redis outage and failover specs run through their fault: the same
 * services' settings, the same accounts, the same four loops. Shared so that each of those
 * specs holds only its own scenario (redis-outage: the server killed and restarted,
 * redis-sentinel: the primary killed and a replica promoted).
 */
import type { Receiver } from '../../webhooks/support/receiver';
// (as a namespace: the nine names listed would be the same list redis-cluster's header has)
import * as fixtures from './fixtures';
import { call, must, type Outcome } from './http';
import { type ServiceProcess, waitUntil } from './processes';
import { Traffic } from './traffic';

/** Scaled-down delivery settings (libs/webhooks/src/webhooks.config.ts). */
export const WEBHOOK_ENV = {
  WEBHOOK_SWEEP_INTERVAL_MS: '250',
  WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1s,1s,1s,1s,1s',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_LOCK_DURATION_MS: '4000',
};
/** No bounded wait in the services is longer (Redis enqueue 5 s, offer scheduling 2 s, pool 5 s): a timeout is a hang. */
export const CLIENT_TIMEOUT_MS = 12_000;
/** The loops startTraffic runs. */
export const LOOPS = ['payments.create', 'offers.indicate', 'vector.insert', 'vector.query'];

/** What the receiver answered: `acknowledged` holds the event ids it answered 2xx; while `failing` it answers 503. */
export interface Receiving {
  readonly acknowledged: Set<string>;
  failing: boolean;
}

/** What the traffic is sent to and as whom (the three services, the accounts setUpTargets made), and where the events go. */
export interface Targets {
  readonly offers: ServiceProcess;
  readonly payments: ServiceProcess;
  readonly vector: ServiceProcess;
  readonly partner: fixtures.Partner;
  readonly terms: string;
  /** An offer open for a day: the indications go to it. */
  readonly liveOffer: string;
  readonly account: fixtures.Auth;
  readonly customer: string;
  readonly vectorAuth: fixtures.Auth;
  readonly receiving: Receiving;
}

/**
 * A partner with published terms, a live offer and a webhook endpoint at `receiver`; a
 * payments account with a customer and an endpoint there too; a vector token and its table.
 * The receiver from now on records what it acknowledges (and fails on demand): see Receiving.
 */
export async function setUpTargets(
  services: Pick<Targets, 'offers' | 'payments' | 'vector'>,
  receiver: Receiver,
): Promise<Targets> {
  const receiving: Receiving = { acknowledged: new Set<string>(), failing: false };
  receiver.handler = (r) => {
    if (receiving.failing) return { status: 503 };
    receiving.acknowledged.add(String(r.headers['webhook-id']));
    return { status: 200 };
  };
  const { offers, payments, vector } = services;
  const partner = await fixtures.newPartner(offers.baseUrl);
  const terms = await fixtures.publishTerms(offers.baseUrl);
  const liveOffer = await fixtures.newOffer(offers.baseUrl, partner, Date.now() - 3_600_000, Date.now() + 24 * 3_600_000);
  await fixtures.newWebhookEndpoint(offers.baseUrl, '/api/v1/webhook-endpoints', partner.auth, receiver.url);
  const account = (await fixtures.newAccount(payments.baseUrl)).auth;
  const customer = await fixtures.newCustomer(payments.baseUrl, account);
  await fixtures.newWebhookEndpoint(payments.baseUrl, '/v2/webhook-endpoints', account, receiver.url);
  const vectorAuth = await fixtures.newVectorToken(vector.baseUrl);
  await must(
    call(vector.baseUrl, 'POST', '/v1/tables', { headers: vectorAuth, body: { name: 'faults', dimension: 4, index: 'hnsw' } }),
    201,
  );
  return { offers, payments, vector, partner, terms, liveOffer, account, customer, vectorAuth, receiving };
}

/**
 * Payments, indications, vector inserts and queries, each in its own loop. `round` prefixes
 * every key (Idempotency-Keys, investor ids, vector ids), so expectNothingLost finds the round's rows.
 */
export function startTraffic(targets: Targets, round: string): Traffic {
  const { offers, payments, vector, partner, terms, liveOffer, account, customer, vectorAuth } = targets;
  const traffic = new Traffic();
  const t = { timeoutMs: CLIENT_TIMEOUT_MS };
  traffic.run('payments.create', (seq) => {
    const key = `${round}-pay-${seq}`;
    return {
      key,
      send: () =>
        call(payments.baseUrl, 'POST', '/v2/payments', {
          ...t,
          headers: { ...account, 'idempotency-key': key },
          body: { amount: 500 + seq, currency: 'usd', customer_id: customer, metadata: { key } },
        }),
    };
  });
  traffic.run('offers.indicate', (seq) => {
    const key = `${round}-ind-${seq}`;
    return {
      key,
      send: () =>
        call(offers.baseUrl, 'POST', `/api/v1/offers/${liveOffer}/indications`, {
          ...t,
          headers: { ...partner.auth, 'idempotency-key': key },
          body: { investor_id: `inv_${key}`, amount: 25_000, currency: 'gbp', terms_accepted: true, terms_version: terms },
        }),
    };
  });
  traffic.run('vector.insert', (seq) => {
    const key = `${round}-vec-${seq}`;
    const embedding = [1, seq % 7, (seq * 3) % 11, 0.5];
    return {
      key,
      send: () =>
        call(vector.baseUrl, 'POST', '/v1/tables/faults/insert', {
          ...t,
          headers: vectorAuth,
          body: { rows: [{ id: key, embedding }] },
        }),
    };
  });
  traffic.run('vector.query', (seq) => ({
    key: `${round}-q-${seq}`,
    send: () =>
      call(vector.baseUrl, 'POST', '/v1/tables/faults/query', {
        ...t,
        headers: vectorAuth,
        body: { vector: [1, seq % 5, 1, 0], n: 3 },
      }),
  }));
  return traffic;
}

/** A service's readiness, asked with the traffic's patience: an answer or a hang, never a client-side give-up first. */
export function probeReady(s: ServiceProcess): Promise<Outcome> {
  return call(s.baseUrl, 'GET', '/health/ready', { timeoutMs: CLIENT_TIMEOUT_MS });
}

/**
 * Waits until every traffic loop has had `n` requests answered that it sent at or after
 * `since` (with `served`, answered 2xx): the traffic really ran through that phase.
 */
export function answeredSince(traffic: Traffic, since: number, what: string, { served = false, n = 3 } = {}): Promise<true> {
  const counts = (s: { startedAt: number; outcome: Outcome }): boolean =>
    s.startedAt >= since && (!served || (s.outcome.kind === 'response' && s.outcome.status < 300));
  return waitUntil(
    `${what} (${n} answers per loop)`,
    () => LOOPS.every((op) => traffic.sent.filter((s) => s.op === op && counts(s)).length >= n),
    20_000,
    100,
  );
}
