import { Injectable } from '@nestjs/common';
import type { ConsoleTenant, ConsoleTenants } from '@app/console';
import { PaymentAccountsRepository } from './payment-accounts.repository';

/** Payments accounts, as the console signs in to them. */
@Injectable()
export class AccountConsoleTenants implements ConsoleTenants {
  readonly idField = 'account_id';
  constructor(private readonly accounts: PaymentAccountsRepository) {}

  describe(tenantId: string): Promise<ConsoleTenant | null> {
    return this.accounts.findAccount(tenantId);
  }
}
