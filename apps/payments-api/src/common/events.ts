import { Injectable } from '@nestjs/common';
import { type Closing, currentTraceCarrier } from '@app/platform';
import { eventKind, WebhookEmitter } from '@app/webhooks';
import { PaymentView, paymentView } from '../payments/dto/payment.view';
import type { PaymentRow } from '../payments/payments.repository';
import { RefundView, refundView } from '../refunds/dto/refund.view';
import { PAYMENTS_WEBHOOK_OWNER, paymentsOwnerId } from '../webhook-endpoints/webhook-owner';
import { type StripeEventInput, stripeEventData } from '../compat/stripe/stripe-event-types';
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
  captureMethod: 'automatic',
  amountCapturable: 0,
  amountReceived: 2_000,
  captureBefore: null,
  capturedAt: new Date('2026-11-20T10:00:00.000Z'),
  canceledAt: null,
  cancellationReason: null,
  paymentIntentId: null,
  createdAt: new Date('2026-11-20T10:00:00.000Z'),
};

/** The example payment authorized with capture_method manual, as created. */
const EXAMPLE_AUTHORIZATION: PaymentRow = {
  ...EXAMPLE_PAYMENT,
  status: 'requires_capture',
  captureMethod: 'manual',
  amountCapturable: 2_000,
  amountReceived: 0,
  captureBefore: new Date('2026-11-27T10:00:00.000Z'),
  capturedAt: null,
};

/**
 * Every kind of event payments-api emits, with the class that documents its `data` and an
 * example made by the view function the emitting code calls: the catalogue of
 * `GET /v2/webhook-endpoints/event-types`.
 */
export const PAYMENT_EVENT_KINDS = {
  'payment.succeeded': eventKind({
    type: 'payment.succeeded',
    description: 'A payment succeeded: charged with capture_method automatic, or an authorization captured. data: the Payment.',
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
  'payment.requires_capture': eventKind({
    type: 'payment.requires_capture',
    description:
      'A payment with capture_method manual was authorized and waits for capture or cancel (until capture_before). data: the Payment.',
    data: PaymentView,
    example: () => paymentView(EXAMPLE_AUTHORIZATION),
  }),
  'payment.captured': eventKind({
    type: 'payment.captured',
    description:
      'An authorization was captured (in full or in part: amount_received); payment.succeeded follows in the same transaction. data: the Payment.',
    data: PaymentView,
    example: () =>
      paymentView({
        ...EXAMPLE_AUTHORIZATION,
        status: 'succeeded',
        amountCapturable: 0,
        amountReceived: 1_500,
        capturedAt: new Date('2026-11-21T09:00:00.000Z'),
      }),
  }),
  'payment.canceled': eventKind({
    type: 'payment.canceled',
    description:
      'An authorization was released without capture: canceled by request, or expired (cancellation_reason automatic). data: the Payment.',
    data: PaymentView,
    example: () =>
      paymentView({
        ...EXAMPLE_AUTHORIZATION,
        status: 'canceled',
        amountCapturable: 0,
        canceledAt: new Date('2026-11-27T10:00:00.000Z'),
        cancellationReason: 'automatic',
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
        metadata: { ticket: 'T-881' },
        createdAt: new Date('2026-11-21T08:30:00.000Z'),
      }),
  }),
} as const;

export type PaymentEventType = keyof typeof PAYMENT_EVENT_KINDS;
/** The `data` an event kind carries: an instance of its catalogue class. */
export type PaymentEventData<K extends PaymentEventType> = InstanceType<(typeof PAYMENT_EVENT_KINDS)[K]['data']>;

/**
 * Payments' events: each an outbox row written with the last statement of the change's
 * transaction (its Closing), with the trace context of the code that made the change (its
 * delivery continues that trace). One row per event, seen by both APIs: its `/v2` kind and data,
 * and, where `/v1` has it, its Stripe type and `/v1` object (`stripe`).
 */
@Injectable()
export class PaymentEvents {
  constructor(private readonly emitter: WebhookEmitter) {}

  emit<K extends PaymentEventType>(
    closing: Closing,
    tenant: Tenant,
    event: K,
    data: PaymentEventData<K>,
    stripe?: StripeEventInput,
  ): string {
    return this.emitter.emit(
      closing,
      {
        ...owner(tenant),
        event,
        data: { ...data },
        ...(stripe === undefined ? {} : { dialect: { event: stripe.type, data: stripeEventData(stripe) } }),
      },
      currentTraceCarrier(),
    );
  }

  /** An event `/v1` has and `/v2` has not (customer.*, payment_intent.created, refund.updated, …). */
  emitStripe(closing: Closing, tenant: Tenant, stripe: StripeEventInput): string {
    return this.emitter.emit(
      closing,
      { ...owner(tenant), event: null, data: null, dialect: { event: stripe.type, data: stripeEventData(stripe) } },
      currentTraceCarrier(),
    );
  }
}

function owner(tenant: Tenant): { ownerType: string; ownerId: string } {
  return { ownerType: PAYMENTS_WEBHOOK_OWNER, ownerId: paymentsOwnerId(tenant.accountId, tenant.mode) };
}
