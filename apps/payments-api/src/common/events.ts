import { Injectable } from '@nestjs/common';
import type { PrismaTx } from '@app/platform';
import { eventKind, WebhookEmitter } from '@app/webhooks';
import { PaymentView, paymentView } from '../payments/dto/payment.view';
import type { PaymentRow } from '../payments/payments.repository';
import { RefundView, refundView } from '../refunds/dto/refund.view';
import { PAYMENTS_WEBHOOK_OWNER, paymentsOwnerId } from '../webhook-endpoints/webhook-owner';
import type { Tenant } from './tenant';

/** The payment every example of the catalogue is about (fixed values: an example, not a real payment). */
const EXAMPLE_PAYMENT: PaymentRow = {
  id: 'pay_3MtwBwLkdIwHu7ix28a3tqPa',
  accountId: 'acct_example',
  mode: 'test',
  customerId: 'cus_NffrFeUfNV2Hib',
  amount: 2_000,
  currency: 'gbp',
  status: 'succeeded',
  description: 'Order 1042',
  metadata: { order_id: '1042' },
  paymentMethod: 'pm_card_visa',
  failureCode: null,
  declineCode: null,
  failureMessage: null,
  amountRefunded: 0,
  createdAt: new Date('2026-11-20T10:00:00.000Z'),
};

/**
 * Every kind of event payments-api emits, with the class that documents its `data` and an
 * example made by the view function the emitting code calls: the catalogue of
 * `GET /v2/webhook-endpoints/event-types`.
 */
export const PAYMENT_EVENT_KINDS = {
  'payment.succeeded': eventKind({
    type: 'payment.succeeded',
    description: 'A payment succeeded. data: the Payment.',
    data: PaymentView,
    example: () => paymentView(EXAMPLE_PAYMENT),
  }),
  'payment.failed': eventKind({
    type: 'payment.failed',
    description: 'A payment was declined. data: the Payment, with failure_code, decline_code and failure_message.',
    data: PaymentView,
    example: () =>
      paymentView({
        ...EXAMPLE_PAYMENT,
        status: 'failed',
        paymentMethod: 'pm_card_insufficient_funds',
        failureCode: 'card_declined',
        declineCode: 'insufficient_funds',
        failureMessage: 'Your card has insufficient funds.',
      }),
  }),
  'refund.succeeded': eventKind({
    type: 'refund.succeeded',
    description: 'A refund of a payment succeeded. data: the Refund.',
    data: RefundView,
    example: () =>
      refundView({
        id: 're_1NispeLkdIwHu7ixQq0Rhq7T',
        accountId: EXAMPLE_PAYMENT.accountId,
        mode: 'test',
        paymentId: EXAMPLE_PAYMENT.id,
        amount: 500,
        currency: 'gbp',
        status: 'succeeded',
        reason: 'requested_by_customer',
        createdAt: new Date('2026-11-21T08:30:00.000Z'),
      }),
  }),
} as const;

export type PaymentEventType = keyof typeof PAYMENT_EVENT_KINDS;
/** The `data` an event kind carries: an instance of its catalogue class. */
export type PaymentEventData<K extends PaymentEventType> = InstanceType<(typeof PAYMENT_EVENT_KINDS)[K]['data']>;

/** Payments' events, written to the webhooks outbox inside the transaction of the change. */
@Injectable()
export class PaymentEvents {
  constructor(private readonly emitter: WebhookEmitter) {}

  emit<K extends PaymentEventType>(tx: PrismaTx, tenant: Tenant, event: K, data: PaymentEventData<K>): Promise<string> {
    return this.emitter.emit(tx, {
      ownerType: PAYMENTS_WEBHOOK_OWNER,
      ownerId: paymentsOwnerId(tenant.accountId, tenant.mode),
      event,
      data: { ...data },
    });
  }
}
