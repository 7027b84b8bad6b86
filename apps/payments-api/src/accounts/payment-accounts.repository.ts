import { Injectable } from '@nestjs/common';
import { PrismaService, type PrismaTx } from '@app/platform';
import type { PaymentsMode } from './payments-key.principal';

export interface PaymentAccountRecord {
  id: string;
  name: string;
  createdAt: Date;
}

export interface NewPaymentKey {
  readonly id: string;
  readonly mode: PaymentsMode;
  readonly keyHash: string;
}

/** Payment accounts and their API keys; only a key's SHA-256 is stored. */
@Injectable()
export class PaymentAccountsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(tx: PrismaTx, id: string, name: string, keys: readonly NewPaymentKey[]): Promise<PaymentAccountRecord> {
    return tx.paymentAccount.create({
      data: { id, name, keys: { create: keys.map((k) => ({ id: k.id, mode: k.mode, keyHash: k.keyHash })) } },
      select: { id: true, name: true, createdAt: true },
    });
  }

  findActiveKey(keyHash: string): Promise<{ id: string; accountId: string; mode: PaymentsMode } | null> {
    return this.prisma.paymentApiKey.findFirst({
      where: { keyHash, revokedAt: null },
      select: { id: true, accountId: true, mode: true },
    });
  }
}
