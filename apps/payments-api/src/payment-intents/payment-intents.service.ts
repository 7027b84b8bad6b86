import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  Clock,
  type Closing,
  type CompletionHook,
  type IdempotentRequest,
  newId,
  NotFoundError,
  type RawHttpError,
  type SqlTx,
  toJson,
  TransactionRunner,
} from '@app/platform';
import { CustomersRepository } from '../customers/customers.repository';
import { PaymentEvents } from '../common/events';
import { resolvePage } from '../common/list';
import { type Metadata, mergeMetadata, tooManyKeys } from '../common/metadata';
import type { Currency } from '../common/money';
import type { Tenant } from '../common/tenant';
import { PaymentsError } from '../errors';
import { AuthorizationsService } from '../payments/authorizations.service';
import { paymentView } from '../payments/dto/payment.view';
import { type NewPayment, type PaymentRow, PaymentsRepository } from '../payments/payments.repository';
import { type ChargeResult, LIVE_PROCESSOR, PaymentProcessor } from '../processor/payment-processor';
import { TestModeProcessor, testOutcome } from '../processor/test-mode.processor';
import type {
  PaymentIntentCancel,
  PaymentIntentCapture,
  PaymentIntentConfirm,
  PaymentIntentCreate,
  PaymentIntentListQuery,
  PaymentIntentUpdate,
} from './dto/payment-intent.input';
import {
  confirmable,
  intentStatus,
  type LastPaymentError,
  type PaymentIntentView,
  paymentIntentView,
} from './dto/payment-intent.view';
import { intentDeclined, missingPaymentMethod, unexpectedState } from './payment-intent-errors';
import { INTENT_EVENT_OF } from './payment-intent-sides';
import {
  type IntentChanges,
  type IntentConfirmation,
  type NewPaymentIntent,
  type IntentWithLatest,
  type PaymentIntentRow,
  PaymentIntentsRepository,
} from './payment-intents.repository';

/** What a create or confirm did: the intent as it now is, the payment it made, and the 402 of a decline. */
interface Confirmation {
  readonly view: PaymentIntentView;
  readonly payment?: PaymentRow;
  readonly declined?: RawHttpError;
}

/** A list page of intents (the adapter makes Stripe's list of it). */
export interface PaymentIntentPage {
  readonly data: PaymentIntentView[];
  readonly hasMore: boolean;
}

const CONFIRMABLE = ['requires_payment_method', 'requires_confirmation'] as const;

/** The fields of a just-confirmed intent as they were before its confirmation (payment_intent.created shows that). */
const UNCONFIRMED = { status: 'requires_confirmation', latestPaymentId: null, lastPaymentError: null } as const;

/**
 * Stripe's PaymentIntents (issue 35; docs/stripe.md), a `/v1` object over `/v2`'s payments:
 * confirming an intent charges through the same processor and writes a payment (a `/v2`
 * Payment, Stripe's Charge) naming the intent, in the transaction that updates the intent and
 * emits the event with both its sides. Until confirmed, an intent is on `/v1` only. Capture
 * and cancel of an authorized intent go through AuthorizationsService on its latest payment,
 * so `/v2` sees them as its own.
 */
@Injectable()
export class PaymentIntentsService {
  constructor(
    private readonly intents: PaymentIntentsRepository,
    private readonly payments: PaymentsRepository,
    private readonly customers: CustomersRepository,
    private readonly transactions: TransactionRunner,
    private readonly events: PaymentEvents,
    private readonly authorizations: AuthorizationsService,
    private readonly testProcessor: TestModeProcessor,
    private readonly clock: Clock,
    @Optional() @Inject(LIVE_PROCESSOR) private readonly liveProcessor: PaymentProcessor | null,
  ) {}

