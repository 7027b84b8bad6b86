import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  Clock,
  currentRequestId,
  domainErrorBody,
  newId,
  NotFoundError,
  parseTimestamp,
  TransactionRunner,
  type IdempotentRequest,
} from '@app/platform';
import { CustomersRepository } from '../customers/customers.repository';
import { PaymentEvents } from '../common/events';
import { type ListEnvelope, page, resolvePage } from '../common/list';
import type { Tenant } from '../common/tenant';
import { LIVE_PROCESSOR, PaymentProcessor } from '../processor/payment-processor';
import {
  DEFAULT_PAYMENT_METHOD,
  TEST_PAYMENT_METHOD_NAMES,
  TestModeProcessor,
  testOutcome,
} from '../processor/test-mode.processor';
import { PaymentsError } from '../errors';
import { type Metadata, mergeMetadata, tooManyKeys } from '../common/metadata';
import { AuthorizationsService } from './authorizations.service';
import {
  CREATED_FILTER,
  type PaymentCreateDto,
  type PaymentListQuery,
  type PaymentUpdateDto,
  type PaymentVolumeQuery,
} from './dto/payment.dto';
import { type PaymentListView, type PaymentView, paymentView, type PaymentVolumeView } from './dto/payment.view';
import { PaymentsRepository } from './payments.repository';

/** 402 `card_error` for a failed payment, carrying its decline code and id (platform contract). */
function cardError(payment: PaymentView): PaymentsError {
  const code = payment.failure_code === 'processing_error' ? 'processing_error' : 'card_declined';
  return new PaymentsError(code, payment.failure_message ?? 'Your card was declined.', {
    details: { ...(payment.decline_code ? { decline_code: payment.decline_code } : {}), payment_id: payment.id },
  });
}

function timestamp(value: string | undefined, param: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = parseTimestamp(value, CREATED_FILTER);
  if (date === undefined) throw new PaymentsError('parameter_invalid', `${param} is not a valid timestamp`, { param });
  return date;
}

@Injectable()
export class PaymentsService {
  constructor(
    private readonly payments: PaymentsRepository,
    private readonly customers: CustomersRepository,
    private readonly transactions: TransactionRunner,
    private readonly events: PaymentEvents,
    private readonly testProcessor: TestModeProcessor,
    @Optional() @Inject(LIVE_PROCESSOR) private readonly liveProcessor: PaymentProcessor | null,
    private readonly authorizations: AuthorizationsService,
    private readonly clock: Clock,
  ) {}

  /**
   * Charges the customer. The payment row (succeeded or failed), its event and — under an
   * Idempotency-Key — the response commit in one transaction; a failed payment is stored and
   * then answered 402.
   */
  async create(tenant: Tenant, dto: PaymentCreateDto, idempotency?: IdempotentRequest): Promise<PaymentView> {
    const processor = tenant.mode === 'test' ? this.testProcessor : this.liveProcessor;
    if (!processor) {
      throw new PaymentsError(
        'live_mode_not_enabled',
        'Live mode charges are not enabled: no live payment processor is configured.',
      );
    }
    const method = dto.payment_method ?? DEFAULT_PAYMENT_METHOD;
    const captureMethod = dto.capture_method ?? 'automatic';
    if (tenant.mode === 'test' && !testOutcome(method)) {
      throw new PaymentsError(
        'parameter_invalid',
        `No such test payment method: '${method}'. Use one of ${TEST_PAYMENT_METHOD_NAMES.join(', ')}.`,
        { param: 'payment_method' },
      );
    }
    if (!(await this.customers.isActive(tenant, dto.customer_id))) {
      throw new PaymentsError('resource_missing', `No such customer: '${dto.customer_id}'`, {
        param: 'customer_id',
        status: 400,
      });
    }
    const outcome = await processor.charge({
      amount: dto.amount,
      currency: dto.currency,
      paymentMethod: method,
      mode: tenant.mode,
      captureMethod,
    });
    const failed = outcome.status === 'failed' ? outcome : undefined;
    // manual: authorized only (requires_capture) until captured, canceled or expired.
    const authorized = !failed && captureMethod === 'manual';
    const received = failed || authorized ? 0 : dto.amount;

    const now = this.clock.now();
    // Three rows commit together: the payment, its event (outbox, written with the last
    // statement) and, under an Idempotency-Key, the stored response (the completion hook).
    const view = await this.transactions.runSql(
      async (tx, closing) => {
        const row = await this.payments.create(tx, tenant, {
          id: newId('pay'),
          customerId: dto.customer_id,
          amount: dto.amount,
          currency: dto.currency,
          status: authorized ? 'requires_capture' : outcome.status,
          description: dto.description ?? null,
          metadata: dto.metadata ?? {},
          paymentMethod: method,
          failureCode: failed?.failureCode ?? null,
          declineCode: failed?.declineCode ?? null,
          failureMessage: failed?.message ?? null,
          captureMethod,
          amountCapturable: authorized ? dto.amount : 0,
          amountReceived: received,
          captureBefore: authorized ? this.authorizations.captureBefore() : null,
          capturedAt: received > 0 ? now : null,
          paymentIntentId: null,
        });
        const payment = paymentView(row);
        this.events.emit(
          closing,
          tenant,
          failed ? 'payment.failed' : authorized ? 'payment.requires_capture' : 'payment.succeeded',
          payment,
        );
        return payment;
      },
      {
        // a declined charge is committed and answered 402: that answer is what a retry replays
        completion: idempotency?.completion<PaymentView>((payment) =>
          payment.status === 'failed'
            ? { status: 402, body: domainErrorBody(cardError(payment), currentRequestId() ?? '') }
            : undefined,
        ),
      },
    );
    if (view.status === 'failed') throw cardError(view);
    await this.authorizations.scheduleQuietly(view);
    return view;
  }

