import { AuthModule } from '@app/auth';
import { PlatformModule } from '@app/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import { PaymentsConfig } from './config';
import { CustomersModule } from './customers/customers.module';
import { PaymentsModule } from './payments/payments.module';
import { RefundsModule } from './refunds/refunds.module';

@Module({})
export class PaymentsAppModule {
  static forRoot(config: PaymentsConfig): DynamicModule {
    return {
      module: PaymentsAppModule,
      imports: [
        PlatformModule.forRoot({ service: 'payments-api', config }),
        AuthModule.forRoot({
          service: 'payments',
          rateLimit: { perPrincipal: config.PAYMENTS_RATE_LIMIT_PER_MINUTE, windowSeconds: 60 },
        }),
        CustomersModule,
        PaymentsModule,
        RefundsModule,
      ],
    };
  }
}
