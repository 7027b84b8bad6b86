import type { RawHttpError } from '@app/platform';
import { stripeError } from '../compat/stripe/stripe-error';
import { PaymentsError } from '../errors';
import type { LastPaymentError, PaymentIntentStatus, PaymentIntentView } from './dto/payment-intent.view';

/**
 * Stripe's 402 for a declined confirmation: `card_error` with the decline's code (card_declined,
 * processing_error, expired_card, incorrect_cvc), `decline_code`, the charge (the failed
 * payment's id) and the intent as it now is, so the SDK raises StripeCardError with
 * `error.payment_intent`. The same body is what an Idempotency-Key replays.
 */
export function intentDeclined(intent: PaymentIntentView, error: LastPaymentError & { charge: string }): RawHttpError {
  return stripeError(402, {
    type: 'card_error',
    code: error.code,
    ...(error.decline_code === undefined ? {} : { decline_code: error.decline_code }),
    message: error.message,
    charge: error.charge,
    payment_intent: intent,
    payment_method: error.payment_method,
    doc_url: `https://stripe.com/docs/error-codes/${error.code.replace(/_/g, '-')}`,
  });
}

/** Stripe's `payment_intent_unexpected_state` (400): the action does not apply to the intent's status. */
export function unexpectedState(status: PaymentIntentStatus, action: string, allowed: readonly string[]): PaymentsError {
  return new PaymentsError(
    'payment_intent_unexpected_state',
    `You cannot ${action} this PaymentIntent because it has a status of ${status}. Only a PaymentIntent with one of the following statuses may be ${pastTense(action)}: ${allowed.join(', ')}.`,
  );
}

function pastTense(action: string): string {
  const verb = action.split(' ')[0] ?? action;
  return verb.endsWith('e') ? `${verb}d` : `${verb}ed`;
}

/** Confirming without a payment method (Stripe answers payment_intent_unexpected_state too). */
export function missingPaymentMethod(): PaymentsError {
  return new PaymentsError(
    'payment_intent_unexpected_state',
    `You cannot confirm this PaymentIntent because it's missing a payment method. Update the PaymentIntent with a payment_method and then confirm it again, or confirm it again directly with a payment_method.`,
    { param: 'payment_method' },
  );
}
