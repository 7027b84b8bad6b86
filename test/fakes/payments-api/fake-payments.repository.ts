import type { Tx } from '@app/platform';
import type { Cursor, PageRequest } from '../../../apps/payments-api/src/common/list';
import type { Tenant } from '../../../apps/payments-api/src/common/tenant';
import type { Metadata } from '../../../apps/payments-api/src/common/metadata';
import type {
  AuthorizationRef,
  NewPayment,
  PaymentFilter,
  PaymentRow,
  PaymentsRepository,
  VolumeRow,
} from '../../../apps/payments-api/src/payments/payments.repository';
import type { FakeClock } from '../fake-clock';
import type { Surface } from '../typed-fake';
import type { FakeTransactionRunner } from '../fake-transaction-runner';
import { keysetRows } from './keyset';

const owns = (tenant: Tenant, row: PaymentRow): boolean => row.accountId === tenant.accountId && row.mode === tenant.mode;

interface RowLock {
  readonly tx: Tx;
  readonly released: Promise<void>;
}

/**
 * PaymentsRepository over an array, scoped by tenant. `lockForRefund` is a real per-row lock
 * held until the transaction ends (concurrent refunds wait, as under FOR UPDATE);
 * `addRefunded` needs the caller's lock and keeps the database's CHECK (refunded ≤ amount).
 */
export class FakePaymentsRepository implements Surface<PaymentsRepository> {
  readonly rows: PaymentRow[] = [];
  private readonly locks = new Map<string, RowLock>();
  private seq = 0;

  constructor(
    private readonly transactions: FakeTransactionRunner,
    private readonly clock: FakeClock,
  ) {}

  /** Test arrangement: a payment that already exists (no transaction). */
  seed(tenant: Tenant, fields: Partial<Omit<PaymentRow, 'accountId' | 'mode'>> = {}): PaymentRow {
    const row: PaymentRow = {
      id: `pay_seed${++this.seq}`,
      customerId: 'cus_seed',
      amount: 2000,
      currency: 'gbp',
      status: 'succeeded',
      description: null,
      metadata: {},
      paymentMethod: 'pm_card_visa',
      failureCode: null,
      declineCode: null,
      failureMessage: null,
      amountRefunded: 0,
      captureMethod: 'automatic',
      amountCapturable: 0,
      amountReceived: fields.status === undefined || fields.status === 'succeeded' ? (fields.amount ?? 2000) : 0,
      captureBefore: null,
      capturedAt: null,
      canceledAt: null,
      cancellationReason: null,
      paymentIntentId: null,
      createdAt: this.clock.now(),
      ...fields,
      accountId: tenant.accountId,
      mode: tenant.mode,
    };
    this.rows.push(row);
    return structuredClone(row);
  }

  /** The stored row as it is now (test assertions). */
  get(id: string): PaymentRow | undefined {
    const row = this.rows.find((r) => r.id === id);
    return row && structuredClone(row);
  }

  create(tx: Tx, tenant: Tenant, data: NewPayment): Promise<PaymentRow> {
    if (this.rows.some((r) => r.id === data.id)) throw new Error(`duplicate payment id ${data.id}`);
    const row: PaymentRow = {
      ...data,
      accountId: tenant.accountId,
      mode: tenant.mode,
      amountRefunded: 0,
      canceledAt: null,
      cancellationReason: null,
      createdAt: this.clock.now(),
    };
    this.transactions.write(tx, () => this.rows.splice(this.rows.indexOf(row), 1));
    this.rows.push(row);
    return Promise.resolve(structuredClone(row));
  }

  find(tenant: Tenant, id: string): Promise<PaymentRow | null> {
    const row = this.rows.find((r) => r.id === id && owns(tenant, r));
    return Promise.resolve(row ? structuredClone(row) : null);
  }

  async lockForRefund(tx: Tx, tenant: Tenant, id: string): Promise<PaymentRow | null> {
    this.transactions.assertOpen(tx);
    if (!this.rows.some((r) => r.id === id && owns(tenant, r))) return null;
    for (let held = this.locks.get(id); held && held.tx !== tx; held = this.locks.get(id)) await held.released;
    const row = this.rows.find((r) => r.id === id);
    if (!row) return null;
    if (!this.locks.has(id)) {
      let release = (): void => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      this.locks.set(id, { tx, released });
      this.transactions.onEnd(tx, () => {
        this.locks.delete(id);
        release();
      });
    }
    return structuredClone(row);
  }

  lock(tx: Tx, tenant: Tenant, id: string): Promise<PaymentRow | null> {
    return this.lockForRefund(tx, tenant, id);
  }