  /**
   * Creates the intent (payment_intent.created, `/v1` only) and, with `confirm`, confirms it
   * in the same transaction: one more event (payment_intent.succeeded, …amount_capturable_updated
   * or …payment_failed, each with its `/v2` payment.* side). A decline commits, then answers 402.
   */
  async create(tenant: Tenant, input: PaymentIntentCreate, idempotency?: IdempotentRequest): Promise<PaymentIntentView> {
    const paymentMethod = input.payment_method ?? null;
    if (input.customer !== undefined) await this.checkCustomer(tenant, input.customer);
    if (paymentMethod !== null) this.checkPaymentMethod(tenant, paymentMethod);
    const processor = input.confirm ? this.processor(tenant) : undefined;
    if (processor && paymentMethod === null) throw missingPaymentMethod();
    const intent: NewPaymentIntent = {
      id: newId('pi'),
      customerId: input.customer ?? null,
      amount: input.amount,
      currency: input.currency,
      status: paymentMethod === null ? 'requires_payment_method' : 'requires_confirmation',
      captureMethod: input.capture_method ?? 'automatic',
      paymentMethod,
      description: input.description ?? null,
      metadata: input.metadata ?? {},
    };
    if (!processor || paymentMethod === null) {
      const result = await this.transactions.runSql(
        async (tx, closing) => {
          const created = paymentIntentView(await this.intents.insert(tx, tenant, intent), null);
          this.events.emitStripe(closing, tenant, { type: 'payment_intent.created', object: { ...created } });
          return { view: created };
        },
        { completion: this.completion(idempotency) },
      );
      return this.answer(result);
    }
    // A new intent: no one else can confirm it, so it is charged before the transaction (as a
    // /v2 payment is) and written with its first payment in one statement.
    const outcome = await this.charge(processor, tenant, intent, paymentMethod);
    const { payment, confirmation } = this.confirmationOf(intent, paymentMethod, outcome);
    const result = await this.transactions.runSql(
      async (tx, closing) => {
        const written = await this.intents.insertWithPayment(tx, tenant, { ...intent, ...confirmation }, payment);
        const created = paymentIntentView({ ...written.intent, ...UNCONFIRMED, paymentMethod }, null);
        this.events.emitStripe(closing, tenant, { type: 'payment_intent.created', object: { ...created } });
        return this.confirmed(closing, tenant, written.intent, written.payment, confirmation.lastPaymentError);
      },
      { completion: this.completion(idempotency) },
    );
    return this.answer(result);
  }

  /** Confirms with the intent's payment method or the one given: charges (or authorizes) and makes a payment. */
  async confirm(
    tenant: Tenant,
    id: string,
    input: PaymentIntentConfirm,
    idempotency?: IdempotentRequest,
  ): Promise<PaymentIntentView> {
    if (input.payment_method !== undefined) this.checkPaymentMethod(tenant, input.payment_method);
    const result = await this.transactions.runSql(
      async (tx, closing) => {
        // the intent first: another tenant's id is a 404 whatever the mode can do
        const { intent } = await this.lockConfirmable(tx, tenant, id, 'confirm');
        const processor = this.processor(tenant);
        const paymentMethod = input.payment_method ?? intent.paymentMethod;
        if (paymentMethod === null) throw missingPaymentMethod();
        const current =
          input.capture_method !== undefined && input.capture_method !== intent.captureMethod
            ? await this.intents.update(tx, tenant, id, { captureMethod: input.capture_method })
            : intent;
        return this.confirmLocked(tx, closing, tenant, current, paymentMethod, processor);
      },
      { completion: this.completion(idempotency) },
    );
    return this.answer(result);
  }

  /**
   * Captures `amount_to_capture` (default: all) of the intent's authorization through
   * AuthorizationsService (payment.captured + payment.succeeded / payment_intent.succeeded);
   * the rest is released.
   */
  capture(tenant: Tenant, id: string, input: PaymentIntentCapture, idempotency?: IdempotentRequest): Promise<PaymentIntentView> {
    return this.transactions.run(
      async (tx, closing) => {
        const { intent, latest } = await this.lock(tx, tenant, id);
        const status = intentStatus(intent.status, latest);
        if (status !== 'requires_capture' || !latest) throw unexpectedState(status, 'capture', ['requires_capture']);
        const payment = await this.authorizations.lockAuthorization(tx, tenant, latest.id, 'capture');
        const captured = await this.authorizations.captureLocked(tx, closing, tenant, payment, input.amount_to_capture);
        return paymentIntentView(intent, captured);
      },
      { completion: idempotency?.completion() },
    );
  }

