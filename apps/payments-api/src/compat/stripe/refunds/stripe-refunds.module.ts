import { Module } from '@nestjs/common';
import { PaymentIntentsModule } from '../../../payment-intents/payment-intents.module';
import { RefundsModule } from '../../../refunds/refunds.module';
import { StripeRefundsController } from './stripe-refunds.controller';

/** `/v1/refunds` (imported by StripeModule). */
@Module({
  imports: [RefundsModule, PaymentIntentsModule],
  controllers: [StripeRefundsController],
})
export class StripeRefundsModule {}
