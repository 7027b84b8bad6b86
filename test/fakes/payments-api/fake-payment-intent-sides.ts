import type { SqlTx } from '@app/platform';
import type { PaymentEventType } from '../../../apps/payments-api/src/common/events';
import type { StripeEventInput } from '../../../apps/payments-api/src/compat/stripe/stripe-event-types';
import type { PaymentIntentSides } from '../../../apps/payments-api/src/payment-intents/payment-intent-sides';
import type { PaymentRow } from '../../../apps/payments-api/src/payments/payments.repository';
import type { FakeTransactionRunner } from '../fake-transaction-runner';
import type { Surface } from '../typed-fake';

/**
 * PaymentIntentSides for the payments and refunds unit specs, whose payments are made through
 * /v2: none has an intent, so no event has a /v1 side. A payment naming an intent fails the
 * test (intents are covered against PostgreSQL: test/payments-api/stripe).
 */
export class FakePaymentIntentSides implements Surface<PaymentIntentSides> {
  constructor(private readonly transactions: FakeTransactionRunner) {}

  ofPayment(tx: SqlTx, _event: PaymentEventType, payment: PaymentRow): Promise<StripeEventInput | undefined> {
    this.transactions.assertOpen(tx);
    if (payment.paymentIntentId !== null) throw new Error(`the unit fakes hold no payment intents (${payment.paymentIntentId})`);
    return Promise.resolve(undefined);
  }
}
