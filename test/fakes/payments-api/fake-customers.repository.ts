import type { Cursor, PageRequest } from '../../../apps/payments-api/src/common/list';
import type { Tenant } from '../../../apps/payments-api/src/common/tenant';
import type {
  CustomerChanges,
  CustomerRow,
  CustomersRepository,
  NewCustomer,
} from '../../../apps/payments-api/src/customers/customers.repository';
import type { Tx } from '@app/platform';
import type { FakeClock } from '../fake-clock';
import type { Surface } from '../typed-fake';
import type { FakeTransactionRunner } from '../fake-transaction-runner';
import { keysetRows } from './keyset';

const owns = (tenant: Tenant, row: CustomerRow): boolean => row.accountId === tenant.accountId && row.mode === tenant.mode;

/** CustomersRepository over an array, scoped by tenant like the real one; writes need an open fake transaction. */
export class FakeCustomersRepository implements Surface<CustomersRepository> {
  readonly rows: CustomerRow[] = [];
  private seq = 0;

  constructor(
    private readonly transactions: FakeTransactionRunner,
    private readonly clock: FakeClock,
  ) {}

  /** Test arrangement: a customer that already exists (no transaction). */
  seed(tenant: Tenant, fields: Partial<Omit<CustomerRow, 'accountId' | 'mode'>> = {}): CustomerRow {
    const row: CustomerRow = {
      id: `cus_seed${++this.seq}`,
      email: null,
      name: null,
      description: null,
      metadata: {},
      deletedAt: null,
      createdAt: this.clock.now(),
      ...fields,
      accountId: tenant.accountId,
      mode: tenant.mode,
    };
    this.rows.push(row);
    return structuredClone(row);
  }

  create(tx: Tx, tenant: Tenant, data: NewCustomer): Promise<CustomerRow> {
    if (this.rows.some((r) => r.id === data.id)) throw new Error(`duplicate customer id ${data.id}`);
    const row: CustomerRow = {
      id: data.id,
      accountId: tenant.accountId,
      mode: tenant.mode,
      email: data.email ?? null,
      name: data.name ?? null,
      description: data.description ?? null,
      metadata: data.metadata,
      deletedAt: null,
      createdAt: this.clock.now(),
    };
    this.transactions.write(tx, () => this.rows.splice(this.rows.indexOf(row), 1));
    this.rows.push(row);
    return Promise.resolve(structuredClone(row));
  }

  isActive(tenant: Tenant, id: string): Promise<boolean> {
    return Promise.resolve(this.active(tenant, id) !== undefined);
  }

  findActive(tenant: Tenant, id: string): Promise<CustomerRow | null> {
    const row = this.active(tenant, id);
    return Promise.resolve(row ? structuredClone(row) : null);
  }

  cursor(tenant: Tenant, id: string): Promise<Cursor | null> {
    const row = this.rows.find((r) => r.id === id && owns(tenant, r));
    return Promise.resolve(row ? { id: row.id, createdAt: row.createdAt } : null);
  }

  list(tenant: Tenant, page: PageRequest, email?: string, created?: { gte?: Date; lte?: Date }): Promise<CustomerRow[]> {
    const inRange = (r: CustomerRow): boolean =>
      (created?.gte === undefined || r.createdAt >= created.gte) && (created?.lte === undefined || r.createdAt <= created.lte);
    const mine = this.rows.filter((r) => owns(tenant, r) && r.deletedAt === null && (!email || r.email === email) && inRange(r));
    return Promise.resolve(keysetRows(mine, page).map((r) => structuredClone(r)));
  }

  find(tenant: Tenant, id: string): Promise<CustomerRow | null> {
    const row = this.rows.find((r) => r.id === id && owns(tenant, r));
    return Promise.resolve(row ? structuredClone(row) : null);
  }

  findMany(tenant: Tenant, ids: readonly string[]): Promise<CustomerRow[]> {
    return Promise.resolve(
      this.rows.filter((r) => ids.includes(r.id) && owns(tenant, r) && r.deletedAt === null).map((r) => structuredClone(r)),
    );
  }

  update(tx: Tx, tenant: Tenant, id: string, data: CustomerChanges): Promise<CustomerRow | null> {
    this.transactions.assertOpen(tx);
    const row = this.active(tenant, id);
    if (!row) return Promise.resolve(null);
    const before = structuredClone(row);
    this.transactions.write(tx, () => Object.assign(row, before));
    Object.assign(row, data);
    return Promise.resolve(structuredClone(row));
  }

  markDeleted(tx: Tx, tenant: Tenant, id: string, at: Date): Promise<boolean> {
    this.transactions.assertOpen(tx);
    const row = this.active(tenant, id);
    if (!row) return Promise.resolve(false);
    this.transactions.write(tx, () => (row.deletedAt = null));
    row.deletedAt = at;
    return Promise.resolve(true);
  }

  private active(tenant: Tenant, id: string): CustomerRow | undefined {
    return this.rows.find((r) => r.id === id && owns(tenant, r) && r.deletedAt === null);
  }
}
