import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService, type SqlTx, type Tx } from '@app/platform';
import { type Cursor, keyset, type PageRequest } from '../common/list';
import type { Metadata } from '../common/metadata';
import type { Tenant } from '../common/tenant';

export type PaymentRow = Prisma.PaymentGetPayload<object>;

/** What insertStatement returns of the row the database completed. */
export interface InsertedPayment {
  created_at: Date;
  metadata: PaymentRow['metadata'];
}

export interface NewPayment {
  id: string;
  customerId: string | null;
  amount: number;
  currency: string;
  status: 'succeeded' | 'failed' | 'requires_capture';
  description: string | null;
  metadata: Metadata;
  paymentMethod: string;
  failureCode: string | null;
  declineCode: string | null;
  failureMessage: string | null;
  captureMethod: 'automatic' | 'manual';
  amountCapturable: number;
  amountReceived: number;
  captureBefore: Date | null;
  capturedAt: Date | null;
  /** The /v1 PaymentIntent this payment confirms (null: a payment made through /v2). */
  paymentIntentId: string | null;
}

/** A payment's identity for the system-wide expiry (no caller, so no tenant to scope by). */
export interface AuthorizationRef {
  readonly id: string;
  readonly captureBefore: Date;
}

export interface PaymentFilter {
  customerId?: string;
  status?: string;
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
  async create(tx: SqlTx, tenant: Tenant, data: NewPayment): Promise<PaymentRow> {
    const rows = await tx.$queryRaw<InsertedPayment[]>(paymentInsert(tenant, data));
    const row = rows[0];
    if (!row) throw new Error('INSERT INTO payments returned no row');
    return insertedPayment(tenant, data, row);
  }

  find(tenant: Tenant, id: string): Promise<PaymentRow | null> {
    return this.prisma.payment.findFirst({ where: { id, accountId: tenant.accountId, mode: tenant.mode } });
  }

