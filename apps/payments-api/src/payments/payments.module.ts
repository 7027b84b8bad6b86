import { Module } from '@nestjs/common';
import { WebhooksModule } from '@app/webhooks';
import { PAYMENT_EVENT_TYPES, PaymentEvents } from '../common/events';
import { CustomersModule } from '../customers/customers.module';
import { WebhookEndpointsController } from '../webhook-endpoints/webhook-endpoints.controller';
import { PAYMENTS_WEBHOOK_OWNER } from '../webhook-endpoints/webhook-owner';
import { TestModeProcessor } from '../processor/test-mode.processor';
import { RefundsController } from '../refunds/refunds.controller';
import { RefundsRepository } from '../refunds/refunds.repository';
import { RefundsService } from '../refunds/refunds.service';
import { PaymentsController } from './payments.controller';
import { PaymentsRepository } from './payments.repository';
import { PaymentsService } from './payments.service';

/**
 * Payments and their refunds (refunds lock and update the payment row, so they live
 * together), and their webhooks: the outbox, delivery and `/v2/webhook-endpoints`.
 */
@Module({
  imports: [
    CustomersModule,
    WebhooksModule.forRoot({
      ownerType: PAYMENTS_WEBHOOK_OWNER,
      eventTypes: PAYMENT_EVENT_TYPES,
      controllers: [WebhookEndpointsController],
    }),
  ],
  controllers: [PaymentsController, RefundsController],
  providers: [PaymentsService, PaymentsRepository, RefundsService, RefundsRepository, TestModeProcessor, PaymentEvents],
})
export class PaymentsModule {}
