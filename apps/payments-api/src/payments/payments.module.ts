import { Module } from '@nestjs/common';
import { CustomersModule } from '../customers/customers.module';
import { PaymentEventsModule } from '../events/payment-events.module';
import { PaymentIntentRecordsModule } from '../payment-intents/payment-intent-records.module';
import { TestModeProcessor } from '../processor/test-mode.processor';
import { AuthorizationExpiryWorker } from './authorization-expiry.worker';
import { AuthorizationsService } from './authorizations.service';
import { PaymentsController } from './payments.controller';
import { PaymentsRepository } from './payments.repository';
import { PaymentsService } from './payments.service';

/**
 * Payments: charges, authorizations and their expiry. Exports the payment rows, their
 * authorizations and PaymentEvents to RefundsModule and `/v1` (a refund locks and updates its
 * payment; a payment intent's confirmation makes a payment).
 */
@Module({
  imports: [CustomersModule, PaymentEventsModule, PaymentIntentRecordsModule],
  controllers: [PaymentsController],
  providers: [PaymentsService, PaymentsRepository, TestModeProcessor, AuthorizationsService, AuthorizationExpiryWorker],
  exports: [PaymentsRepository, PaymentEventsModule, PaymentIntentRecordsModule, AuthorizationsService, TestModeProcessor],
})
export class PaymentsModule {}