  /**
   * The payment row locked FOR UPDATE until the transaction ends: concurrent refunds, captures,
   * cancels and updates of one payment run one after another, so the refundable balance cannot
   * be overspent and only one of a capture and a cancel applies.
   */
  async lockForRefund(tx: Tx, tenant: Tenant, id: string): Promise<PaymentRow | null> {
    const locked = await tx.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM payments WHERE id = ${id} AND account_id = ${tenant.accountId} AND mode = ${tenant.mode}::payment_mode FOR UPDATE`;
    if (locked.length === 0) return null;
    return tx.payment.findUnique({ where: { id } });
  }

  /**
   * Captures `amount` of a locked authorization: succeeded, received = amount, nothing left
   * capturable. Conditional on requires_capture, so it can never apply twice.
   */
  markCaptured(tx: Tx, tenant: Tenant, id: string, amount: number, at: Date): Promise<PaymentRow | null> {
    return this.leaveAuthorization(
      tx,
      { id, accountId: tenant.accountId, mode: tenant.mode },
      { status: 'succeeded', amountReceived: amount, capturedAt: at },
    );
  }

  /** Cancels a locked authorization (conditional on requires_capture). */
  markCanceled(tx: Tx, tenant: Tenant, id: string, reason: string, at: Date): Promise<PaymentRow | null> {
    return this.leaveAuthorization(
      tx,
      { id, accountId: tenant.accountId, mode: tenant.mode },
      { status: 'canceled', canceledAt: at, cancellationReason: reason },
    );
  }

  /**
   * The expiry: one conditional UPDATE (`status = 'requires_capture' AND capture_before <= now`).
   * PostgreSQL re-checks the condition after a concurrent capture or cancel commits, so exactly
   * one of them changes the row; a duplicate, early or late job updates nothing. System-wide.
   */
  expireAuthorization(tx: Tx, id: string, now: Date): Promise<PaymentRow | null> {
    return this.leaveAuthorization(
      tx,
      { id, captureBefore: { lte: now } },
      { status: 'canceled', canceledAt: now, cancellationReason: 'automatic' },
    );
  }

  /**
   * The one way out of requires_capture: an UPDATE conditional on that status (nothing left
   * capturable afterwards), then the row, or null when the payment had already left it.
   */
  private async leaveAuthorization(
    tx: Tx,
    where: Prisma.PaymentWhereInput & { id: string },
    data: Prisma.PaymentUpdateManyMutationInput,
  ): Promise<PaymentRow | null> {
    const { count } = await tx.payment.updateMany({
      where: { ...where, status: 'requires_capture' },
      data: { ...data, amountCapturable: 0 },
    });
    return count === 1 ? tx.payment.findUnique({ where: { id: where.id } }) : null;
  }

  /** Authorizations past their capture_before (what lost expiry jobs would have canceled), oldest first. */
  async expiredAuthorizationIds(now: Date, limit: number): Promise<string[]> {
    const rows = await this.prisma.payment.findMany({
      where: { status: 'requires_capture', captureBefore: { lte: now } },
      orderBy: [{ captureBefore: 'asc' }, { id: 'asc' }],
      select: { id: true },
      take: limit,
    });
    return rows.map((r) => r.id);
  }

  /** Authorizations still waiting for capture, for re-enqueueing their expiry jobs, soonest first. */
  async pendingAuthorizations(limit: number): Promise<AuthorizationRef[]> {
    const rows = await this.prisma.payment.findMany({
      where: { status: 'requires_capture', captureBefore: { not: null } },
      orderBy: [{ captureBefore: 'asc' }, { id: 'asc' }],
      select: { id: true, captureBefore: true },
      take: limit,
    });
    return rows.flatMap((r) => (r.captureBefore ? [{ id: r.id, captureBefore: r.captureBefore }] : []));
  }

  /** Description and metadata of a locked payment (POST /v2/payments/{id}). */
  update(tx: Tx, tenant: Tenant, id: string, data: { description?: string | null; metadata?: Metadata }): Promise<PaymentRow> {
    return tx.payment.update({ where: { id, accountId: tenant.accountId, mode: tenant.mode }, data });
  }

  /** lockForRefund under the name capture, cancel and update use. */
  lock(tx: Tx, tenant: Tenant, id: string): Promise<PaymentRow | null> {
    return this.lockForRefund(tx, tenant, id);
  }

  addRefunded(tx: Tx, tenant: Tenant, id: string, amount: number): Promise<PaymentRow> {
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
            ...(filter.status ? { status: filter.status } : {}),
            ...(filter.createdGte || filter.createdLte ? { createdAt: created } : {}),
          },
          where,
        ],
      },
      orderBy,
      take,
    });
  }

  /**
   * Succeeded volume per UTC day of creation and currency since `since`: one GROUP BY whose
   * range is read through the (account_id, mode, created_at) index of the list.
   */
  async volume(tenant: Tenant, since: Date, currency: string | undefined): Promise<VolumeRow[]> {
    const rows = await this.prisma.$queryRaw<Array<{ day: string; currency: string; amount: bigint; count: number }>>`
      SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, currency,
             SUM(amount_received)::bigint AS amount, COUNT(*)::int AS count
      FROM payments
      WHERE account_id = ${tenant.accountId} AND mode = ${tenant.mode}::payment_mode
        AND created_at >= ${since} AND status = 'succeeded'
        AND (${currency ?? null}::text IS NULL OR currency = ${currency ?? null}::text)
      GROUP BY 1, 2
      ORDER BY 1, 2`;
    return rows.map((r) => ({ day: r.day, currency: r.currency, amount: Number(r.amount), count: r.count }));
  }
}

export interface VolumeRow {
  day: string;
  currency: string;
  amount: number;
  count: number;
}

/**
 * The INSERT of PaymentsRepository.create as a statement to run inside another (a CTE of the
 * one statement that makes a payment intent with its first payment): RETURNING created_at, metadata.
 */
export function paymentInsert(tenant: Tenant, d: NewPayment): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO payments (id, account_id, mode, customer_id, amount, currency, status, description, metadata,
                          payment_method, failure_code, decline_code, failure_message, capture_method,
                          amount_capturable, amount_received, capture_before, captured_at, payment_intent_id)
    VALUES (${d.id}, ${tenant.accountId}, ${tenant.mode}::payment_mode, ${d.customerId}, ${d.amount}, ${d.currency},
            ${d.status}, ${d.description}, ${JSON.stringify(d.metadata)}::jsonb, ${d.paymentMethod}, ${d.failureCode},
            ${d.declineCode}, ${d.failureMessage}, ${d.captureMethod}, ${d.amountCapturable}, ${d.amountReceived},
            ${d.captureBefore}, ${d.capturedAt}, ${d.paymentIntentId})
    RETURNING created_at, metadata`;
}

/** The row paymentInsert wrote, from what it returned. */
export function insertedPayment(tenant: Tenant, d: NewPayment, returned: InsertedPayment): PaymentRow {
  // metadata as jsonb stores it (its key order), as every later read returns it
  return {
    ...d,
    metadata: returned.metadata,
    accountId: tenant.accountId,
    mode: tenant.mode,
    amountRefunded: 0,
    canceledAt: null,
    cancellationReason: null,
    createdAt: returned.created_at,
  };
}
