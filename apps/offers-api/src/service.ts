import type { ServiceDefinition } from '@app/platform';
import { OffersAppModule } from './app.module';
import { OffersConfig } from './config';

export const offersService: ServiceDefinition<OffersConfig> = {
  name: 'offers-api',
  configClass: OffersConfig,
  module: (config) => OffersAppModule.forRoot(config),
  openApi: {
    title: 'offers-api',
    version: '1.0.0',
    description:
      'Offers distribution API: securities offers, indications of interest, allocations and webhooks for distribution partners.',
  },
};
