import { Module } from '@nestjs/common';
import { WebhooksModule } from '@app/webhooks';
import { PAYMENT_EVENT_KINDS, PaymentEvents } from '../common/events';
import { STRIPE_WEBHOOK_DIALECT } from '../compat/stripe/stripe-webhook-dialect';
import { WebhookEndpointsController } from '../webhook-endpoints/webhook-endpoints.controller';
import { PAYMENTS_WEBHOOK_OWNER } from '../webhook-endpoints/webhook-owner';
import { EventsController } from './events.controller';

/**
 * The account's events and webhooks: the outbox, delivery, `/v2/webhook-endpoints`,
 * `/v2/events`, and Stripe's dialect for `/v1` (docs/stripe.md). Exports PaymentEvents to
 * every module whose writes fire events (customers, payments, refunds, payment intents) and
 * the webhooks library's services to `/v1`'s own routes.
 */
@Module({
  imports: [
    WebhooksModule.forRoot({
      ownerType: PAYMENTS_WEBHOOK_OWNER,
      events: Object.values(PAYMENT_EVENT_KINDS),
      controllers: [WebhookEndpointsController, EventsController],
      dialect: STRIPE_WEBHOOK_DIALECT,
    }),
  ],
  providers: [PaymentEvents],
  exports: [PaymentEvents, WebhooksModule],
})
export class PaymentEventsModule {}
