import { Module } from '@nestjs/common';
import { PaymentAccountsAdminController } from './payment-accounts-admin.controller';
import { PaymentAccountsRepository } from './payment-accounts.repository';
import { PaymentAccountsService } from './payment-accounts.service';
import { PaymentsKeyAuthenticator } from './payments-key.authenticator';

/** Accounts and their keys: the admin route, and PaymentsKeyAuthenticator (registered with AuthModule as kind 'payments_key'). */
@Module({
  controllers: [PaymentAccountsAdminController],
  providers: [PaymentAccountsRepository, PaymentAccountsService, PaymentsKeyAuthenticator],
  exports: [PaymentsKeyAuthenticator, PaymentAccountsRepository],
})
export class AccountsModule {}
