import type { ServiceDefinition } from '@app/platform';
import { PaymentsAppModule } from './app.module';
import { PaymentsConfig } from './config';

export const paymentsService: ServiceDefinition<PaymentsConfig> = {
  name: 'payments-api',
  configClass: PaymentsConfig,
  module: (config) => PaymentsAppModule.forRoot(config),
  openApi: {
    title: 'payments-api',
    version: '1.0.0',
    description: 'Payments API: customers, payments, refunds and webhooks, with test and live keys and idempotent writes.',
  },
};
