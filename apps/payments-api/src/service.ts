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
      builder
        .addSecurity('payments_key', {
          type: 'http',
          scheme: 'bearer',
          description: 'sk_test_… / sk_live_… secret key, or rk_test_… / rk_live_… restricted key',
        })
        .addSecurity('stripe_basic', {
          type: 'http',
          scheme: 'basic',
          description: "Stripe's /v1 also takes the key as an HTTP Basic user name with no password (curl -u sk_test_…:)",
        }),
    credentialErrors: { payments_key: ['invalid_api_key'], stripe_basic: ['invalid_api_key'] },
    title: 'payments-api',
    version: '1.0.0',
    description: 'Payments API: customers, payments, refunds and webhooks, with test and live keys and idempotent writes.',
  },
};
