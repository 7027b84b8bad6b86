import { PlatformModule } from '@app/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import { OffersConfig } from './config';

@Module({})
export class OffersAppModule {
  static forRoot(config: OffersConfig): DynamicModule {
    return {
      module: OffersAppModule,
      imports: [PlatformModule.forRoot({ service: 'offers-api', config })],
    };
  }
}
