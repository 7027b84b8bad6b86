import { Injectable } from '@nestjs/common';
import { type CompletionHook, newId, NotFoundError, toJson, TransactionRunner, type IdempotentRequest } from '@app/platform';
import { stripeRefund } from '../compat/stripe/refunds/stripe-refund';
import { PaymentEvents } from '../common/events';
import { type ListEnvelope, type ListQuery, page, resolvePage } from '../common/list';
import type { Tenant } from '../common/tenant';
import { PaymentsError } from '../errors';
import { PaymentsRepository } from '../payments/payments.repository';
import { type Metadata, mergeMetadata, tooManyKeys } from '../common/metadata';
import type { RefundCreateDto, RefundListQuery, RefundUpdateDto } from './dto/refund.dto';
import { type RefundListView, type RefundView, refundView } from './dto/refund.view';
import { type RefundRow, RefundsRepository } from './refunds.repository';

@Injectable()
export class RefundsService {
  constructor(
    private readonly refunds: RefundsRepository,
    private readonly payments: PaymentsRepository,
    private readonly transactions: TransactionRunner,
    private readonly events: PaymentEvents,
  ) {}

  /**
   * Full or partial refund. The payment row is locked FOR UPDATE for the whole transaction,
   * so concurrent refunds are applied one at a time against the true remaining balance
   * (and a CHECK constraint backs it up in the database).
   */
  create(tenant: Tenant, dto: RefundCreateDto, idempotency?: IdempotentRequest): Promise<RefundView> {
    return this.createRow(tenant, dto, presented(idempotency, refundView)).then(refundView);
  }

  /**
   * create() answering the row, its completion given by the route (the `/v1` adapter stores
   * Stripe's refund); `param` is what the route calls the refunded payment in its errors.
   */
  createRow(
    tenant: Tenant,
    dto: RefundCreateDto,
    completion?: CompletionHook<RefundRow>,
    param = 'payment_id',
  ): Promise<RefundRow> {
    return this.transactions.run(
      async (tx, closing) => {
        const payment = await this.payments.lockForRefund(tx, tenant, dto.payment_id);
        if (!payment)
          throw new PaymentsError('resource_missing', `No such payment: '${dto.payment_id}'`, {
            param,
            status: 400,
          });
        if (payment.status !== 'succeeded') {
          // Only captured money is refundable (an authorization is released with cancel instead).
          throw new PaymentsError(
            'payment_not_refundable',
            payment.status === 'requires_capture'
              ? `Payment ${payment.id} has status 'requires_capture': only captured money can be refunded. Capture it, or release the authorization with POST /v2/payments/${payment.id}/cancel.`
              : `Payment ${payment.id} has status '${payment.status}' and cannot be refunded.`,
            { param },
          );
        }
        const remaining = payment.amountReceived - payment.amountRefunded;
        const amount = dto.amount ?? remaining;
        if (remaining === 0 || amount > remaining) {
          throw new PaymentsError(
            'amount_exceeds_refundable',
            remaining === 0
              ? `Payment ${payment.id} has already been refunded in full.`
              : `Refund amount (${amount}) is greater than the amount left to refund on payment ${payment.id} (${remaining}).`,
            { param: 'amount' },
          );
        }
        const row = await this.refunds.create(tx, tenant, {
          id: newId('re'),
          paymentId: payment.id,
          amount,
          currency: payment.currency,
          reason: dto.reason ?? null,
          metadata: dto.metadata ?? {},
        });
        await this.payments.addRefunded(tx, tenant, payment.id, amount);
        const refund = refundView(row);
        // a refund of an intent's payment is a /v1 refund too: refund.created in the same row
        this.events.emit(
          closing,
          tenant,
          'refund.succeeded',
          refund,
          payment.paymentIntentId === null
            ? undefined
            : { type: 'refund.created', object: { ...stripeRefund(row, payment.paymentIntentId) } },
        );
        return row;
      },
      { completion },
    );
  }

  /**
   * Merges metadata into the refund (Stripe: a refund's metadata is all that can change). A
   * refund of an intent's payment emits `/v1`'s refund.updated (no `/v2` kind) when its
   * metadata changed, with the metadata before in previous_attributes.
   */
  update(tenant: Tenant, id: string, dto: RefundUpdateDto, idempotency?: IdempotentRequest): Promise<RefundView> {
    return this.updateRow(tenant, id, dto, presented(idempotency, refundView)).then(refundView);
  }

  /** update() answering the row (the `/v1` adapter shows it as Stripe's refund). */
  updateRow(tenant: Tenant, id: string, dto: RefundUpdateDto, completion?: CompletionHook<RefundRow>): Promise<RefundRow> {
    return this.transactions.run(
      async (tx, closing) => {
        const current = await this.refunds.lock(tx, tenant, id);
        if (!current) throw new NotFoundError('refund', id, 'id');
        if (dto.metadata === undefined) return current;
        const before = current.metadata as Metadata;
        const metadata = mergeMetadata(before, dto.metadata);
        if (metadata === false) throw tooManyKeys();
        const row = await this.refunds.updateMetadata(tx, tenant, id, metadata);
        const intentId = await this.refunds.paymentIntentIdOf(tx, row);
        if (intentId !== null && !sameMetadata(before, metadata)) {
          this.events.emitStripe(closing, tenant, {
            type: 'refund.updated',
            object: { ...stripeRefund(row, intentId) },
            previousAttributes: { metadata: before },
          });
        }
        return row;
      },
      { completion },
    );
  }

  /** A refund of an intent's payment with its intent's id (`/v1` shows only those); 404 for any other. */
  async retrieveOfIntent(tenant: Tenant, id: string): Promise<{ row: RefundRow; paymentIntentId: string }> {
    const found = await this.refunds.findOfIntent(tenant, id);
    if (!found) throw new NotFoundError('refund', id, 'id');
    return found;
  }

  /** Refunds of intents' payments (of one intent), newest first, each with its intent's id. */
  async listOfIntents(
    tenant: Tenant,
    query: ListQuery,
    paymentIntentId: string | undefined,
  ): Promise<{ rows: Array<{ row: RefundRow; paymentIntentId: string }>; hasMore: boolean }> {
    const request = await resolvePage(query, 'refund', (id) => this.refunds.cursorOfIntent(tenant, id));
    const rows = await this.refunds.listOfIntents(tenant, request, paymentIntentId);
    const listed = page(rows, request, '', (r) => r);
    return { rows: listed.data, hasMore: listed.has_more };
  }

  async retrieve(tenant: Tenant, id: string): Promise<RefundView> {
    const row = await this.refunds.find(tenant, id);
    if (!row) throw new NotFoundError('refund', id, 'id');
    return refundView(row);
  }

  async list(tenant: Tenant, query: RefundListQuery): Promise<ListEnvelope<RefundView>> {
    const request = await resolvePage(query, 'refund', (id) => this.refunds.cursor(tenant, id));
    const rows = await this.refunds.list(tenant, request, query.payment_id);
    return page(rows, request, '/v2/refunds', refundView) satisfies RefundListView;
  }
}

/** The completion that stores `view(row)` as the route's success answer. */
export function presented<R>(
  idempotency: IdempotentRequest | undefined,
  view: (row: R) => unknown,
): CompletionHook<R> | undefined {
  return idempotency?.completion<R>((row) => ({ status: idempotency.successStatus, body: toJson(view(row)) }));
}

function sameMetadata(a: Metadata, b: Metadata): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => b[k] === a[k]);
}
