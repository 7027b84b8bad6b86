import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  Clock,
  type Closing,
  NotFoundError,
  type Tx,
  QueueRegistry,
  TransactionRunner,
  type TypedQueue,
  withTimeout,
  type IdempotentRequest,
} from '@app/platform';
import { PaymentEvents } from '../common/events';
import { PaymentIntentSides } from '../payment-intents/payment-intent-sides';
import type { Tenant } from '../common/tenant';
import { PaymentsConfig } from '../config';
import { PaymentsError } from '../errors';
import { LIVE_PROCESSOR, PaymentProcessor } from '../processor/payment-processor';
import { TestModeProcessor } from '../processor/test-mode.processor';
import { AUTHORIZATION_QUEUE, type AuthorizationJobData, AuthorizationJob, expireJobId } from './authorization-expiry.jobs';
import type { PaymentCancelDto, PaymentCaptureDto } from './dto/payment.dto';
import { type PaymentView, paymentView } from './dto/payment.view';
import { type PaymentRow, PaymentsRepository } from './payments.repository';

/** How many authorizations one sweep looks at; the next sweep continues. */
const SWEEP_BATCH = 500;
/** Redis trouble must not stall a committed create: after this the request answers and the sweep enqueues. */
const SCHEDULE_WAIT_MS = 1_000;

/**
 * Authorize and capture (platform contract: Payments, more; docs/payments.md): a payment made
 * with `capture_method: manual` waits in `requires_capture` until it is captured (→ succeeded),
 * canceled (→ canceled) or expires at capture_before (→ canceled, reason automatic). Every
 * transition is a conditional UPDATE of the locked row with its event in the same transaction,
 * so of a concurrent capture, cancel and expiry exactly one applies and its event fires once.
 */
@Injectable()
export class AuthorizationsService {
  private readonly logger = new Logger('PaymentAuthorizations');

  constructor(
    private readonly payments: PaymentsRepository,
    private readonly transactions: TransactionRunner,
    private readonly events: PaymentEvents,
    private readonly clock: Clock,
    private readonly queues: QueueRegistry,
    private readonly testProcessor: TestModeProcessor,
    private readonly config: PaymentsConfig,
    private readonly sides: PaymentIntentSides,
    @Optional() @Inject(LIVE_PROCESSOR) private readonly liveProcessor: PaymentProcessor | null,
  ) {}

  /** When an authorization made now expires: AUTHORIZATION_TTL_HOURS from now (default 7 days, as card authorizations). */
  captureBefore(): Date {
    return new Date(this.clock.nowMs() + this.config.AUTHORIZATION_TTL_HOURS * 3_600_000);
  }

  private get queue(): TypedQueue<AuthorizationJobData> {
    return this.queues.queue(AUTHORIZATION_QUEUE);
  }

  private processor(tenant: Tenant): PaymentProcessor {
    const processor = tenant.mode === 'test' ? this.testProcessor : this.liveProcessor;
    if (!processor) {
      throw new PaymentsError('live_mode_not_enabled', 'Live mode is not enabled: no live payment processor is configured.');
    }
    return processor;
  }

  /** Captures `amount_to_capture` (default: all that is capturable) and releases the rest. */
  capture(tenant: Tenant, id: string, dto: PaymentCaptureDto, idempotency?: IdempotentRequest): Promise<PaymentView> {
    return this.transactions.run(
      async (tx, closing) => {
        const payment = await this.lockAuthorization(tx, tenant, id, 'capture');
        return paymentView(await this.captureLocked(tx, closing, tenant, payment, dto.amount_to_capture));
      },
      { completion: idempotency?.completion() },
    );
  }

  /**
   * Captures `amount` (default: all of it) of an authorization the caller has locked in `tx`
   * (`/v2` capture, or `/v1` capture of an intent's payment): payment.captured, then
   * payment.succeeded with the intent's payment_intent.succeeded when the payment is an intent's.
   */
  async captureLocked(
    tx: Tx,
    closing: Closing,
    tenant: Tenant,
    payment: PaymentRow,
    amountToCapture?: number,
  ): Promise<PaymentRow> {
    const amount = amountToCapture ?? payment.amountCapturable;
    if (amount > payment.amountCapturable) {
      throw new PaymentsError(
        'amount_exceeds_capturable',
        `amount_to_capture (${amount}) is greater than the amount capturable on payment ${payment.id} (${payment.amountCapturable}).`,
        { param: 'amount_to_capture' },
      );
    }
    await this.processor(tenant).capture({ paymentId: payment.id, mode: tenant.mode, amount });
    const row = await this.payments.markCaptured(tx, tenant, payment.id, amount, this.clock.now());
    if (!row) throw unexpectedState(payment, 'capture');
    const view = paymentView(row);
    this.events.emit(closing, tenant, 'payment.captured', view);
    // Stripe's payment_intent.succeeded fires on capture too: a handler of payment.succeeded sees every payment that took money.
    this.events.emit(closing, tenant, 'payment.succeeded', view, await this.sides.ofPayment(tx, 'payment.succeeded', row));
    return row;
  }

