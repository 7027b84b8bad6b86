import {
  type ErrorBody,
  type JobMap,
  type QueueRegistry,
  registerErrorCodes,
  type TransactionRunner,
  type TypedQueue,
} from '@app/platform';
import type { Job } from 'bullmq';
import {
  fake,
  FakeLiveProcessor,
  paymentsFakes,
  type PaymentsFakes,
  fakeIdempotency,
  RecordingTestModeProcessor,
} from '../../../../test/fakes/payments-api';
import { rejection } from '../../../../test/fakes/rejection';
import { partialFake } from '../../../../test/fakes/typed-fake';
import type { PaymentsConfig } from '../config';
import { AuthorizationsService } from './authorizations.service';
import type { PaymentEvents } from '../common/events';
import type { Tenant } from '../common/tenant';
import type { CustomersRepository } from '../customers/customers.repository';
import { PAYMENTS_ERRORS } from '../errors';
import type { PaymentIntentSides } from '../payment-intents/payment-intent-sides';
import type { PaymentProcessor } from '../processor/payment-processor';
import type { PaymentCreateDto, PaymentListQuery } from './dto/payment.dto';
import type { PaymentsRepository } from './payments.repository';
import { PaymentsService } from './payments.service';

const shop: Tenant = { accountId: 'acct_shop', mode: 'test' };
const shopLive: Tenant = { accountId: 'acct_shop', mode: 'live' };
const other: Tenant = { accountId: 'acct_other', mode: 'test' };

