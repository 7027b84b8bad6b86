import type { ServiceDefinition } from '@app/platform';
import { PAYMENTS_ERRORS } from './errors';
import { PaymentsAppModule } from './app.module';
import { PaymentsConfig } from './config';

export const paymentsService: ServiceDefinition<PaymentsConfig> = {
  name: 'payments-api',
  configClass: PaymentsConfig,
  module: (config) => PaymentsAppModule.forRoot(config),
  errors: PAYMENTS_ERRORS,
  openApi: {
    configure: (builder) =>
      builder.addSecurity('payments_key', { type: 'http', scheme: 'bearer', description: 'sk_test_… or sk_live_… key' }),
    credentialErrors: { payments_key: ['invalid_api_key'] },
    title: 'payments-api',
    version: '1.0.0',
    description: 'Payments API: customers, payments, refunds and webhooks, with test and live keys and idempotent writes.',
  },
};
