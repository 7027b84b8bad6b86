import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '@app/platform';
import type { Cursor } from '../../../common/list';
import type { Tenant } from '../../../common/tenant';
import type { CustomerRow } from '../../../customers/customers.repository';
import type { SearchQuery } from './stripe-search-query';
import { type SearchColumns, searchCondition } from './stripe-search-sql';

/** Stripe's total_count is "only accurate up to 10,000": counting stops there. */
export const TOTAL_COUNT_CAP = 10_000;

export type PaymentIntentRow = Prisma.PaymentIntentGetPayload<object>;

/** What an intent's `/v1` status and amounts are read from (its latest payment), as the intents' view takes it. */
export interface SearchLatestPayment {
  readonly id: string;
  readonly status: string;
  readonly amountCapturable: number;
  readonly amountReceived: number;
  readonly canceledAt: Date | null;
  readonly cancellationReason: string | null;
}

export interface IntentSearchRow {
  readonly intent: PaymentIntentRow;
  readonly latest: SearchLatestPayment | null;
}

/**
 * The status `/v1` shows an intent in (issue 35's data model): its latest payment's unless that
 * payment failed (or there is none), else the intent's own column. Searched as `status`.
 */
const DERIVED_STATUS = Prisma.sql`(CASE WHEN p.status IS NOT NULL AND p.status <> 'failed' THEN p.status ELSE pi.status END)`;

const CUSTOMER_COLUMNS: SearchColumns = {
  created: { kind: 'time', sql: Prisma.sql`c.created_at` },
  email: { kind: 'text', sql: Prisma.sql`c.email` },
  metadata: { kind: 'metadata', sql: Prisma.sql`c.metadata` },
  name: { kind: 'text', sql: Prisma.sql`c.name` },
  phone: { kind: 'none' },
};

const INTENT_COLUMNS: SearchColumns = {
  amount: { kind: 'integer', sql: Prisma.sql`pi.amount` },
  created: { kind: 'time', sql: Prisma.sql`pi.created_at` },
  currency: { kind: 'text', sql: Prisma.sql`pi.currency` },
  customer: { kind: 'text', sql: Prisma.sql`pi.customer_id` },
  metadata: { kind: 'metadata', sql: Prisma.sql`pi.metadata` },
  status: { kind: 'text', sql: DERIVED_STATUS },
};

/** Newest first: the rows after the cursor (the previous page's last row) in (created_at, id) descending order. */
const after = (position: Prisma.Sql, cursor: Cursor | undefined): Prisma.Sql =>
  cursor === undefined ? Prisma.sql`TRUE` : Prisma.sql`${position} < (${cursor.createdAt}::timestamptz, ${cursor.id}::text)`;
const CUSTOMER_POSITION = Prisma.sql`(c.created_at, c.id)`;
const INTENT_POSITION = Prisma.sql`(pi.created_at, pi.id)`;

type IntentJoinRow = PaymentIntentRow & {
  pId: string | null;
  pStatus: string | null;
  pAmountCapturable: number | null;
  pAmountReceived: number | null;
  pCanceledAt: Date | null;
  pCancellationReason: string | null;
};

/**
 * `/v1/customers/search` and `/v1/payment_intents/search` (docs/stripe.md, "Search"): one
 * parameterized statement per page, scoped by the tenant, newest first, `take` rows at most.
 */
@Injectable()
export class StripeSearchRepository {
  constructor(private readonly prisma: PrismaService) {}

  customers(tenant: Tenant, query: SearchQuery, cursor: Cursor | undefined, take: number): Promise<CustomerRow[]> {
    return this.prisma.$queryRaw<CustomerRow[]>`
      SELECT c.id, c.account_id AS "accountId", c.mode::text AS mode, c.email, c.name, c.description, c.metadata,
             c.deleted_at AS "deletedAt", c.created_at AS "createdAt"
        FROM customers c
       WHERE c.account_id = ${tenant.accountId} AND c.mode = ${tenant.mode}::payment_mode AND c.deleted_at IS NULL
         AND ${searchCondition(query, CUSTOMER_COLUMNS)} AND ${after(CUSTOMER_POSITION, cursor)}
       ORDER BY c.created_at DESC, c.id DESC
       LIMIT ${take}`;
  }

  async countCustomers(tenant: Tenant, query: SearchQuery): Promise<number> {
    const rows = await this.prisma.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM (
        SELECT 1 FROM customers c
         WHERE c.account_id = ${tenant.accountId} AND c.mode = ${tenant.mode}::payment_mode AND c.deleted_at IS NULL
           AND ${searchCondition(query, CUSTOMER_COLUMNS)}
         LIMIT ${TOTAL_COUNT_CAP}) capped`;
    return rows[0]?.n ?? 0;
  }

  async paymentIntents(tenant: Tenant, query: SearchQuery, cursor: Cursor | undefined, take: number): Promise<IntentSearchRow[]> {
    const rows = await this.prisma.$queryRaw<IntentJoinRow[]>`
      SELECT pi.id, pi.account_id AS "accountId", pi.mode::text AS mode, pi.customer_id AS "customerId", pi.amount,
             pi.currency, pi.status, pi.capture_method AS "captureMethod", pi.payment_method AS "paymentMethod",
             pi.description, pi.metadata, pi.latest_payment_id AS "latestPaymentId",
             pi.last_payment_error AS "lastPaymentError", pi.canceled_at AS "canceledAt",
             pi.cancellation_reason AS "cancellationReason", pi.created_at AS "createdAt",
             p.id AS "pId", p.status AS "pStatus", p.amount_capturable AS "pAmountCapturable",
             p.amount_received AS "pAmountReceived", p.canceled_at AS "pCanceledAt",
             p.cancellation_reason AS "pCancellationReason"
        FROM payment_intents pi
        LEFT JOIN payments p ON p.id = pi.latest_payment_id
       WHERE pi.account_id = ${tenant.accountId} AND pi.mode = ${tenant.mode}::payment_mode
         AND ${searchCondition(query, INTENT_COLUMNS)} AND ${after(INTENT_POSITION, cursor)}
       ORDER BY pi.created_at DESC, pi.id DESC
       LIMIT ${take}`;
    return rows.map(splitIntent);
  }

  async countPaymentIntents(tenant: Tenant, query: SearchQuery): Promise<number> {
    const rows = await this.prisma.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM (
        SELECT 1 FROM payment_intents pi
          LEFT JOIN payments p ON p.id = pi.latest_payment_id
         WHERE pi.account_id = ${tenant.accountId} AND pi.mode = ${tenant.mode}::payment_mode
           AND ${searchCondition(query, INTENT_COLUMNS)}
         LIMIT ${TOTAL_COUNT_CAP}) capped`;
    return rows[0]?.n ?? 0;
  }
}

function splitIntent(row: IntentJoinRow): IntentSearchRow {
  const { pId, pStatus, pAmountCapturable, pAmountReceived, pCanceledAt, pCancellationReason, ...intent } = row;
  const latest =
    pId === null || pStatus === null
      ? null
      : {
          id: pId,
          status: pStatus,
          amountCapturable: pAmountCapturable ?? 0,
          amountReceived: pAmountReceived ?? 0,
          canceledAt: pCanceledAt,
          cancellationReason: pCancellationReason,
        };
  return { intent, latest };
}
