import { Module } from '@nestjs/common';
import { PaymentsModule } from '../payments/payments.module';
import { RefundsController } from './refunds.controller';
import { RefundsRepository } from './refunds.repository';
import { RefundsService } from './refunds.service';

/** Refunds: each locks and updates its payment's row (PaymentsRepository) and emits through PaymentEvents. */
@Module({
  imports: [PaymentsModule],
  controllers: [RefundsController],
  providers: [RefundsService, RefundsRepository],
  exports: [RefundsService],
})
export class RefundsModule {}