  /**
   * Cancels the intent: before any payment (or after a decline) the intent alone
   * (payment_intent.canceled, `/v1` only); an authorized one through AuthorizationsService
   * (payment.canceled with payment_intent.canceled). A succeeded or canceled intent: 400.
   */
  cancel(tenant: Tenant, id: string, input: PaymentIntentCancel, idempotency?: IdempotentRequest): Promise<PaymentIntentView> {
    return this.transactions.run(
      async (tx, closing) => {
        const { intent, latest } = await this.lock(tx, tenant, id);
        const status = intentStatus(intent.status, latest);
        if (status === 'requires_capture' && latest) {
          const payment = await this.authorizations.lockAuthorization(tx, tenant, latest.id, 'cancel');
          const canceled = await this.authorizations.cancelLocked(
            tx,
            closing,
            tenant,
            payment,
            input.cancellation_reason ?? 'requested_by_customer',
          );
          return paymentIntentView(intent, canceled);
        }
        if (!confirmable(status)) {
          throw unexpectedState(status, 'cancel', [...CONFIRMABLE, 'requires_capture']);
        }
        const row = await this.intents.update(tx, tenant, id, {
          status: 'canceled',
          canceledAt: this.clock.now(),
          cancellationReason: input.cancellation_reason ?? null,
        });
        const view = paymentIntentView(row, latest);
        this.events.emitStripe(closing, tenant, { type: 'payment_intent.canceled', object: { ...view } });
        return view;
      },
      { completion: idempotency?.completion() },
    );
  }

  /**
   * Stripe's update: description and metadata at any time (metadata merges, "" removes a key);
   * amount, currency, customer, payment_method and capture_method only while no payment is
   * under way (requires_payment_method or requires_confirmation). No event (Stripe has no
   * payment_intent.updated among the types `/v1` emits).
   */
  async update(
    tenant: Tenant,
    id: string,
    input: PaymentIntentUpdate,
    idempotency?: IdempotentRequest,
  ): Promise<PaymentIntentView> {
    if (typeof input.customer === 'string') await this.checkCustomer(tenant, input.customer);
    if (typeof input.payment_method === 'string') this.checkPaymentMethod(tenant, input.payment_method);
    return this.transactions.run(
      async (tx) => {
        const { intent, latest } = await this.lock(tx, tenant, id);
        const status = intentStatus(intent.status, latest);
        const changes: IntentChanges = {};
        const payable =
          input.amount !== undefined ||
          input.currency !== undefined ||
          input.customer !== undefined ||
          input.payment_method !== undefined ||
          input.capture_method !== undefined;
        if (payable) {
          if (!confirmable(status)) throw unexpectedState(status, 'update the amount or payment details of', CONFIRMABLE);
          if (input.amount !== undefined) changes.amount = input.amount;
          if (input.currency !== undefined) changes.currency = input.currency;
          if (input.customer !== undefined) changes.customerId = input.customer;
          if (input.capture_method !== undefined) changes.captureMethod = input.capture_method;
          if (input.payment_method !== undefined) {
            changes.paymentMethod = input.payment_method;
            changes.status = input.payment_method === null ? 'requires_payment_method' : 'requires_confirmation';
          }
        }
        if (input.description !== undefined) changes.description = input.description === '' ? null : input.description;
        if (input.metadata !== undefined) {
          const metadata = mergeMetadata(intent.metadata as Metadata, input.metadata);
          if (metadata === false) throw tooManyKeys();
          changes.metadata = metadata;
        }
        if (Object.keys(changes).length === 0) return paymentIntentView(intent, latest);
        return paymentIntentView(await this.intents.update(tx, tenant, id, changes), latest);
      },
      { completion: idempotency?.completion() },
    );
  }

  async retrieve(tenant: Tenant, id: string): Promise<PaymentIntentView> {
    const found = await this.intents.find(tenant, id);
    if (!found) throw new NotFoundError('payment_intent', id, 'id');
    return paymentIntentView(found.intent, found.latest);
  }

  /** Newest first by keyset (`starting_after` / `ending_before`), of one customer, created in a range. */
  async list(tenant: Tenant, query: PaymentIntentListQuery): Promise<PaymentIntentPage> {
    const request = await resolvePage(query, 'payment_intent', (id) => this.intents.cursor(tenant, id));
    const rows = await this.intents.list(tenant, request, {
      ...(query.customer === undefined ? {} : { customerId: query.customer }),
      ...(query.created === undefined ? {} : { created: query.created }),
    });
    const hasMore = rows.length > request.limit;
    const slice = rows.slice(0, request.limit);
    if (request.before) slice.reverse();
    return { data: slice.map((r) => paymentIntentView(r.intent, r.latest)), hasMore };
  }