describe('PaymentsService', () => {
  let fakes: PaymentsFakes;
  let testProcessor: RecordingTestModeProcessor;
  let customerId: string;

  /** Expiry jobs the service enqueued: [job id, delay]. */
  let enqueued: Array<[string | undefined, number | undefined]>;
  const authorizations = (liveProcessor: PaymentProcessor | null): AuthorizationsService =>
    new AuthorizationsService(
      fake<PaymentsRepository>(fakes.payments),
      fake<TransactionRunner>(fakes.transactions),
      fake<PaymentEvents>(fakes.events),
      fakes.clock,
      partialFake<QueueRegistry>({
        queue: <J extends JobMap>() =>
          partialFake<TypedQueue<J>>({
            add: (_name, _data, opts) => {
              enqueued.push([opts?.jobId, opts?.delay]);
              return Promise.resolve(partialFake<Job>({}));
            },
          }),
      }),
      testProcessor,
      partialFake<PaymentsConfig>({ AUTHORIZATION_TTL_HOURS: 168 }),
      fake<PaymentIntentSides>(fakes.intentSides),
      liveProcessor,
    );
  const service = (liveProcessor: PaymentProcessor | null = null): PaymentsService =>
    new PaymentsService(
      fake<PaymentsRepository>(fakes.payments),
      fake<CustomersRepository>(fakes.customers),
      fake<TransactionRunner>(fakes.transactions),
      fake<PaymentEvents>(fakes.events),
      testProcessor,
      liveProcessor,
      authorizations(liveProcessor),
      fakes.clock,
    );
  const charge = (fields: Partial<PaymentCreateDto> = {}): PaymentCreateDto => ({
    amount: 2000,
    currency: 'gbp',
    customer_id: customerId,
    ...fields,
  });

  beforeAll(() => registerErrorCodes(PAYMENTS_ERRORS));

  beforeEach(() => {
    enqueued = [];
    fakes = paymentsFakes();
    testProcessor = new RecordingTestModeProcessor();
    customerId = fakes.customers.seed(shop).id;
  });

  describe('create', () => {
    it('stores a succeeded payment and emits payment.succeeded in the same transaction', async () => {
      const payment = await service().create(shop, charge({ description: 'Order 1042', metadata: { order: '1042' } }));

      expect(payment.id).toMatch(/^pay_[0-9A-Za-z]{24}$/);
      expect(payment).toEqual({
        id: payment.id,
        object: 'payment',
        status: 'succeeded',
        amount: 2000,
        currency: 'gbp',
        customer_id: customerId,
        description: 'Order 1042',
        metadata: { order: '1042' },
        payment_method: 'pm_card_visa',
        capture_method: 'automatic',
        amount_capturable: 0,
        amount_received: 2000,
        capture_before: null,
        captured_at: '2026-11-21T05:00:00.000Z',
        canceled_at: null,
        cancellation_reason: null,
        amount_refunded: 0,
        refunded: false,
        failure_code: null,
        decline_code: null,
        failure_message: null,
        livemode: false,
        created: '2026-11-21T05:00:00.000Z',
      });
      expect(fakes.payments.get(payment.id)).toMatchObject({ accountId: 'acct_shop', mode: 'test', status: 'succeeded' });
      expect(fakes.events.emitted).toEqual([{ tenant: shop, event: 'payment.succeeded', data: payment }]);
      expect(fakes.transactions.committed).toMatchObject([{ kind: 'runSql', result: payment, storedResponse: undefined }]);
      expect(testProcessor.charges).toEqual([
        { amount: 2000, currency: 'gbp', paymentMethod: 'pm_card_visa', mode: 'test', captureMethod: 'automatic' },
      ]);
      expect(enqueued).toEqual([]);
    });

    it.each([
      ['pm_card_declined', 'card_declined', 'generic_decline', 'Your card was declined.'],
      ['pm_card_insufficient_funds', 'card_declined', 'insufficient_funds', 'Your card has insufficient funds.'],
      ['pm_card_processing_error', 'processing_error', null, 'An error occurred while processing your card. Try again later.'],
    ] as const)(
      '%s: stores the payment as failed, emits payment.failed and answers 402 card_error',
      async (method, code, declineCode, message) => {
        const error = await rejection(service().create(shop, charge({ payment_method: method }), fakeIdempotency()));

        const [stored] = fakes.payments.rows;
        expect(fakes.payments.rows).toHaveLength(1);
        expect(stored).toMatchObject({ status: 'failed', failureCode: code, declineCode, failureMessage: message });
        expect(error.code).toBe(code);
        expect(error.status).toBe(402);
        expect(error.type).toBe('card_error');
        expect(error.message).toBe(message);
        expect(error.details).toEqual({ ...(declineCode ? { decline_code: declineCode } : {}), payment_id: stored?.id });

        expect(fakes.events.emitted).toHaveLength(1);
        expect(fakes.events.emitted[0]).toMatchObject({
          tenant: shop,
          event: 'payment.failed',
          data: { id: stored?.id, status: 'failed', failure_code: code, decline_code: declineCode },
        });
        // Under an Idempotency-Key the transaction stores the 402, not the failed payment as a 201.
        const [committed] = fakes.transactions.committed;
        expect(committed?.storedResponse?.status).toBe(402);
        const body = committed?.storedResponse?.body as ErrorBody;
        expect(body.error).toMatchObject({ type: 'card_error', code, message, payment_id: stored?.id });
        expect(body.error.decline_code).toBe(declineCode ?? undefined);
      },
    );

    it('capture_method manual: authorizes only (requires_capture), emits payment.requires_capture and enqueues the expiry', async () => {
      const payment = await service().create(shop, charge({ capture_method: 'manual' }));

      expect(payment).toMatchObject({
        status: 'requires_capture',
        capture_method: 'manual',
        amount_capturable: 2000,
        amount_received: 0,
        capture_before: '2026-11-28T05:00:00.000Z',
        captured_at: null,
        refunded: false,
      });
      expect(fakes.events.emitted.map((e) => e.event)).toEqual(['payment.requires_capture']);
      expect(enqueued).toEqual([[`${payment.id}.expire.${Date.parse('2026-11-28T05:00:00.000Z')}`, 168 * 3_600_000]]);
    });

    it('capture_method manual with a declined card still fails with 402 and enqueues nothing', async () => {
      const error = await rejection(
        service().create(shop, charge({ capture_method: 'manual', payment_method: 'pm_card_declined' })),
      );
      expect(error.status).toBe(402);
      expect(fakes.payments.rows[0]).toMatchObject({ status: 'failed', amountCapturable: 0, captureBefore: null });
      expect(enqueued).toEqual([]);
    });

    it.each([
      ['tok_visa', 'succeeded', null],
      ['tok_mastercard', 'succeeded', null],
      ['pm_card_chargeDeclined', 'failed', 'generic_decline'],
      ['tok_chargeDeclined', 'failed', 'generic_decline'],
      ['pm_card_chargeDeclinedInsufficientFunds', 'failed', 'insufficient_funds'],
      ['pm_card_chargeDeclinedProcessingError', 'failed', null],
    ] as const)("accepts Stripe's test alias %s as the same outcome", async (method, status, declineCode) => {
      await service()
        .create(shop, charge({ payment_method: method }))
        .catch(() => undefined);
      expect(fakes.payments.rows[0]).toMatchObject({ status, declineCode, paymentMethod: method });
    });

    it('charges the default test method when none is given', async () => {
      const payment = await service().create(shop, charge());
      expect(payment.payment_method).toBe('pm_card_visa');
    });

    it('refuses an unknown test payment method before charging', async () => {
      const error = await rejection(service().create(shop, charge({ payment_method: 'pm_card_unionpay' })));

      expect(error.code).toBe('parameter_invalid');
      expect(error.param).toBe('payment_method');
      expect(testProcessor.charges).toEqual([]);
      expect(fakes.payments.rows).toEqual([]);
    });

    it('refuses live mode without a live processor: 403 live_mode_not_enabled, nothing charged or stored', async () => {
      const liveCustomer = fakes.customers.seed(shopLive).id;
      const error = await rejection(service(null).create(shopLive, charge({ customer_id: liveCustomer })));

      expect(error.code).toBe('live_mode_not_enabled');
      expect(error.status).toBe(403);
      expect(error.type).toBe('permission_error');
      expect(testProcessor.charges).toEqual([]);
      expect(fakes.payments.rows).toEqual([]);
      expect(fakes.transactions.committed).toEqual([]);
    });

    it('charges live mode through the live processor, with any payment method', async () => {
      const live = new FakeLiveProcessor();
      const liveCustomer = fakes.customers.seed(shopLive).id;

      const payment = await service(live).create(shopLive, charge({ customer_id: liveCustomer, payment_method: 'pm_real_card' }));

      expect(payment).toMatchObject({ status: 'succeeded', livemode: true, payment_method: 'pm_real_card' });
      expect(live.charges).toEqual([
        { amount: 2000, currency: 'gbp', paymentMethod: 'pm_real_card', mode: 'live', captureMethod: 'automatic' },
      ]);
      expect(testProcessor.charges).toEqual([]);
    });

    it.each([
      ['of another account', other],
      ['of the other mode', shopLive],
    ])('refuses a customer %s as resource_missing (400, customer_id)', async (_label, owner) => {
      const foreign = fakes.customers.seed(owner).id;
      const error = await rejection(service().create(shop, charge({ customer_id: foreign })));

      expect(error.code).toBe('resource_missing');
      expect(error.status).toBe(400);
      expect(error.param).toBe('customer_id');
      expect(testProcessor.charges).toEqual([]);
      expect(fakes.payments.rows).toEqual([]);
    });

    it('refuses a deleted customer', async () => {
      const deleted = fakes.customers.seed(shop, { deletedAt: new Date('2026-11-20T00:00:00Z') }).id;
      const error = await rejection(service().create(shop, charge({ customer_id: deleted })));

      expect(error.code).toBe('resource_missing');
      expect(error.param).toBe('customer_id');
      expect(fakes.payments.rows).toEqual([]);
    });
  });

  describe('retrieve', () => {
    it("finds the tenant's payment and no one else's", async () => {
      const mine = fakes.payments.seed(shop, { amount: 500, amountRefunded: 500 });
      const theirs = fakes.payments.seed(other);

      await expect(service().retrieve(shop, mine.id)).resolves.toMatchObject({
        id: mine.id,
        amount_refunded: 500,
        refunded: true,
      });
      const error = await rejection(service().retrieve(shop, theirs.id));
      expect(error.code).toBe('resource_missing');
      expect(error.status).toBe(404);
      expect(error.param).toBe('id');
    });
  });

  describe('list', () => {
    /** Payments created one minute apart, oldest first: ids[0] is the oldest. */
    const seedPayments = (count: number, tenant: Tenant = shop, fields: { customerId?: string } = {}): string[] =>
      Array.from({ length: count }, () => {
        fakes.clock.advance(60_000);
        return fakes.payments.seed(tenant, fields).id;
      });
    const list = async (query: PaymentListQuery) => {
      const page = await service().list(shop, query);
      return { ids: page.data.map((p) => p.id), has_more: page.has_more, url: page.url };
    };

    it('pages newest first with starting_after and back with ending_before', async () => {
      const ids = seedPayments(5);
      seedPayments(2, other);

      const first = await list({ limit: 2 });
      expect(first).toEqual({ ids: [ids[4], ids[3]], has_more: true, url: '/v2/payments' });
      const second = await list({ limit: 2, starting_after: ids[3] });
      expect(second.ids).toEqual([ids[2], ids[1]]);
      expect((await list({ limit: 2, starting_after: ids[1] })).ids).toEqual([ids[0]]);
      expect((await list({ limit: 2, starting_after: ids[1] })).has_more).toBe(false);
      expect((await list({ limit: 2, ending_before: ids[1] })).ids).toEqual([ids[3], ids[2]]);
      expect((await list({})).ids).toEqual([...ids].reverse());
    });

    it('refuses starting_after with ending_before, and a cursor the tenant does not own', async () => {
      const [mine] = seedPayments(1);
      const [theirs] = seedPayments(1, other);

      const both = await rejection(service().list(shop, { starting_after: mine, ending_before: mine }));
      expect(both.code).toBe('parameter_invalid');
      expect(both.param).toBe('ending_before');
      const foreign = await rejection(service().list(shop, { starting_after: theirs }));
      expect(foreign.code).toBe('resource_missing');
      expect(foreign.status).toBe(400);
      expect(foreign.param).toBe('starting_after');
    });

    it('filters by customer and by creation time (Unix seconds or ISO 8601, inclusive)', async () => {
      const otherCustomer = fakes.customers.seed(shop).id;
      const ids = seedPayments(3); // 05:01, 05:02, 05:03
      const [ofOther] = seedPayments(1, shop, { customerId: otherCustomer }); // 05:04

      expect((await list({ customer_id: otherCustomer })).ids).toEqual([ofOther]);
      const at0502 = String(Date.parse('2026-11-21T05:02:00Z') / 1000);
      expect((await list({ 'created[gte]': at0502 })).ids).toEqual([ofOther, ids[2], ids[1]]);
      expect((await list({ 'created[lte]': '2026-11-21T05:02:00Z' })).ids).toEqual([ids[1], ids[0]]);
      expect((await list({ 'created[gte]': at0502, 'created[lte]': '2026-11-21T05:03:00Z' })).ids).toEqual([ids[2], ids[1]]);
    });

    it('refuses a timestamp that is no date', async () => {
      const error = await rejection(service().list(shop, { 'created[lte]': '2026-13-45' }));
      expect(error.code).toBe('parameter_invalid');
      expect(error.param).toBe('created[lte]');
    });
  });

  describe('volume', () => {
    it('reports the last `days` UTC days, today (the clock) included, per day and currency of succeeded payments', async () => {
      fakes.clock.set(new Date('2026-11-21T23:30:00.000Z'));
      const day = (iso: string): Date => new Date(iso);
      fakes.payments.seed(shop, { amount: 2000, createdAt: day('2026-11-21T01:00:00.000Z') });
      fakes.payments.seed(shop, { amount: 500, createdAt: day('2026-11-21T23:00:00.000Z') });
      fakes.payments.seed(shop, { amount: 700, currency: 'eur', createdAt: day('2026-11-20T12:00:00.000Z') });
      fakes.payments.seed(shop, { amount: 900, createdAt: day('2026-11-15T00:00:00.000Z') }); // the first day of 7
      fakes.payments.seed(shop, { amount: 300, createdAt: day('2026-11-14T23:59:59.999Z') }); // before it
      fakes.payments.seed(shop, { amount: 5000, status: 'failed', createdAt: day('2026-11-21T02:00:00.000Z') });
      fakes.payments.seed(shopLive, { amount: 4000, createdAt: day('2026-11-21T02:00:00.000Z') });
      fakes.payments.seed(other, { amount: 4000, createdAt: day('2026-11-21T02:00:00.000Z') });

      const week = await service().volume(shop, { days: 7 });
      expect(week).toEqual({
        object: 'payment_volume',
        days: 7,
        since: '2026-11-15',
        until: '2026-11-21',
        currency: null,
        data: [
          { day: '2026-11-15', currency: 'gbp', amount: 900, count: 1 },
          { day: '2026-11-20', currency: 'eur', amount: 700, count: 1 },
          { day: '2026-11-21', currency: 'gbp', amount: 2500, count: 2 },
        ],
      });
      const today = await service().volume(shop, { days: 1, currency: 'eur' });
      expect([today.since, today.until, today.currency, today.data]).toEqual(['2026-11-21', '2026-11-21', 'eur', []]);
      expect((await service().volume(shop, {})).days).toBe(30);
    });
  });
});
