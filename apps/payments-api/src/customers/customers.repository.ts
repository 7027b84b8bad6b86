import { Injectable } from '@nestjs/common';
import { type Prisma, PrismaService, type Db, type Tx } from '@app/platform';
import { type Cursor, keyset, type PageRequest } from '../common/list';
import type { Metadata } from '../common/metadata';
import type { Tenant } from '../common/tenant';

export type CustomerRow = Prisma.CustomerGetPayload<object>;

export interface NewCustomer {
  id: string;
  email?: string | null;
  name?: string | null;
  description?: string | null;
  metadata: Metadata;
}

export type CustomerChanges = Partial<Omit<NewCustomer, 'id'>>;

/** The only file of customers that talks to Prisma; every query is scoped by the tenant. */
@Injectable()
export class CustomersRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(tx: Tx, tenant: Tenant, data: NewCustomer): Promise<CustomerRow> {
    return tx.customer.create({ data: { ...data, accountId: tenant.accountId, mode: tenant.mode } });
  }

  /** A live (not deleted) customer of the tenant. */
  /** True when the customer exists, belongs to the tenant and is not deleted (one indexed lookup, no row read back). */
  async isActive(tenant: Tenant, id: string): Promise<boolean> {
    // Straight on the pool: this runs before every charge (docs/decisions.md 116).
    const rows = await this.prisma.direct.$queryRaw<unknown[]>`
      SELECT 1 FROM customers
       WHERE id = ${id} AND account_id = ${tenant.accountId} AND mode = ${tenant.mode}::payment_mode AND deleted_at IS NULL`;
    return rows.length > 0;
  }

  findActive(tenant: Tenant, id: string): Promise<CustomerRow | null> {
    return activeCustomer(this.prisma, tenant, id);
  }

  async cursor(tenant: Tenant, id: string): Promise<Cursor | null> {
    return this.prisma.customer.findFirst({
      where: { id, accountId: tenant.accountId, mode: tenant.mode },
      select: { id: true, createdAt: true },
    });
  }

  list(tenant: Tenant, page: PageRequest, email?: string, created?: { gte?: Date; lte?: Date }): Promise<CustomerRow[]> {
    const { where, orderBy, take } = keyset(page);
    return this.prisma.customer.findMany({
      where: {
        AND: [
          {
            accountId: tenant.accountId,
            mode: tenant.mode,
            deletedAt: null,
            ...(email ? { email } : {}),
            ...(created === undefined ? {} : { createdAt: created }),
          },
          where,
        ],
      },
      orderBy,
      take,
    });
  }

  /** A customer of the tenant, deleted or not (`/v1` answers a deleted one as `{id, deleted: true}`). */
  find(tenant: Tenant, id: string): Promise<CustomerRow | null> {
    return this.prisma.customer.findFirst({ where: { id, accountId: tenant.accountId, mode: tenant.mode } });
  }

  /** The tenant's live customers among `ids` (for `expand[]=customer`). */
  findMany(tenant: Tenant, ids: readonly string[]): Promise<CustomerRow[]> {
    return this.prisma.customer.findMany({
      where: { id: { in: [...ids] }, accountId: tenant.accountId, mode: tenant.mode, deletedAt: null },
    });
  }

  /** The updated customer, or null when the tenant has no live customer with this id. */
  async update(tx: Tx, tenant: Tenant, id: string, data: CustomerChanges): Promise<CustomerRow | null> {
    const { count } = await tx.customer.updateMany({
      where: { id, accountId: tenant.accountId, mode: tenant.mode, deletedAt: null },
      data,
    });
    return count === 0 ? null : activeCustomer(tx, tenant, id);
  }

  async markDeleted(tx: Tx, tenant: Tenant, id: string, at: Date): Promise<boolean> {
    const { count } = await tx.customer.updateMany({
      where: { id, accountId: tenant.accountId, mode: tenant.mode, deletedAt: null },
      data: { deletedAt: at },
    });
    return count === 1;
  }
}

function activeCustomer(db: Db, tenant: Tenant, id: string): Promise<CustomerRow | null> {
  return db.customer.findFirst({ where: { id, accountId: tenant.accountId, mode: tenant.mode, deletedAt: null } });
}