  /** Description and metadata (Stripe's update: metadata merges, a key set to "" or null is removed). */
  update(tenant: Tenant, id: string, dto: PaymentUpdateDto, idempotency?: IdempotentRequest): Promise<PaymentView> {
    return this.transactions.run(
      async (tx) => {
        const current = await this.payments.lock(tx, tenant, id);
        if (!current) throw new NotFoundError('payment', id, 'id');
        const changes: { description?: string | null; metadata?: Metadata } = {};
        if (dto.description !== undefined) changes.description = dto.description === '' ? null : dto.description;
        if (dto.metadata !== undefined) {
          const metadata = mergeMetadata(current.metadata as Metadata, dto.metadata);
          if (metadata === false) throw tooManyKeys();
          changes.metadata = metadata;
        }
        if (Object.keys(changes).length === 0) return paymentView(current);
        return paymentView(await this.payments.update(tx, tenant, id, changes));
      },
      { completion: idempotency?.completion() },
    );
  }

  async retrieve(tenant: Tenant, id: string): Promise<PaymentView> {
    const row = await this.payments.find(tenant, id);
    if (!row) throw new NotFoundError('payment', id, 'id');
    return paymentView(row);
  }

  async list(tenant: Tenant, query: PaymentListQuery): Promise<ListEnvelope<PaymentView>> {
    const request = await resolvePage(query, 'payment', (id) => this.payments.cursor(tenant, id));
    const createdGte = timestamp(query['created[gte]'], 'created[gte]');
    const createdLte = timestamp(query['created[lte]'], 'created[lte]');
    const rows = await this.payments.list(tenant, request, {
      ...(query.customer_id ? { customerId: query.customer_id } : {}),
      ...(query.status ? { status: query.status } : {}),
      ...(createdGte ? { createdGte } : {}),
      ...(createdLte ? { createdLte } : {}),
    });
    return page(rows, request, '/v2/payments', paymentView) satisfies PaymentListView;
  }

  /** Succeeded volume per UTC day for the last `days` days, today included (docs/decisions.md 119). */
  async volume(tenant: Tenant, query: PaymentVolumeQuery): Promise<PaymentVolumeView> {
    const days = query.days ?? 30;
    const today = new Date(this.clock.now().toISOString().slice(0, 10) + 'T00:00:00.000Z');
    const since = new Date(today.getTime() - (days - 1) * 86_400_000);
    const rows = await this.payments.volume(tenant, since, query.currency);
    return {
      object: 'payment_volume',
      days,
      since: since.toISOString().slice(0, 10),
      until: today.toISOString().slice(0, 10),
      currency: query.currency ?? null,
      data: rows,
    };
  }
}
