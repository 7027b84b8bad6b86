import { Module } from '@nestjs/common';
import { CustomersModule } from '../../../customers/customers.module';
import { PaymentIntentsModule } from '../../../payment-intents/payment-intents.module';
import { StripePaymentIntentsController } from './stripe-payment-intents.controller';

/** `/v1/payment_intents` (imported by StripeModule). */
@Module({
  imports: [PaymentIntentsModule, CustomersModule],
  controllers: [StripePaymentIntentsController],
})
export class StripePaymentIntentsModule {}
