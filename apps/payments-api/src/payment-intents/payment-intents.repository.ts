import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService, type SqlTx } from '@app/platform';
import { type Cursor, keyset, type PageRequest } from '../common/list';
import type { Metadata } from '../common/metadata';
import type { Tenant } from '../common/tenant';
import {
  type InsertedPayment,
  insertedPayment,
  type NewPayment,
  paymentInsert,
  type PaymentRow,
} from '../payments/payments.repository';
import type { LastPaymentError, LatestPayment, OwnIntentStatus } from './dto/payment-intent.view';

export type PaymentIntentRow = Prisma.PaymentIntentGetPayload<object>;

/** An intent with the fields of its latest payment that its `/v1` view reads. */
export interface IntentWithLatest {
  readonly intent: PaymentIntentRow;
  readonly latest: LatestPayment | null;
}

export interface NewPaymentIntent {
  id: string;
  customerId: string | null;
  amount: number;
  currency: string;
  status: OwnIntentStatus;
  captureMethod: string;
  paymentMethod: string | null;
  description: string | null;
  metadata: Metadata;
}

/** What a confirmation writes on its intent: the payment it made and, for a decline, Stripe's error. */
export interface IntentConfirmation {
  latestPaymentId: string;
  /** the latest payment's status, or requires_payment_method after a decline */
  status: string;
  paymentMethod: string | null;
  lastPaymentError: LastPaymentError | null;
}

export interface IntentChanges {
  amount?: number;
  currency?: string;
  customerId?: string | null;
  paymentMethod?: string | null;
  captureMethod?: string;
  description?: string | null;
  metadata?: Metadata;
  status?: OwnIntentStatus;
  canceledAt?: Date;
  cancellationReason?: string | null;
}

export interface IntentFilter {
  customerId?: string;
  created?: { gt?: Date; gte?: Date; lt?: Date; lte?: Date };
}

const LATEST_SELECT = {
  id: true,
  status: true,
  amountCapturable: true,
  amountReceived: true,
  canceledAt: true,
  cancellationReason: true,
} as const satisfies Prisma.PaymentSelect;

/** The row's columns under the model's field names, for the raw statements of the write paths. */
const COLUMNS = Prisma.sql`id, account_id AS "accountId", mode, customer_id AS "customerId", amount, currency, status,
  capture_method AS "captureMethod", payment_method AS "paymentMethod", description, metadata,
  latest_payment_id AS "latestPaymentId", last_payment_error AS "lastPaymentError", canceled_at AS "canceledAt",
  cancellation_reason AS "cancellationReason", created_at AS "createdAt"`;

const json = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

/**
 * The only file of payment intents that talks to the database; every query is scoped by the
 * tenant (save `forPayment`, which reads the intent a tenant's locked payment names). The
 * write paths are raw statements, so they run in `runSql` transactions as the payment they
 * make does (docs/decisions.md 112, 117).
 */