  /** The conditional transitions of PaymentsRepository (status requires_capture), as one in-memory write each. */
  private transition(tx: Tx, match: (row: PaymentRow) => boolean, change: Partial<PaymentRow>): Promise<PaymentRow | null> {
    this.transactions.assertOpen(tx);
    const row = this.rows.find(match);
    if (!row) return Promise.resolve(null);
    const before = structuredClone(row);
    this.transactions.write(tx, () => Object.assign(row, before));
    Object.assign(row, change);
    return Promise.resolve(structuredClone(row));
  }

  markCaptured(tx: Tx, tenant: Tenant, id: string, amount: number, at: Date): Promise<PaymentRow | null> {
    return this.transition(tx, (r) => r.id === id && owns(tenant, r) && r.status === 'requires_capture', {
      status: 'succeeded',
      amountReceived: amount,
      amountCapturable: 0,
      capturedAt: at,
    });
  }

  markCanceled(tx: Tx, tenant: Tenant, id: string, reason: string, at: Date): Promise<PaymentRow | null> {
    return this.transition(tx, (r) => r.id === id && owns(tenant, r) && r.status === 'requires_capture', {
      status: 'canceled',
      amountCapturable: 0,
      canceledAt: at,
      cancellationReason: reason,
    });
  }

  expireAuthorization(tx: Tx, id: string, now: Date): Promise<PaymentRow | null> {
    return this.transition(
      tx,
      (r) => r.id === id && r.status === 'requires_capture' && r.captureBefore !== null && r.captureBefore <= now,
      { status: 'canceled', amountCapturable: 0, canceledAt: now, cancellationReason: 'automatic' },
    );
  }

  expiredAuthorizationIds(now: Date, limit: number): Promise<string[]> {
    return Promise.resolve(
      this.rows
        .filter((r) => r.status === 'requires_capture' && r.captureBefore !== null && r.captureBefore <= now)
        .slice(0, limit)
        .map((r) => r.id),
    );
  }

  pendingAuthorizations(limit: number): Promise<AuthorizationRef[]> {
    return Promise.resolve(
      this.rows
        .filter((r) => r.status === 'requires_capture')
        .flatMap((r) => (r.captureBefore ? [{ id: r.id, captureBefore: r.captureBefore }] : []))
        .slice(0, limit),
    );
  }

  update(tx: Tx, tenant: Tenant, id: string, data: { description?: string | null; metadata?: Metadata }): Promise<PaymentRow> {
    return this.transition(tx, (r) => r.id === id && owns(tenant, r), data).then((row) => {
      if (!row) throw new Error(`no payment ${id} of this tenant (Prisma: record to update not found)`);
      return row;
    });
  }

  addRefunded(tx: Tx, tenant: Tenant, id: string, amount: number): Promise<PaymentRow> {
    const row = this.rows.find((r) => r.id === id && owns(tenant, r));
    if (!row) throw new Error(`no payment ${id} of this tenant (Prisma: record to update not found)`);
    if (this.locks.get(id)?.tx !== tx) throw new Error(`payment ${id} is not locked by this transaction (lockForRefund first)`);
    if (row.amountRefunded + amount > row.amountReceived) throw new Error('CHECK violated: amount_refunded > amount_received');
    const before = row.amountRefunded;
    this.transactions.write(tx, () => (row.amountRefunded = before));
    row.amountRefunded += amount;
    return Promise.resolve(structuredClone(row));
  }

  cursor(tenant: Tenant, id: string): Promise<Cursor | null> {
    const row = this.rows.find((r) => r.id === id && owns(tenant, r));
    return Promise.resolve(row ? { id: row.id, createdAt: row.createdAt } : null);
  }

  list(tenant: Tenant, page: PageRequest, filter: PaymentFilter): Promise<PaymentRow[]> {
    const mine = this.rows.filter(
      (r) =>
        owns(tenant, r) &&
        (!filter.customerId || r.customerId === filter.customerId) &&
        (!filter.status || r.status === filter.status) &&
        (!filter.createdGte || r.createdAt >= filter.createdGte) &&
        (!filter.createdLte || r.createdAt <= filter.createdLte),
    );
    return Promise.resolve(keysetRows(mine, page).map((r) => structuredClone(r)));
  }

  volume(tenant: Tenant, since: Date, currency: string | undefined): Promise<VolumeRow[]> {
    const groups = new Map<string, VolumeRow>();
    for (const r of this.rows) {
      if (!owns(tenant, r) || r.status !== 'succeeded' || r.createdAt < since) continue;
      if (currency !== undefined && r.currency !== currency) continue;
      const day = r.createdAt.toISOString().slice(0, 10);
      const key = `${day} ${r.currency}`;
      const group = groups.get(key) ?? { day, currency: r.currency, amount: 0, count: 0 };
      group.amount += r.amountReceived;
      group.count += 1;
      groups.set(key, group);
    }
    return Promise.resolve([...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, g]) => g));
  }
}
