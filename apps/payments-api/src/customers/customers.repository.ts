import { Injectable } from '@nestjs/common';
import { type Prisma, PrismaService, type PrismaTx } from '@app/platform';
import { type Cursor, keyset, type PageRequest } from '../common/list';
import type { Metadata } from '../common/metadata';
import type { Tenant } from '../common/tenant';

export type CustomerRow = Prisma.CustomerGetPayload<object>;

/** The only file of customers that talks to Prisma; every query is scoped by the tenant. */
@Injectable()
export class CustomersRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(
    tenant: Tenant,
    data: { id: string; email?: string; name?: string; description?: string; metadata: Metadata },
  ): Promise<CustomerRow> {
    return this.prisma.customer.create({ data: { ...data, accountId: tenant.accountId, mode: tenant.mode } });
  }

  /** A live (not deleted) customer of the tenant; with `tx`, locked against concurrent deletion. */
  findActive(tenant: Tenant, id: string, db: PrismaTx | PrismaService = this.prisma): Promise<CustomerRow | null> {
    return db.customer.findFirst({ where: { id, accountId: tenant.accountId, mode: tenant.mode, deletedAt: null } });
  }

  async cursor(tenant: Tenant, id: string): Promise<Cursor | null> {
    return this.prisma.customer.findFirst({
      where: { id, accountId: tenant.accountId, mode: tenant.mode },
      select: { id: true, createdAt: true },
    });
  }

  list(tenant: Tenant, page: PageRequest, email?: string): Promise<CustomerRow[]> {
    const { where, orderBy, take } = keyset(page);
    return this.prisma.customer.findMany({
      where: { AND: [{ accountId: tenant.accountId, mode: tenant.mode, deletedAt: null, ...(email ? { email } : {}) }, where] },
      orderBy,
      take,
    });
  }

  async update(
    tenant: Tenant,
    id: string,
    data: { email?: string; name?: string; description?: string; metadata?: Metadata },
  ): Promise<CustomerRow | null> {
    const { count } = await this.prisma.customer.updateMany({
      where: { id, accountId: tenant.accountId, mode: tenant.mode, deletedAt: null },
      data,
    });
    return count === 0 ? null : this.findActive(tenant, id);
  }

  async markDeleted(tenant: Tenant, id: string, at: Date): Promise<boolean> {
    const { count } = await this.prisma.customer.updateMany({
      where: { id, accountId: tenant.accountId, mode: tenant.mode, deletedAt: null },
      data: { deletedAt: at },
    });
    return count === 1;
  }
}
