import type { ServiceDefinition } from '@app/platform';
import { OFFERS_ERRORS } from './errors';
import { OffersAppModule } from './app.module';
import { OffersConfig } from './config';

export const offersService: ServiceDefinition<OffersConfig> = {
  name: 'offers-api',
  configClass: OffersConfig,
  module: (config) => OffersAppModule.forRoot(config),
  errors: OFFERS_ERRORS,
  openApi: {
    configure: (builder) =>
      builder.addBearerAuth(
        { type: 'http', scheme: 'bearer', description: 'OAuth 2.0 access token from POST /oauth/token' },
        'partner',
      ),
    credentialErrors: { partner: ['invalid_token'] },
    title: 'offers-api',
    version: '1.0.0',
    description:
      'Offers distribution API: securities offers, indications of interest, allocations and webhooks for distribution partners.',
  },
};
