import { PlatformModule } from '@app/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import { VectorConfig } from './config';

@Module({})
export class VectorAppModule {
  static forRoot(config: VectorConfig): DynamicModule {
    return {
      module: VectorAppModule,
      imports: [PlatformModule.forRoot({ service: 'vector-api', config })],
    };
  }
}