  /**
   * The payment a `/v1` refund of the intent refunds: its latest (RefundsService checks that
   * it succeeded). 400 naming `param` when the intent is not the tenant's or was never paid.
   */
  async paymentToRefund(tenant: Tenant, id: string, param: string): Promise<string> {
    const found = await this.intents.find(tenant, id);
    if (!found) throw new PaymentsError('resource_missing', `No such payment_intent: '${id}'`, { param, status: 400 });
    const status = intentStatus(found.intent.status, found.latest);
    if (status !== 'succeeded' || !found.latest) {
      throw new PaymentsError(
        'payment_not_refundable',
        `This PaymentIntent (${id}) does not have a successful charge to refund: its status is ${status}.`,
        { param },
      );
    }
    return found.latest.id;
  }

  /** The intent a payment (Stripe's `charge`) confirmed; 400 naming `param` for a payment that is no intent's. */
  async intentOfPayment(tenant: Tenant, paymentId: string, param: string): Promise<string> {
    const payment = await this.payments.find(tenant, paymentId);
    if (!payment || payment.paymentIntentId === null) {
      throw new PaymentsError('resource_missing', `No such charge: '${paymentId}'`, { param, status: 400 });
    }
    return payment.paymentIntentId;
  }

  /**
   * Charges (or authorizes) the locked intent and writes what came of it: the payment (a
   * failed one too, as `/v2` stores declines), the intent's latest payment and, after a
   * decline, its last_payment_error with the intent back in requires_payment_method (Stripe);
   * then the event, whose `/v1` side is the intent after the change.
   */
  private async confirmLocked(
    tx: SqlTx,
    closing: Closing,
    tenant: Tenant,
    intent: PaymentIntentRow,
    paymentMethod: string,
    processor: PaymentProcessor,
  ): Promise<Confirmation> {
    const outcome = await this.charge(processor, tenant, intent, paymentMethod);
    const { payment, confirmation } = this.confirmationOf(intent, paymentMethod, outcome);
    const row = await this.payments.create(tx, tenant, payment);
    const updated = await this.intents.recordConfirmation(tx, tenant, intent.id, confirmation);
    return this.confirmed(closing, tenant, updated, row, confirmation.lastPaymentError);
  }

  private charge(
    processor: PaymentProcessor,
    tenant: Tenant,
    intent: Pick<PaymentIntentRow, 'amount' | 'currency' | 'captureMethod'>,
    paymentMethod: string,
  ): Promise<ChargeResult> {
    return processor.charge({
      amount: intent.amount,
      currency: intent.currency as Currency,
      paymentMethod,
      mode: tenant.mode,
      captureMethod: intent.captureMethod === 'manual' ? 'manual' : 'automatic',
    });
  }

  /**
   * What a charge's outcome writes: the payment (a failed one too, as `/v2` stores declines)
   * and, on the intent, its latest payment and, after a decline, Stripe's last_payment_error
   * with the intent back in requires_payment_method and its payment method detached.
   */
  private confirmationOf(
    intent: Pick<PaymentIntentRow, 'id' | 'amount' | 'currency' | 'captureMethod' | 'customerId' | 'description' | 'metadata'>,
    paymentMethod: string,
    outcome: ChargeResult,
  ): { payment: NewPayment; confirmation: IntentConfirmation } {
    const captureMethod = intent.captureMethod === 'manual' ? 'manual' : 'automatic';
    const failed = outcome.status === 'failed' ? outcome : undefined;
    const authorized = !failed && captureMethod === 'manual';
    const received = failed || authorized ? 0 : intent.amount;
    const payment: NewPayment = {
      id: newId('pay'),
      customerId: intent.customerId,
      amount: intent.amount,
      currency: intent.currency,
      status: authorized ? 'requires_capture' : outcome.status,
      description: intent.description,
      metadata: intent.metadata as Metadata,
      paymentMethod,
      failureCode: failed?.failureCode ?? null,
      declineCode: failed?.declineCode ?? null,
      failureMessage: failed?.message ?? null,
      captureMethod,
      amountCapturable: authorized ? intent.amount : 0,
      amountReceived: received,
      captureBefore: authorized ? this.authorizations.captureBefore() : null,
      capturedAt: received > 0 ? this.clock.now() : null,
      paymentIntentId: intent.id,
    };
    const lastPaymentError: LastPaymentError | null = failed
      ? {
          type: 'card_error',
          code: failed.failureCode,
          ...(failed.declineCode === null ? {} : { decline_code: failed.declineCode }),
          message: failed.message,
          payment_method: { id: paymentMethod, object: 'payment_method', type: 'card' },
        }
      : null;
    const confirmation: IntentConfirmation = {
      latestPaymentId: payment.id,
      status: failed ? 'requires_payment_method' : payment.status,
      // Stripe detaches a declined payment method: the next confirmation names one
      paymentMethod: failed ? null : paymentMethod,
      lastPaymentError,
    };
    return { payment, confirmation };
  }

