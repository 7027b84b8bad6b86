import type { Tx } from '@app/platform';
import type { Cursor, PageRequest } from '../../../apps/payments-api/src/common/list';
import type { Metadata } from '../../../apps/payments-api/src/common/metadata';
import type { Tenant } from '../../../apps/payments-api/src/common/tenant';
import type { RefundRow, RefundsRepository } from '../../../apps/payments-api/src/refunds/refunds.repository';
import type { FakeClock } from '../fake-clock';
import type { Surface } from '../typed-fake';
import type { FakeTransactionRunner } from '../fake-transaction-runner';
import { keysetRows } from './keyset';

type NewRefund = Parameters<RefundsRepository['create']>[2];

const owns = (tenant: Tenant, row: RefundRow): boolean => row.accountId === tenant.accountId && row.mode === tenant.mode;

/** RefundsRepository over an array, scoped by tenant; writes need an open fake transaction. */
export class FakeRefundsRepository implements Surface<RefundsRepository> {
  readonly rows: RefundRow[] = [];

  constructor(
    private readonly transactions: FakeTransactionRunner,
    private readonly clock: FakeClock,
  ) {}

  create(tx: Tx, tenant: Tenant, data: NewRefund): Promise<RefundRow> {
    if (this.rows.some((r) => r.id === data.id)) throw new Error(`duplicate refund id ${data.id}`);
    const row: RefundRow = {
      ...data,
      status: 'succeeded',
      accountId: tenant.accountId,
      mode: tenant.mode,
      createdAt: this.clock.now(),
    };
    this.transactions.write(tx, () => this.rows.splice(this.rows.indexOf(row), 1));
    this.rows.push(row);
    return Promise.resolve(structuredClone(row));
  }

  /** No row lock here: the unit specs do not update refunds concurrently (the e2e specs do, on PostgreSQL). */
  lock(tx: Tx, tenant: Tenant, id: string): Promise<RefundRow | null> {
    this.transactions.assertOpen(tx);
    return this.find(tenant, id);
  }

  updateMetadata(tx: Tx, tenant: Tenant, id: string, metadata: Metadata): Promise<RefundRow> {
    const row = this.rows.find((r) => r.id === id && owns(tenant, r));
    if (!row) throw new Error(`no refund ${id} of this tenant (Prisma: record to update not found)`);
    const before = row.metadata;
    this.transactions.write(tx, () => (row.metadata = before));
    row.metadata = metadata;
    return Promise.resolve(structuredClone(row));
  }

  find(tenant: Tenant, id: string): Promise<RefundRow | null> {
    const row = this.rows.find((r) => r.id === id && owns(tenant, r));
    return Promise.resolve(row ? structuredClone(row) : null);
  }

  cursor(tenant: Tenant, id: string): Promise<Cursor | null> {
    const row = this.rows.find((r) => r.id === id && owns(tenant, r));
    return Promise.resolve(row ? { id: row.id, createdAt: row.createdAt } : null);
  }

  list(tenant: Tenant, page: PageRequest, paymentId?: string): Promise<RefundRow[]> {
    const mine = this.rows.filter((r) => owns(tenant, r) && (!paymentId || r.paymentId === paymentId));
    return Promise.resolve(keysetRows(mine, page).map((r) => structuredClone(r)));
  }

  /** The unit fakes' payments are made through /v2: none names an intent. */
  paymentIntentIdOf(tx: Tx): Promise<string | null> {
    this.transactions.assertOpen(tx);
    return Promise.resolve(null);
  }

  /** /v1's refunds (of intents' payments): the unit fakes hold none. */
  findOfIntent(): Promise<{ row: RefundRow; paymentIntentId: string } | null> {
    return Promise.resolve(null);
  }

  cursorOfIntent(): Promise<Cursor | null> {
    return Promise.resolve(null);
  }

  listOfIntents(): Promise<Array<{ row: RefundRow; paymentIntentId: string }>> {
    return Promise.resolve([]);
  }
}