@Injectable()
export class PaymentIntentsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async insert(tx: SqlTx, tenant: Tenant, d: NewPaymentIntent): Promise<PaymentIntentRow> {
    const rows = await tx.$queryRaw<PaymentIntentRow[]>`
      INSERT INTO payment_intents (id, account_id, mode, customer_id, amount, currency, status, capture_method,
                                   payment_method, description, metadata)
      VALUES (${d.id}, ${tenant.accountId}, ${tenant.mode}::payment_mode, ${d.customerId}, ${d.amount}, ${d.currency},
              ${d.status}, ${d.captureMethod}, ${d.paymentMethod}, ${d.description}, ${JSON.stringify(d.metadata)}::jsonb)
      RETURNING ${COLUMNS}`;
    return one(rows, 'INSERT INTO payment_intents');
  }

  /**
   * An intent created and confirmed at once, with its first payment, in one statement (two
   * CTEs; each foreign key is checked at the statement's end, so each row may name the other):
   * `POST /v1/payment_intents` with `confirm=true` costs the round trips of a `/v2` payment.
   */
  async insertWithPayment(
    tx: SqlTx,
    tenant: Tenant,
    d: Omit<NewPaymentIntent, 'status'> & IntentConfirmation,
    payment: NewPayment,
  ): Promise<{ intent: PaymentIntentRow; payment: PaymentRow }> {
    const rows = await tx.$queryRaw<
      Array<PaymentIntentRow & { paymentCreatedAt: Date; paymentMetadata: InsertedPayment['metadata'] }>
    >`
      WITH p AS (${paymentInsert(tenant, payment)}),
           i AS (
             INSERT INTO payment_intents (id, account_id, mode, customer_id, amount, currency, status, capture_method,
                                          payment_method, description, metadata, latest_payment_id, last_payment_error)
             VALUES (${d.id}, ${tenant.accountId}, ${tenant.mode}::payment_mode, ${d.customerId}, ${d.amount}, ${d.currency},
                     ${d.status}, ${d.captureMethod}, ${d.paymentMethod}, ${d.description}, ${JSON.stringify(d.metadata)}::jsonb,
                     ${d.latestPaymentId}, ${json(d.lastPaymentError)}::jsonb)
             RETURNING ${COLUMNS})
      SELECT i.*, p.created_at AS "paymentCreatedAt", p.metadata AS "paymentMetadata" FROM i, p`;
    const { paymentCreatedAt, paymentMetadata, ...intent } = one(rows, 'INSERT INTO payment_intents, payments');
    return { intent, payment: insertedPayment(tenant, payment, { created_at: paymentCreatedAt, metadata: paymentMetadata }) };
  }

  /**
   * The intent locked FOR UPDATE until the transaction ends: confirmations, captures, cancels
   * and updates of one intent run one after another (so one confirmation makes one payment).
   */
  async lock(tx: SqlTx, tenant: Tenant, id: string): Promise<IntentWithLatest | null> {
    const rows = await tx.$queryRaw<PaymentIntentRow[]>`
      SELECT ${COLUMNS} FROM payment_intents
       WHERE id = ${id} AND account_id = ${tenant.accountId} AND mode = ${tenant.mode}::payment_mode
       FOR UPDATE`;
    const intent = rows[0];
    if (!intent) return null;
    return { intent, latest: intent.latestPaymentId ? await this.latestIn(tx, intent.latestPaymentId) : null };
  }

  /** The intent a payment confirmed (read inside the payment's transaction, to emit its `/v1` side). */
  async forPayment(tx: SqlTx, paymentIntentId: string): Promise<PaymentIntentRow> {
    const rows = await tx.$queryRaw<PaymentIntentRow[]>`SELECT ${COLUMNS} FROM payment_intents WHERE id = ${paymentIntentId}`;
    return one(rows, `payment intent ${paymentIntentId}`);
  }

  private async latestIn(tx: SqlTx, paymentId: string): Promise<LatestPayment | null> {
    const rows = await tx.$queryRaw<LatestPayment[]>`
      SELECT id, status, amount_capturable AS "amountCapturable", amount_received AS "amountReceived",
             canceled_at AS "canceledAt", cancellation_reason AS "cancellationReason"
        FROM payments WHERE id = ${paymentId}`;
    return rows[0] ?? null;
  }

  /** Records a confirmation's payment on the (locked) intent. */
  async recordConfirmation(tx: SqlTx, tenant: Tenant, id: string, c: IntentConfirmation): Promise<PaymentIntentRow> {
    const rows = await tx.$queryRaw<PaymentIntentRow[]>`
      UPDATE payment_intents
         SET latest_payment_id = ${c.latestPaymentId}, status = ${c.status}, payment_method = ${c.paymentMethod},
             last_payment_error = ${json(c.lastPaymentError)}::jsonb
       WHERE id = ${id} AND account_id = ${tenant.accountId} AND mode = ${tenant.mode}::payment_mode
      RETURNING ${COLUMNS}`;
    return one(rows, 'UPDATE payment_intents');
  }

  /** Changes fields of the (locked) intent. */
  async update(tx: SqlTx, tenant: Tenant, id: string, c: IntentChanges): Promise<PaymentIntentRow> {
    const sets: Prisma.Sql[] = [];
    const set = (column: string, value: Prisma.Sql): void => {
      sets.push(Prisma.sql`${Prisma.raw(column)} = ${value}`);
    };
    if (c.amount !== undefined) set('amount', Prisma.sql`${c.amount}`);
    if (c.currency !== undefined) set('currency', Prisma.sql`${c.currency}`);
    if (c.customerId !== undefined) set('customer_id', Prisma.sql`${c.customerId}`);
    if (c.paymentMethod !== undefined) set('payment_method', Prisma.sql`${c.paymentMethod}`);
    if (c.captureMethod !== undefined) set('capture_method', Prisma.sql`${c.captureMethod}`);
    if (c.description !== undefined) set('description', Prisma.sql`${c.description}`);
    if (c.metadata !== undefined) set('metadata', Prisma.sql`${JSON.stringify(c.metadata)}::jsonb`);
    if (c.status !== undefined) set('status', Prisma.sql`${c.status}`);
    if (c.canceledAt !== undefined) set('canceled_at', Prisma.sql`${c.canceledAt}`);
    if (c.cancellationReason !== undefined) set('cancellation_reason', Prisma.sql`${c.cancellationReason}`);
    if (sets.length === 0) throw new Error('an intent update with no changes');
    const rows = await tx.$queryRaw<PaymentIntentRow[]>`
      UPDATE payment_intents SET ${Prisma.join(sets, ', ')}
       WHERE id = ${id} AND account_id = ${tenant.accountId} AND mode = ${tenant.mode}::payment_mode
      RETURNING ${COLUMNS}`;
    return one(rows, 'UPDATE payment_intents');
  }

  async find(tenant: Tenant, id: string): Promise<IntentWithLatest | null> {
    const row = await this.prisma.paymentIntent.findFirst({
      where: { id, accountId: tenant.accountId, mode: tenant.mode },
      include: { latestPayment: { select: LATEST_SELECT } },
    });
    return row ? split(row) : null;
  }

  cursor(tenant: Tenant, id: string): Promise<Cursor | null> {
    return this.prisma.paymentIntent.findFirst({
      where: { id, accountId: tenant.accountId, mode: tenant.mode },
      select: { id: true, createdAt: true },
    });
  }

  async list(tenant: Tenant, page: PageRequest, filter: IntentFilter): Promise<IntentWithLatest[]> {
    const { where, orderBy, take } = keyset(page);
    const rows = await this.prisma.paymentIntent.findMany({
      where: {
        AND: [
          {
            accountId: tenant.accountId,
            mode: tenant.mode,
            ...(filter.customerId === undefined ? {} : { customerId: filter.customerId }),
            ...(filter.created === undefined ? {} : { createdAt: filter.created }),
          },
          where,
        ],
      },
      include: { latestPayment: { select: LATEST_SELECT } },
      orderBy,
      take,
    });
    return rows.map(split);
  }
}

function split(row: PaymentIntentRow & { latestPayment: LatestPayment | null }): IntentWithLatest {
  const { latestPayment, ...intent } = row;
  return { intent, latest: latestPayment };
}

function one<T>(rows: T[], what: string): T {
  const row = rows[0];
  if (!row) throw new Error(`${what} returned no row`);
  return row;
}
