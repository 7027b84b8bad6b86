import { Injectable } from '@nestjs/common';
import type { ConsoleAdminTenant, ConsoleTenant, ConsoleTenants } from '@app/console';
import { PaymentAccountsRepository } from './payment-accounts.repository';

/** How the admin console routes (console-links, console-sessions) name a payments account. */
export const ACCOUNT_CONSOLE_ADMIN: ConsoleAdminTenant = {
  idField: 'account_id',
  noun: 'payments account',
  example: 'acct_4hXk2mQw8Zx1Lc7Vb4nTp9Yd',
};

/** Payments accounts, as the console signs in to them. */
@Injectable()
export class AccountConsoleTenants implements ConsoleTenants {
  readonly idField = ACCOUNT_CONSOLE_ADMIN.idField;
  constructor(private readonly accounts: PaymentAccountsRepository) {}

  describe(tenantId: string): Promise<ConsoleTenant | null> {
    return this.accounts.findAccount(tenantId);
  }
}
