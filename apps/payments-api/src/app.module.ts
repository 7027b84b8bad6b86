import { ConsoleModule } from '@app/console';
import { AccountConsoleTenants } from './accounts/account-console.tenants';
import { ConsoleLinksAdminController } from './console-links/console-links-admin.controller';
import { ConsoleSessionsAdminController } from './console-sessions/console-sessions-admin.controller';
import { AuthModule } from '@app/auth';
import { PlatformModule } from '@app/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import { AccountsModule } from './accounts/accounts.module';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { PAYMENTS_CREDENTIAL_KINDS } from './accounts/credential-kinds';
import { PaymentsKeyAuthenticator } from './accounts/payments-key.authenticator';
import { PaymentsConfig } from './config';
import { CustomersModule } from './customers/customers.module';
import { PaymentsModule } from './payments/payments.module';
import { RefundsModule } from './refunds/refunds.module';
import { StripeModule } from './compat/stripe/stripe.module';

@Module({})
export class PaymentsAppModule {
  static forRoot(config: PaymentsConfig): DynamicModule {
    return {
      module: PaymentsAppModule,
      imports: [
        PlatformModule.forRoot({ service: 'payments-api', config, credentialKinds: PAYMENTS_CREDENTIAL_KINDS }),
        AuthModule.forRoot({
          authenticators: [PaymentsKeyAuthenticator],
          rateLimit: {
            namespace: 'payments',
            policyFor: () => ({ name: 'default', limit: config.PAYMENTS_RATE_LIMIT_PER_MINUTE, windowSeconds: 60 }),
          },
        }),
        AccountsModule,
        ApiKeysModule,
        CustomersModule,
        PaymentsModule,
        RefundsModule,
        StripeModule,
        ConsoleModule.forRoot({
          tenants: AccountConsoleTenants,
          imports: [AccountsModule],
          controllers: [ConsoleLinksAdminController, ConsoleSessionsAdminController],
        }),
      ],
    };
  }
}
