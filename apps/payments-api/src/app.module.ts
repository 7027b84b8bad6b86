import { PlatformModule } from '@app/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import { PaymentsConfig } from './config';

@Module({})
export class PaymentsAppModule {
  static forRoot(config: PaymentsConfig): DynamicModule {
    return {
      module: PaymentsAppModule,
      imports: [PlatformModule.forRoot({ service: 'payments-api', config })],
    };
  }
}
