import { Module } from '@nestjs/common';
import { CustomersModule } from '../customers/customers.module';
import { PaymentsModule } from '../payments/payments.module';
import { PaymentIntentsService } from './payment-intents.service';

/**
 * Stripe's PaymentIntents (`/v1` only; the routes are in compat/stripe/payment-intents): each
 * confirmation makes a `/v2` payment through PaymentsModule's rows and authorizations. The
 * intents' rows come from PaymentIntentRecordsModule, re-exported by PaymentsModule.
 */
@Module({
  imports: [PaymentsModule, CustomersModule],
  providers: [PaymentIntentsService],
  exports: [PaymentIntentsService, PaymentsModule],
})
export class PaymentIntentsModule {}
