import { isDomainError, registerErrorCodes, type TransactionRunner } from '@app/platform';
import { fake, paymentsFakes, type PaymentsFakes } from '../../../../test/fakes/payments-api';
import { rejection } from '../../../../test/fakes/rejection';
import type { PaymentEvents } from '../common/events';
import type { Tenant } from '../common/tenant';
import { PAYMENTS_ERRORS } from '../errors';
import { paymentView } from '../payments/dto/payment.view';
import type { PaymentsRepository } from '../payments/payments.repository';
import type { RefundCreateDto } from './dto/refund.dto';
import type { RefundsRepository } from './refunds.repository';
import { RefundsService } from './refunds.service';

const shop: Tenant = { accountId: 'acct_shop', mode: 'test' };
const shopLive: Tenant = { accountId: 'acct_shop', mode: 'live' };
const other: Tenant = { accountId: 'acct_other', mode: 'test' };

describe('RefundsService', () => {
  let fakes: PaymentsFakes;
  let service: RefundsService;

  /** The payment as GET /v2/payments/:id shows it now. */
  const paymentNow = (id: string) => {
    const row = fakes.payments.get(id);
    if (!row) throw new Error(`no payment ${id}`);
    return paymentView(row);
  };
  const refund = (payment_id: string, fields: Omit<RefundCreateDto, 'payment_id'> = {}) =>
    service.create(shop, { payment_id, ...fields });

  beforeAll(() => registerErrorCodes(PAYMENTS_ERRORS));

  beforeEach(() => {
    fakes = paymentsFakes();
    service = new RefundsService(
      fake<RefundsRepository>(fakes.refunds),
      fake<PaymentsRepository>(fakes.payments),
      fake<TransactionRunner>(fakes.transactions),
      fake<PaymentEvents>(fakes.events),
    );
  });

  describe('create', () => {
    it('refunds what is left by default, in the payment currency, and emits refund.succeeded', async () => {
      const payment = fakes.payments.seed(shop, { amount: 2000, currency: 'eur', amountRefunded: 500 });

      const created = await refund(payment.id, { reason: 'requested_by_customer', metadata: { ticket: 'T-1' } });

      expect(created.id).toMatch(/^re_[0-9A-Za-z]{24}$/);
      expect(created).toEqual({
        id: created.id,
        object: 'refund',
        payment_id: payment.id,
        amount: 1500,
        currency: 'eur',
        status: 'succeeded',
        reason: 'requested_by_customer',
        metadata: { ticket: 'T-1' },
        created: '2026-11-21T05:00:00.000Z',
      });
      expect(fakes.refunds.rows).toEqual([expect.objectContaining({ id: created.id, accountId: 'acct_shop', mode: 'test' })]);
      expect(paymentNow(payment.id)).toMatchObject({ amount_refunded: 2000, refunded: true });
      expect(fakes.events.emitted).toEqual([{ tenant: shop, event: 'refund.succeeded', data: created }]);
      expect(fakes.transactions.committed).toMatchObject([
        { result: { id: created.id, amount: 1500 }, storedResponse: undefined },
      ]);
    });

    it('a partial refund adds to amount_refunded and leaves refunded false until the last minor unit', async () => {
      const payment = fakes.payments.seed(shop, { amount: 2000 });

      const first = await refund(payment.id, { amount: 700 });
      expect(first).toMatchObject({ amount: 700, reason: null });
      expect(paymentNow(payment.id)).toMatchObject({ amount_refunded: 700, refunded: false });

      await refund(payment.id, { amount: 1299 });
      expect(paymentNow(payment.id)).toMatchObject({ amount_refunded: 1999, refunded: false });

      const last = await refund(payment.id);
      expect(last.amount).toBe(1);
      expect(paymentNow(payment.id)).toMatchObject({ amount_refunded: 2000, refunded: true });
    });

    it('refuses more than is left: amount_exceeds_refundable, and nothing is written', async () => {
      const payment = fakes.payments.seed(shop, { amount: 2000, amountRefunded: 1500 });

      const error = await rejection(refund(payment.id, { amount: 501 }));

      expect(error.code).toBe('amount_exceeds_refundable');
      expect(error.status).toBe(400);
      expect(error.param).toBe('amount');
      expect(error.message).toBe(`Refund amount (501) is greater than the amount left to refund on payment ${payment.id} (500).`);
      expect(fakes.refunds.rows).toEqual([]);
      expect(fakes.events.emitted).toEqual([]);
      expect(paymentNow(payment.id).amount_refunded).toBe(1500);
      expect(fakes.transactions.rolledBack).toHaveLength(1);
    });

    it('refuses a payment refunded in full, with or without an amount', async () => {
      const payment = fakes.payments.seed(shop, { amount: 2000, amountRefunded: 2000 });

      for (const fields of [{}, { amount: 1 }]) {
        const error = await rejection(refund(payment.id, fields));
        expect(error.code).toBe('amount_exceeds_refundable');
        expect(error.message).toBe(`Payment ${payment.id} has already been refunded in full.`);
      }
      expect(fakes.refunds.rows).toEqual([]);
    });

    it.each(['requires_capture', 'canceled'])(
      'refuses an uncaptured (%s) payment: only captured money is refundable',
      async (status) => {
        const payment = fakes.payments.seed(shop, { status, captureMethod: 'manual', amountReceived: 0 });

        const error = await rejection(refund(payment.id, { amount: 1 }));

        expect(error.code).toBe('payment_not_refundable');
        expect(error.param).toBe('payment_id');
        expect(fakes.refunds.rows).toEqual([]);
      },
    );

    it('refunds at most what was captured (a partial capture)', async () => {
      const payment = fakes.payments.seed(shop, { amount: 2000, amountReceived: 1200, captureMethod: 'manual' });

      const error = await rejection(refund(payment.id, { amount: 1201 }));
      expect(error.code).toBe('amount_exceeds_refundable');
      const all = await refund(payment.id);
      expect(all.amount).toBe(1200);
      expect(paymentNow(payment.id)).toMatchObject({ amount_refunded: 1200, refunded: true });
    });

    it('refuses a failed payment: payment_not_refundable', async () => {
      const payment = fakes.payments.seed(shop, { status: 'failed', failureCode: 'card_declined' });

      const error = await rejection(refund(payment.id));

      expect(error.code).toBe('payment_not_refundable');
      expect(error.status).toBe(400);
      expect(error.param).toBe('payment_id');
      expect(fakes.refunds.rows).toEqual([]);
      expect(paymentNow(payment.id).amount_refunded).toBe(0);
    });

    it.each([
      ['that does not exist', null],
      ['of another account', other],
      ['of the other mode', shopLive],
    ])('refuses a payment %s as resource_missing (400, payment_id)', async (_label, owner) => {
      const id = owner ? fakes.payments.seed(owner).id : 'pay_missing';

      const error = await rejection(refund(id));

      expect(error.code).toBe('resource_missing');
      expect(error.status).toBe(400);
      expect(error.param).toBe('payment_id');
      expect(fakes.refunds.rows).toEqual([]);
      if (owner) expect(fakes.payments.get(id)?.amountRefunded).toBe(0);
    });

    it('applies concurrent refunds one at a time against the remaining balance', async () => {
      const payment = fakes.payments.seed(shop, { amount: 2000 });

      const outcomes = await Promise.allSettled([refund(payment.id, { amount: 1500 }), refund(payment.id, { amount: 1500 })]);

      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      const rejected = outcomes.find((o) => o.status === 'rejected');
      expect(isDomainError(rejected?.reason) && rejected.reason.code).toBe('amount_exceeds_refundable');
      expect(paymentNow(payment.id).amount_refunded).toBe(1500);
      expect(fakes.refunds.rows).toHaveLength(1);
    });
  });

  describe('retrieve and list', () => {
    it("finds the tenant's refunds and lists them newest first, optionally of one payment", async () => {
      const a = fakes.payments.seed(shop, { amount: 3000 });
      const b = fakes.payments.seed(shop, { amount: 3000 });
      const ids: string[] = [];
      for (const payment of [a, b, a]) {
        fakes.clock.advance(1_000);
        ids.push((await refund(payment.id, { amount: 1000 })).id);
      }
      const foreignPayment = fakes.payments.seed(other);
      const foreign = await service.create(other, { payment_id: foreignPayment.id });

      await expect(service.retrieve(shop, ids[0] ?? '')).resolves.toMatchObject({ payment_id: a.id, amount: 1000 });
      const missing = await rejection(service.retrieve(shop, foreign.id));
      expect(missing.code).toBe('resource_missing');
      expect(missing.status).toBe(404);

      const all = await service.list(shop, { limit: 2 });
      expect(all).toEqual({
        object: 'list',
        data: [expect.objectContaining({ id: ids[2] }), expect.objectContaining({ id: ids[1] })],
        has_more: true,
        url: '/v2/refunds',
      });
      const ofA = await service.list(shop, { payment_id: a.id });
      expect(ofA.data.map((r) => r.id)).toEqual([ids[2], ids[0]]);
      const before = await service.list(shop, { ending_before: ids[0] });
      expect(before.data.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    });
  });
});
