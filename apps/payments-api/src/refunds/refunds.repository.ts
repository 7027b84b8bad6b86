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
}
