import { Injectable } from '@nestjs/common';
import { apiKeyHash, newOpaqueSecret } from '@app/auth';
import { newId, TransactionRunner } from '@app/platform';
import type { PaymentAccountCreatedDto } from './dto/payment-account.dto';
import { PaymentAccountsRepository } from './payment-accounts.repository';

/** Payment accounts for the admin API. Keys are returned once, then only their hashes exist. */
@Injectable()
export class PaymentAccountsService {
  constructor(
    private readonly repository: PaymentAccountsRepository,
    private readonly transactions: TransactionRunner,
  ) {}

  /** A new account with one test and one live key. */
  async create(name: string): Promise<PaymentAccountCreatedDto> {
    const testKey = newOpaqueSecret('sk_test_');
    const liveKey = newOpaqueSecret('sk_live_');
    const account = await this.transactions.run((tx) =>
      this.repository.create(tx, newId('acct'), name, [
        { id: newId('key'), mode: 'test', keyHash: apiKeyHash(testKey), last4: testKey.slice(-4) },
        { id: newId('key'), mode: 'live', keyHash: apiKeyHash(liveKey), last4: liveKey.slice(-4) },
      ]),
    );
    return {
      id: account.id,
      name: account.name,
      test_key: testKey,
      live_key: liveKey,
      created_at: account.createdAt.toISOString(),
    };
  }
}
