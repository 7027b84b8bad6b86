import { Injectable } from '@nestjs/common';
import { newId, NotFoundError, TransactionRunner, type IdempotentRequest } from '@app/platform';
import { PaymentEvents } from '../common/events';
import { type ListEnvelope, page, resolvePage } from '../common/list';
import type { Tenant } from '../common/tenant';
import { PaymentsError } from '../errors';
import { PaymentsRepository } from '../payments/payments.repository';
import { type Metadata, mergeMetadata, tooManyKeys } from '../common/metadata';
import type { RefundCreateDto, RefundListQuery, RefundUpdateDto } from './dto/refund.dto';
import { type RefundListView, type RefundView, refundView } from './dto/refund.view';
import { RefundsRepository } from './refunds.repository';

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
    return this.transactions.run(
      async (tx, closing) => {
        const payment = await this.payments.lockForRefund(tx, tenant, dto.payment_id);
        if (!payment)
          throw new PaymentsError('resource_missing', `No such payment: '${dto.payment_id}'`, {
            param: 'payment_id',
            status: 400,
          });
        if (payment.status !== 'succeeded') {
          // Only captured money is refundable (an authorization is released with cancel instead).
          throw new PaymentsError(
            'payment_not_refundable',
            payment.status === 'requires_capture'
              ? `Payment ${payment.id} has status 'requires_capture': only captured money can be refunded. Capture it, or release the authorization with POST /v2/payments/${payment.id}/cancel.`
              : `Payment ${payment.id} has status '${payment.status}' and cannot be refunded.`,
            { param: 'payment_id' },
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
        this.events.emit(closing, tenant, 'refund.succeeded', refund);
        return refund;
      },
      { completion: idempotency?.completion() },
    );
  }

  /** Merges metadata into the refund (Stripe: a refund's metadata is all that can change). */
  update(tenant: Tenant, id: string, dto: RefundUpdateDto, idempotency?: IdempotentRequest): Promise<RefundView> {
    return this.transactions.run(
      async (tx) => {
        const current = await this.refunds.lock(tx, tenant, id);
        if (!current) throw new NotFoundError('refund', id, 'id');
        if (dto.metadata === undefined) return refundView(current);
        const metadata = mergeMetadata(current.metadata as Metadata, dto.metadata);
        if (metadata === false) throw tooManyKeys();
        return refundView(await this.refunds.updateMetadata(tx, tenant, id, metadata));
      },
      { completion: idempotency?.completion() },
    );
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
