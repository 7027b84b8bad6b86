import { Injectable } from '@nestjs/common';
import { apiKeyHash, newOpaqueSecret } from '@app/auth';
import { Clock, newId, TransactionRunner } from '@app/platform';
import { type ListQuery, page, resolvePage } from '../common/list';
import {
  type PaymentAccountCreatedDto,
  type PaymentAccountListDto,
  type PaymentAccountListQueryDto,
  toPaymentAccountDto,
} from './dto/payment-account.dto';
import { PaymentAccountsRepository } from './payment-accounts.repository';

/** Payment accounts for the admin API. Keys are returned once, then only their hashes exist. */
@Injectable()
export class PaymentAccountsService {
  constructor(
    private readonly repository: PaymentAccountsRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  /**
   * The operator's list: newest first, `starting_after` any account's id (an unknown one is a
   * 400 resource_missing naming it, as every list of this service answers), each account with
   * its working keys by mode (docs/decisions.md 389–398).
   */
  async list(query: PaymentAccountListQueryDto): Promise<PaymentAccountListDto> {
    const cursorQuery: ListQuery = {
      limit: query.limit,
      ...(query.starting_after === undefined ? {} : { starting_after: query.starting_after }),
      ...(query.ending_before === undefined ? {} : { ending_before: query.ending_before }),
    };
    const request = await resolvePage(cursorQuery, 'account', (id) => this.repository.accountCursor(id));
    const rows = await this.repository.adminPage(
      {
        take: request.limit + 1,
        ...(request.after === undefined ? {} : { after: request.after }),
        ...(request.before === undefined ? {} : { before: request.before }),
        ...(query.name_prefix === undefined ? {} : { namePrefix: query.name_prefix }),
      },
      this.clock.now(),
    );
    return page(rows, request, '/admin/v1/accounts', toPaymentAccountDto);
  }

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
