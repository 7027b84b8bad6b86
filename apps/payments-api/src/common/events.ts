import { Injectable } from '@nestjs/common';
import type { PrismaTx } from '@app/platform';
import { WebhookEmitter } from '@app/webhooks';
import { PAYMENTS_WEBHOOK_OWNER, paymentsOwnerId } from '../webhook-endpoints/webhook-owner';
import type { Tenant } from './tenant';

export const PAYMENT_EVENT_TYPES = ['payment.succeeded', 'payment.failed', 'refund.succeeded'] as const;
export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];

/** Payments' events, written to the webhooks outbox inside the transaction of the change. */
@Injectable()
export class PaymentEvents {
  constructor(private readonly emitter: WebhookEmitter) {}

  emit(tx: PrismaTx, tenant: Tenant, event: PaymentEventType, data: object): Promise<string> {
    return this.emitter.emit(tx, {
      ownerType: PAYMENTS_WEBHOOK_OWNER,
      ownerId: paymentsOwnerId(tenant.accountId, tenant.mode),
      event,
      data: data as Record<string, unknown>,
    });
  }
}