  /** The confirmation's event (payment.* with payment_intent.* for the intent as it now is) and the answer. */
  private confirmed(
    closing: Closing,
    tenant: Tenant,
    intent: PaymentIntentRow,
    payment: PaymentRow,
    lastPaymentError: LastPaymentError | null,
  ): Confirmation {
    const view = paymentIntentView(intent, payment);
    const kind =
      payment.status === 'failed'
        ? 'payment.failed'
        : payment.status === 'requires_capture'
          ? 'payment.requires_capture'
          : 'payment.succeeded';
    const type = INTENT_EVENT_OF[kind];
    if (type === null) throw new Error(`${kind} has no payment_intent event`);
    this.events.emit(closing, tenant, kind, paymentView(payment), { type, object: { ...view } });
    return {
      view,
      payment,
      ...(lastPaymentError ? { declined: intentDeclined(view, { ...lastPaymentError, charge: payment.id }) } : {}),
    };
  }

  /** The stored answer of a create or confirm: the intent, or the 402 of a decline (what a retry replays). */
  private completion(idempotency: IdempotentRequest | undefined): CompletionHook<Confirmation> | undefined {
    return idempotency?.completion<Confirmation>((result) =>
      result.declined
        ? { status: result.declined.status, body: result.declined.body }
        : { status: idempotency.successStatus, body: toJson(result.view) },
    );
  }

  private async answer(result: Confirmation): Promise<PaymentIntentView> {
    if (result.declined) throw result.declined;
    if (result.payment) await this.authorizations.scheduleQuietly(paymentView(result.payment));
    return result.view;
  }

  private async lock(tx: SqlTx, tenant: Tenant, id: string): Promise<IntentWithLatest> {
    const found = await this.intents.lock(tx, tenant, id);
    if (!found) throw new NotFoundError('payment_intent', id, 'id');
    return found;
  }

  private async lockConfirmable(tx: SqlTx, tenant: Tenant, id: string, action: string): Promise<IntentWithLatest> {
    const found = await this.lock(tx, tenant, id);
    const status = intentStatus(found.intent.status, found.latest);
    if (!confirmable(status)) throw unexpectedState(status, action, CONFIRMABLE);
    return found;
  }

  private processor(tenant: Tenant): PaymentProcessor {
    const processor = tenant.mode === 'test' ? this.testProcessor : this.liveProcessor;
    if (!processor) {
      throw new PaymentsError(
        'live_mode_not_enabled',
        'Live mode charges are not enabled: no live payment processor is configured.',
      );
    }
    return processor;
  }

  private async checkCustomer(tenant: Tenant, customer: string): Promise<void> {
    if (!(await this.customers.isActive(tenant, customer))) {
      throw new PaymentsError('resource_missing', `No such customer: '${customer}'`, { param: 'customer', status: 400 });
    }
  }

  /** Test mode knows its test payment methods only (Stripe: "No such PaymentMethod"). */
  private checkPaymentMethod(tenant: Tenant, paymentMethod: string): void {
    if (tenant.mode === 'test' && !testOutcome(paymentMethod)) {
      throw new PaymentsError('resource_missing', `No such PaymentMethod: '${paymentMethod}'`, {
        param: 'payment_method',
        status: 400,
      });
    }
  }
}
