import { Module } from '@nestjs/common';
import { PaymentsWebhookEndpointsController, WebhooksModule } from '@app/webhooks';
import { PAYMENT_EVENT_TYPES, PaymentEvents } from '../common/events';
import { CustomersModule } from '../customers/customers.module';
import { TestModeProcessor } from '../processor/test-mode.processor';
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
      ownerType: 'payments_account',
      eventTypes: PAYMENT_EVENT_TYPES,
      controllers: [PaymentsWebhookEndpointsController],
    }),
  ],
  controllers: [PaymentsController],
  providers: [PaymentsService, PaymentsRepository, TestModeProcessor, PaymentEvents],
  exports: [PaymentsRepository, PaymentEvents],
})
export class PaymentsModule {}
