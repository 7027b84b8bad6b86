import { Injectable } from '@nestjs/common';
import { type Prisma, PrismaService, type PrismaTx } from '@app/platform';
import { type Cursor, keyset, type PageRequest } from '../common/list';
import type { Metadata } from '../common/metadata';
import type { Tenant } from '../common/tenant';

export type PaymentRow = Prisma.PaymentGetPayload<object>;

export interface NewPayment {
  id: string;
  customerId: string;
  amount: number;
  currency: string;
  status: 'succeeded' | 'failed';
  description: string | null;
  metadata: Metadata;
  paymentMethod: string;
  failureCode: string | null;
  declineCode: string | null;
  failureMessage: string | null;
}

export interface PaymentFilter {
  customerId?: string;
  createdGte?: Date;
  createdLte?: Date;
}

/** The only file of payments that talks to Prisma; every query is scoped by the tenant. */
@Injectable()
export class PaymentsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * One raw INSERT … RETURNING created_at (filled in by the database) and metadata: the hot
   * path skips Prisma's query compilation (docs/decisions.md 112).
   */
  async create(tx: PrismaTx, tenant: Tenant, data: NewPayment): Promise<PaymentRow> {
    const d = data;
    const rows = await tx.$queryRaw<Array<{ created_at: Date; metadata: PaymentRow['metadata'] }>>`
      INSERT INTO payments (id, account_id, mode, customer_id, amount, currency, status, description, metadata,
                            payment_method, failure_code, decline_code, failure_message)
      VALUES (${d.id}, ${tenant.accountId}, ${tenant.mode}::payment_mode, ${d.customerId}, ${d.amount}, ${d.currency},
              ${d.status}, ${d.description}, ${JSON.stringify(d.metadata)}::jsonb, ${d.paymentMethod}, ${d.failureCode},
              ${d.declineCode}, ${d.failureMessage})
      RETURNING created_at, metadata`;
    const row = rows[0];
    if (!row) throw new Error('INSERT INTO payments returned no row');
    // metadata as jsonb stores it (its key order), as every later read returns it
    return {
      ...d,
      metadata: row.metadata,
      accountId: tenant.accountId,
      mode: tenant.mode,
      amountRefunded: 0,
      createdAt: row.created_at,
    };
  }

  find(tenant: Tenant, id: string): Promise<PaymentRow | null> {
    return this.prisma.payment.findFirst({ where: { id, accountId: tenant.accountId, mode: tenant.mode } });
  }

  /**
   * The payment row locked FOR UPDATE until the transaction ends: concurrent refunds of one
   * payment run one after another, so the refundable balance cannot be overspent.
   */
  async lockForRefund(tx: PrismaTx, tenant: Tenant, id: string): Promise<PaymentRow | null> {
    const locked = await tx.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM payments WHERE id = ${id} AND account_id = ${tenant.accountId} AND mode = ${tenant.mode}::payment_mode FOR UPDATE`;
    if (locked.length === 0) return null;
    return tx.payment.findUnique({ where: { id } });
  }

  addRefunded(tx: PrismaTx, tenant: Tenant, id: string, amount: number): Promise<PaymentRow> {
    return tx.payment.update({
      where: { id, accountId: tenant.accountId, mode: tenant.mode },
      data: { amountRefunded: { increment: amount } },
    });
  }

  cursor(tenant: Tenant, id: string): Promise<Cursor | null> {
    return this.prisma.payment.findFirst({
      where: { id, accountId: tenant.accountId, mode: tenant.mode },
      select: { id: true, createdAt: true },
    });
  }

  list(tenant: Tenant, page: PageRequest, filter: PaymentFilter): Promise<PaymentRow[]> {
    const { where, orderBy, take } = keyset(page);
    const created: Prisma.DateTimeFilter = {};
    if (filter.createdGte) created.gte = filter.createdGte;
    if (filter.createdLte) created.lte = filter.createdLte;
    return this.prisma.payment.findMany({
      where: {
        AND: [
          {
            accountId: tenant.accountId,
            mode: tenant.mode,
            ...(filter.customerId ? { customerId: filter.customerId } : {}),
            ...(filter.createdGte || filter.createdLte ? { createdAt: created } : {}),
          },
          where,
        ],
      },
      orderBy,
      take,
    });
  }
}
