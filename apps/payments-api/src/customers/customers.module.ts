import { Module } from '@nestjs/common';
import { PaymentEventsModule } from '../events/payment-events.module';
import { CustomersController } from './customers.controller';
import { CustomersRepository } from './customers.repository';
import { CustomersService } from './customers.service';

@Module({
  imports: [PaymentEventsModule],
  controllers: [CustomersController],
  providers: [CustomersService, CustomersRepository],
  exports: [CustomersRepository, CustomersService],
})
export class CustomersModule {}
