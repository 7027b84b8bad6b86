import { Injectable } from '@nestjs/common';
import { type Prisma, PrismaService, type Tx } from '@app/platform';
import { type Cursor, keyset, type PageRequest } from '../common/list';
import type { Metadata } from '../common/metadata';
import type { Tenant } from '../common/tenant';

export type RefundRow = Prisma.RefundGetPayload<object>;

/** The only file of refunds that talks to Prisma; every query is scoped by the tenant. */
@Injectable()
export class RefundsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(
    tx: Tx,
    tenant: Tenant,
    data: { id: string; paymentId: string; amount: number; currency: string; reason: string | null; metadata: Metadata },
  ): Promise<RefundRow> {
    return tx.refund.create({ data: { ...data, status: 'succeeded', accountId: tenant.accountId, mode: tenant.mode } });
  }

  /** The refund row locked FOR UPDATE until the transaction ends (a metadata merge is read-modify-write). */
  async lock(tx: Tx, tenant: Tenant, id: string): Promise<RefundRow | null> {
    const locked = await tx.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM refunds WHERE id = ${id} AND account_id = ${tenant.accountId} AND mode = ${tenant.mode}::payment_mode FOR UPDATE`;
    if (locked.length === 0) return null;
    return tx.refund.findUnique({ where: { id } });
  }

  updateMetadata(tx: Tx, tenant: Tenant, id: string, metadata: Metadata): Promise<RefundRow> {
    return tx.refund.update({ where: { id, accountId: tenant.accountId, mode: tenant.mode }, data: { metadata } });
  }

  find(tenant: Tenant, id: string): Promise<RefundRow | null> {
    return this.prisma.refund.findFirst({ where: { id, accountId: tenant.accountId, mode: tenant.mode } });
  }

  cursor(tenant: Tenant, id: string): Promise<Cursor | null> {
    return this.prisma.refund.findFirst({
      where: { id, accountId: tenant.accountId, mode: tenant.mode },
      select: { id: true, createdAt: true },
    });
  }

  list(tenant: Tenant, page: PageRequest, paymentId?: string): Promise<RefundRow[]> {
    const { where, orderBy, take } = keyset(page);
    return this.prisma.refund.findMany({
      where: { AND: [{ accountId: tenant.accountId, mode: tenant.mode, ...(paymentId ? { paymentId } : {}) }, where] },
      orderBy,
      take,
    });
  }

  /** The intent the refunded payment confirmed (null: a payment made through /v2). */
  async paymentIntentIdOf(tx: Tx, refund: RefundRow): Promise<string | null> {
    const payment = await tx.payment.findUnique({ where: { id: refund.paymentId }, select: { paymentIntentId: true } });
    return payment?.paymentIntentId ?? null;
  }

  /** A refund of one of the tenant's intents' payments, with the intent's id (what /v1 shows). */
  async findOfIntent(tenant: Tenant, id: string): Promise<{ row: RefundRow; paymentIntentId: string } | null> {
    const found = await this.prisma.refund.findFirst({
      where: { id, accountId: tenant.accountId, mode: tenant.mode, payment: { paymentIntentId: { not: null } } },
      include: { payment: { select: { paymentIntentId: true } } },
    });
    return found ? withIntent(found) : null;
  }

  cursorOfIntent(tenant: Tenant, id: string): Promise<Cursor | null> {
    return this.prisma.refund.findFirst({
      where: { id, accountId: tenant.accountId, mode: tenant.mode, payment: { paymentIntentId: { not: null } } },
      select: { id: true, createdAt: true },
    });
  }

  /** Refunds of the tenant's intents' payments (of one intent), newest first by keyset. */
  async listOfIntents(
    tenant: Tenant,
    page: PageRequest,
    paymentIntentId: string | undefined,
  ): Promise<Array<{ row: RefundRow; paymentIntentId: string }>> {
    const { where, orderBy, take } = keyset(page);
    const rows = await this.prisma.refund.findMany({
      where: {
        AND: [
          {
            accountId: tenant.accountId,
            mode: tenant.mode,
            payment: { paymentIntentId: paymentIntentId === undefined ? { not: null } : paymentIntentId },
          },
          where,
        ],
      },
      include: { payment: { select: { paymentIntentId: true } } },
      orderBy,
      take,
    });
    return rows.map(withIntent);
  }
}

function withIntent(found: RefundRow & { payment: { paymentIntentId: string | null } }): {
  row: RefundRow;
  paymentIntentId: string;
} {
  const { payment, ...row } = found;
  if (payment.paymentIntentId === null) throw new Error(`refund ${row.id} is not of an intent's payment`);
  return { row, paymentIntentId: payment.paymentIntentId };
}
