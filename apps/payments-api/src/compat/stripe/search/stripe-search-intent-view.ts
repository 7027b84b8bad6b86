import { unix } from '../stripe-list';
import type { PaymentIntentRow, SearchLatestPayment } from './stripe-search.repository';

/*
 * LEAD, AT MERGE: this file is a stand-in. Replace `searchIntentView` by the intents helper's
 * `paymentIntentView(intent, latest)` (apps/payments-api/src/payment-intents/dto/payment-intent.view.ts,
 * branch wt-intents; same arguments: the intent row and its latest payment) in
 * stripe-payment-intents-search.controller.ts, then delete this file. Until then it shows the
 * fields the search reads (id, object, amount, currency, customer, metadata, status, created)
 * with the same status rule, so the search's tests hold either way.
 */

/** A payment intent found by a search, as `/v1` shows it (the stand-in's fields). */
export interface SearchIntentView {
  readonly [field: string]: unknown;
  readonly id: string;
  readonly object: 'payment_intent';
  readonly status: string;
}

/** The status `/v1` shows: the latest payment's unless it failed (or there is none), else the intent's own. */
export function searchIntentStatus(own: string, latest: Pick<SearchLatestPayment, 'status'> | null): string {
  return latest !== null && latest.status !== 'failed' ? latest.status : own;
}

export function searchIntentView(intent: PaymentIntentRow, latest: SearchLatestPayment | null): SearchIntentView {
  const status = searchIntentStatus(intent.status, latest);
  return {
    id: intent.id,
    object: 'payment_intent',
    amount: intent.amount,
    amount_capturable: status === 'requires_capture' && latest ? latest.amountCapturable : 0,
    amount_received: status === 'succeeded' && latest ? latest.amountReceived : 0,
    capture_method: intent.captureMethod,
    created: unix(intent.createdAt),
    currency: intent.currency,
    customer: intent.customerId,
    description: intent.description,
    latest_charge: latest?.id ?? null,
    livemode: intent.mode === 'live',
    metadata: intent.metadata,
    payment_method: intent.paymentMethod,
    status,
  };
}