  /** Releases the authorization in full. */
  cancel(tenant: Tenant, id: string, dto: PaymentCancelDto, idempotency?: IdempotentRequest): Promise<PaymentView> {
    return this.transactions.run(
      async (tx, closing) => {
        const payment = await this.lockAuthorization(tx, tenant, id, 'cancel');
        return paymentView(
          await this.cancelLocked(tx, closing, tenant, payment, dto.cancellation_reason ?? 'requested_by_customer'),
        );
      },
      { completion: idempotency?.completion() },
    );
  }

  /** Releases an authorization the caller has locked in `tx`: payment.canceled (with payment_intent.canceled for an intent's). */
  async cancelLocked(tx: Tx, closing: Closing, tenant: Tenant, payment: PaymentRow, reason: string): Promise<PaymentRow> {
    await this.processor(tenant).release({ paymentId: payment.id, mode: tenant.mode, amount: payment.amountCapturable });
    const row = await this.payments.markCanceled(tx, tenant, payment.id, reason, this.clock.now());
    if (!row) throw unexpectedState(payment, 'cancel');
    await this.emitCanceled(tx, closing, tenant, row);
    return row;
  }

  /** payment.canceled, with payment_intent.canceled when the payment is an intent's (cancel and expiry). */
  private async emitCanceled(tx: Tx, closing: Closing, tenant: Tenant, row: PaymentRow): Promise<void> {
    this.events.emit(
      closing,
      tenant,
      'payment.canceled',
      paymentView(row),
      await this.sides.ofPayment(tx, 'payment.canceled', row),
    );
  }

  /**
   * Cancels the authorization if it is still uncaptured and past capture_before; otherwise
   * (captured, canceled, not yet due, unknown) does nothing. Jobs only say "look at this
   * payment now", so a duplicate, early or late job is harmless. Answers whether it canceled.
   */
  async expire(paymentId: string): Promise<boolean> {
    const canceled = await this.transactions.run(async (tx, closing) => {
      const row = await this.payments.expireAuthorization(tx, paymentId, this.clock.now());
      if (!row) return false;
      const tenant: Tenant = { accountId: row.accountId, mode: row.mode };
      if (tenant.mode === 'live' && this.liveProcessor) {
        await this.liveProcessor.release({ paymentId, mode: 'live', amount: row.amount });
      }
      await this.emitCanceled(tx, closing, tenant, row);
      return true;
    });
    if (canceled) this.logger.log({ paymentId }, `authorization ${paymentId} expired and was canceled`);
    return canceled;
  }

  /** Enqueues the expiry of an authorization at its capture_before (deterministic job id: a second enqueue adds nothing). */
  async schedule(payment: { id: string; captureBefore: Date }): Promise<void> {
    await this.queue.add(
      AuthorizationJob.Expire,
      { paymentId: payment.id },
      {
        jobId: expireJobId(payment.id, payment.captureBefore),
        delay: Math.max(0, payment.captureBefore.getTime() - this.clock.nowMs()),
        attempts: 5,
        backoff: { type: 'exponential', delay: 1_000 },
        removeOnComplete: { age: 24 * 3600 },
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    );
  }

  /** schedule() after a commit: Redis trouble is logged, not answered (the sweep enqueues what is missing). */
  async scheduleQuietly(payment: PaymentView): Promise<void> {
    if (payment.status !== 'requires_capture' || payment.capture_before === null) return;
    try {
      const captureBefore = new Date(payment.capture_before);
      await withTimeout(
        this.schedule({ id: payment.id, captureBefore }),
        SCHEDULE_WAIT_MS,
        `no answer from Redis within ${SCHEDULE_WAIT_MS} ms`,
      );
    } catch (err) {
      this.logger.warn(`could not enqueue the expiry of ${payment.id} (the sweep will): ${String(err)}`);
    }
  }

  /**
   * The repair pass (worker start, then every minute): cancels every authorization past
   * capture_before (a lost job, downtime), then re-enqueues the expiry of every pending one,
   * which adds only the jobs Redis no longer has.
   */
  async sweep(): Promise<{ expired: number; scheduled: number }> {
    const due = await this.payments.expiredAuthorizationIds(this.clock.now(), SWEEP_BATCH);
    let expired = 0;
    for (const id of due) if (await this.expire(id)) expired++;
    const pending = await this.payments.pendingAuthorizations(SWEEP_BATCH);
    for (const payment of pending) await this.schedule(payment);
    return { expired, scheduled: pending.length };
  }

  /** The payment locked in `tx`, refused unless it waits for capture (404 when it is not the tenant's). */
  async lockAuthorization(tx: Tx, tenant: Tenant, id: string, action: 'capture' | 'cancel'): Promise<PaymentRow> {
    const payment = await this.payments.lock(tx, tenant, id);
    if (!payment) throw new NotFoundError('payment', id, 'id');
    if (payment.status !== 'requires_capture') throw unexpectedState(payment, action);
    return payment;
  }
}

/** Stripe's `payment_intent_unexpected_state`, as `payment_unexpected_state`. */
function unexpectedState(payment: PaymentRow, action: 'capture' | 'cancel'): PaymentsError {
  return new PaymentsError(
    'payment_unexpected_state',
    `This payment could not be ${action === 'capture' ? 'captured' : 'canceled'} because it has a status of ${payment.status}. Only a payment with status requires_capture can be.`,
  );
}
