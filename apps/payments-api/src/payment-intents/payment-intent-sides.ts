import { Injectable } from '@nestjs/common';
import type { SqlTx } from '@app/platform';
import type { PaymentEventType } from '../common/events';
import type { StripeEventInput, StripeEventType } from '../compat/stripe/stripe-event-types';
import type { PaymentRow } from '../payments/payments.repository';
import { paymentIntentView } from './dto/payment-intent.view';
import { PaymentIntentsRepository } from './payment-intents.repository';

/** The `/v1` event of a payment's `/v2` event when the payment belongs to an intent (issue 35's mapping). */
export const INTENT_EVENT_OF: Readonly<Record<PaymentEventType, StripeEventType | null>> = {
  'payment.succeeded': 'payment_intent.succeeded',
  'payment.failed': 'payment_intent.payment_failed',
  'payment.requires_capture': 'payment_intent.amount_capturable_updated',
  'payment.canceled': 'payment_intent.canceled',
  // /v2 only: payment.succeeded follows a capture in the same transaction and carries payment_intent.succeeded
  'payment.captured': null,
  // a refund's /v1 side is refund.created (the refund object, not the intent): RefundsService
  'refund.succeeded': null,
};

/**
 * Makes the `/v1` side of an event about a payment: for a payment made by confirming an
 * intent, the intent as it is after the change (read in the change's transaction, after the
 * payment row was locked and updated). Payments made through `/v2` have none.
 */
@Injectable()
export class PaymentIntentSides {
  constructor(private readonly intents: PaymentIntentsRepository) {}

  async ofPayment(tx: SqlTx, event: PaymentEventType, payment: PaymentRow): Promise<StripeEventInput | undefined> {
    const type = INTENT_EVENT_OF[event];
    if (type === null || payment.paymentIntentId === null) return undefined;
    const intent = await this.intents.forPayment(tx, payment.paymentIntentId);
    return { type, object: { ...paymentIntentView(intent, intent.latestPaymentId === payment.id ? payment : null) } };
  }
}
