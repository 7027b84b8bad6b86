import type { PaymentIntentRow } from '../payment-intents.repository';
import { clientSecret, confirmable, intentStatus, type LatestPayment, paymentIntentView } from './payment-intent.view';

const CREATED = new Date('2026-11-29T08:00:00.000Z');

const intent = (fields: Partial<PaymentIntentRow> = {}): PaymentIntentRow => ({
  id: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
  accountId: 'acct_shop',
  mode: 'test',
  customerId: null,
  amount: 2000,
  currency: 'gbp',
  status: 'requires_payment_method',
  captureMethod: 'automatic',
  paymentMethod: null,
  description: null,
  metadata: {},
  latestPaymentId: null,
  lastPaymentError: null,
  canceledAt: null,
  cancellationReason: null,
  createdAt: CREATED,
  ...fields,
});

const payment = (fields: Partial<LatestPayment> = {}): LatestPayment => ({
  id: 'pay_1',
  status: 'succeeded',
  amountCapturable: 0,
  amountReceived: 2000,
  canceledAt: null,
  cancellationReason: null,
  ...fields,
});

describe('intentStatus: the status /v1 shows', () => {
  it.each(['requires_payment_method', 'requires_confirmation', 'canceled'] as const)(
    'with no payment: the intent column (%s)',
    (own) => {
      expect(intentStatus(own, null)).toBe(own);
    },
  );

  it.each(['succeeded', 'requires_capture', 'canceled'] as const)('with a %s latest payment: the payment status', (status) => {
    // the column says what the intent was at confirmation; the payment moves on (capture, cancel, expiry)
    expect(intentStatus('requires_capture', { status })).toBe(status);
    expect(intentStatus('requires_payment_method', { status })).toBe(status);
  });

  it('with a failed latest payment: the intent column (back to requires_payment_method after a decline, or canceled since)', () => {
    expect(intentStatus('requires_payment_method', { status: 'failed' })).toBe('requires_payment_method');
    expect(intentStatus('requires_confirmation', { status: 'failed' })).toBe('requires_confirmation');
    expect(intentStatus('canceled', { status: 'failed' })).toBe('canceled');
  });

  it('refuses a column or payment status it has no /v1 status for (a bug, not a state to show)', () => {
    expect(() => intentStatus('succeeded', null)).toThrow('not an intent');
    expect(() => intentStatus('requires_payment_method', { status: 'processing' })).toThrow('no PaymentIntent status');
  });

  it('confirmable: only before a payment is under way', () => {
    expect(confirmable('requires_payment_method')).toBe(true);
    expect(confirmable('requires_confirmation')).toBe(true);
    expect(confirmable('requires_capture')).toBe(false);
    expect(confirmable('succeeded')).toBe(false);
    expect(confirmable('canceled')).toBe(false);
  });
});

describe('paymentIntentView', () => {
  it('an intent never confirmed: no amounts received or capturable, no latest_charge, Unix seconds', () => {
    const view = paymentIntentView(intent({ paymentMethod: 'pm_card_visa', status: 'requires_confirmation' }), null);
    expect(view).toMatchObject({
      id: 'pi_3MtwBwLkdIwHu7ix28a3tqPa',
      object: 'payment_intent',
      status: 'requires_confirmation',
      amount: 2000,
      amount_capturable: 0,
      amount_received: 0,
      latest_charge: null,
      created: CREATED.getTime() / 1000,
      livemode: false,
      payment_method: 'pm_card_visa',
      payment_method_types: ['card'],
      confirmation_method: 'automatic',
    });
  });

  it('authorized: amount_capturable from the payment, nothing received yet', () => {
    const view = paymentIntentView(
      intent({ status: 'requires_capture', captureMethod: 'manual' }),
      payment({ status: 'requires_capture', amountCapturable: 2000, amountReceived: 0 }),
    );
    expect(view).toMatchObject({
      status: 'requires_capture',
      amount_capturable: 2000,
      amount_received: 0,
      latest_charge: 'pay_1',
    });
  });

  it('captured in part: amount_received is what was captured, nothing capturable', () => {
    const view = paymentIntentView(intent({ status: 'requires_capture' }), payment({ amountReceived: 1500 }));
    expect(view).toMatchObject({ status: 'succeeded', amount: 2000, amount_received: 1500, amount_capturable: 0 });
  });

  it("canceled through its payment: canceled_at and the reason are the payment's", () => {
    const at = new Date('2026-12-06T08:00:00.500Z');
    const view = paymentIntentView(
      intent({ status: 'requires_capture' }),
      payment({ status: 'canceled', amountReceived: 0, canceledAt: at, cancellationReason: 'automatic' }),
    );
    expect(view).toMatchObject({
      status: 'canceled',
      canceled_at: Math.floor(at.getTime() / 1000),
      cancellation_reason: 'automatic',
    });
  });

  it("canceled before any payment: the intent's own canceled_at and reason", () => {
    const at = new Date('2026-11-29T09:00:00.000Z');
    const view = paymentIntentView(intent({ status: 'canceled', canceledAt: at, cancellationReason: 'abandoned' }), null);
    expect(view).toMatchObject({ status: 'canceled', canceled_at: at.getTime() / 1000, cancellation_reason: 'abandoned' });
  });

  it('a live intent says livemode true', () => {
    expect(paymentIntentView(intent({ mode: 'live' }), null).livemode).toBe(true);
  });

  it('client_secret: <id>_secret_<25 characters>, the same each time, different per intent', () => {
    const secret = clientSecret('pi_a');
    expect(secret).toMatch(/^pi_a_secret_[0-9A-Za-z]{25}$/);
    expect(clientSecret('pi_a')).toBe(secret);
    expect(clientSecret('pi_b')).not.toBe(secret);
  });
});
