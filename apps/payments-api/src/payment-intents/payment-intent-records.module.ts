import { Module } from '@nestjs/common';
import { PaymentIntentSides } from './payment-intent-sides';
import { PaymentIntentsRepository } from './payment-intents.repository';

/**
 * The intents' rows, for PaymentsModule and RefundsModule too: their events about an intent's
 * payment carry the intent's `/v1` side. PaymentIntentsModule (which makes payments) imports
 * PaymentsModule, so the rows live in this module of their own to keep the imports one-way.
 */
@Module({
  providers: [PaymentIntentsRepository, PaymentIntentSides],
  exports: [PaymentIntentsRepository, PaymentIntentSides],
})
export class PaymentIntentRecordsModule {}
