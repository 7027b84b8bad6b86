import { Module } from '@nestjs/common';
import { WebhooksModule } from '@app/webhooks';
import { PAYMENT_EVENT_KINDS, PaymentEvents } from '../common/events';
import { EventsController } from '../events/events.controller';
import { CustomersModule } from '../customers/customers.module';
import { WebhookEndpointsController } from '../webhook-endpoints/webhook-endpoints.controller';
import { PAYMENTS_WEBHOOK_OWNER } from '../webhook-endpoints/webhook-owner';
import { TestModeProcessor } from '../processor/test-mode.processor';
import { AuthorizationExpiryWorker } from './authorization-expiry.worker';
import { AuthorizationsService } from './authorizations.service';
import { PaymentsController } from './payments.controller';
import { PaymentsRepository } from './payments.repository';
import { PaymentsService } from './payments.service';

/**
 * Payments and their webhooks: the outbox, delivery and `/v2/webhook-endpoints`. Exports
 * the payment rows and PaymentEvents to RefundsModule (a refund locks and updates its payment).
 */
@Module({
  imports: [
    CustomersModule,
    WebhooksModule.forRoot({
      ownerType: PAYMENTS_WEBHOOK_OWNER,
      events: Object.values(PAYMENT_EVENT_KINDS),
      controllers: [WebhookEndpointsController, EventsController],
    }),
  ],
  controllers: [PaymentsController],
  providers: [
    PaymentsService,
    PaymentsRepository,
    TestModeProcessor,
    PaymentEvents,
    AuthorizationsService,
    AuthorizationExpiryWorker,
  ],
  exports: [PaymentsRepository, PaymentEvents],
})
export class PaymentsModule {}
