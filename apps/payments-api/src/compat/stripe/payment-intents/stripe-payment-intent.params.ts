import { type Currency, MAX_AMOUNT, SUPPORTED_CURRENCIES } from '../../../common/money';
import type {
  PaymentIntentCancel,
  PaymentIntentCapture,
  PaymentIntentConfirm,
  PaymentIntentCreate,
  PaymentIntentUpdate,
} from '../../../payment-intents/dto/payment-intent.input';
import { INTENT_CAPTURE_METHODS } from '../../../payment-intents/dto/payment-intent.view';
import { REQUESTED_CANCELLATION_REASONS } from '../../../payments/dto/payment.view';
import { invalidRequest, unsupported } from '../stripe-error';
import type { StripeParams } from '../stripe-params';

/**
 * Stripe's PaymentIntent parameters, read into what PaymentIntentsService takes. Accepted
 * and ignored, as they change nothing here (docs/decisions.md 290): `return_url`,
 * `use_stripe_sdk`, `error_on_requires_action` (no redirects, no 3-D Secure in test mode),
 * `confirmation_method=automatic`, `payment_method_types` or `allowed_payment_method_types` `[card]`,
 * `automatic_payment_methods`.
 * Any other parameter (receipt_email, statement_descriptor, setup_future_usage, shipping,
 * transfer_data…) is refused by name: `p.done()`'s "Received unknown parameter".
 */

const ID_MAX = 255;

function currency(p: StripeParams, required: boolean): Currency | undefined {
  const value = required ? p.string('currency', { required: true }) : p.string('currency');
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  if (!(SUPPORTED_CURRENCIES as readonly string[]).includes(lower)) {
    throw invalidRequest(`Invalid currency: ${value.slice(0, 10)}. payments-api supports ${SUPPORTED_CURRENCIES.join(', ')}.`, {
      code: 'parameter_invalid',
      param: 'currency',
    });
  }
  return lower as Currency;
}

function requiredCurrency(p: StripeParams): Currency {
  const value = currency(p, true);
  if (value === undefined) throw new Error('a required currency was not read');
  return value;
}

/** The payment-method parameters that only say "card", as every intent here is. */
function acceptedCardOnly(p: StripeParams): void {
  // payment_method_types is allowed_payment_method_types in the SDK's pinned API version
  for (const name of ['payment_method_types', 'allowed_payment_method_types']) {
    const other = p.strings(name, { max: 64 })?.find((t) => t !== 'card');
    if (other !== undefined) unsupportedType(other, name);
  }
  const automatic = p.object('automatic_payment_methods');
  if (automatic !== undefined) {
    automatic.boolean('enabled');
    automatic.oneOf('allow_redirects', ['always', 'never']);
    automatic.done();
  }
}

function unsupportedType(type: string, param: string): never {
  throw unsupported(`The payment method type '${type.slice(0, 40)}' (only card)`, param);
}

/** The parameters of a confirmation that concern redirects and client-side flows (none here). */
function acceptedConfirmationFlow(p: StripeParams): void {
  p.ignore('return_url', 'use_stripe_sdk', 'error_on_requires_action');
  p.oneOf('confirmation_method', ['automatic']);
}

export function readCreate(p: StripeParams): PaymentIntentCreate {
  const input: PaymentIntentCreate = {
    amount: p.integer('amount', { required: true, min: 1, max: MAX_AMOUNT }),
    currency: requiredCurrency(p),
  };
  const customer = p.string('customer', { max: ID_MAX });
  const description = p.string('description', { max: 1000 });
  const metadata = p.metadata();
  const paymentMethod = p.string('payment_method', { max: ID_MAX });
  const captureMethod = p.oneOf('capture_method', INTENT_CAPTURE_METHODS);
  const confirm = p.boolean('confirm');
  acceptedCardOnly(p);
  acceptedConfirmationFlow(p);
  return {
    ...input,
    ...(customer === undefined ? {} : { customer }),
    ...(description === undefined ? {} : { description }),
    ...(metadata === undefined ? {} : { metadata }),
    ...(paymentMethod === undefined ? {} : { payment_method: paymentMethod }),
    ...(captureMethod === undefined ? {} : { capture_method: captureMethod }),
    ...(confirm === undefined ? {} : { confirm }),
  };
}

export function readUpdate(p: StripeParams): PaymentIntentUpdate {
  const a = p.integer('amount', { min: 1, max: MAX_AMOUNT });
  const c = currency(p, false);
  const customer = p.nullableString('customer', { max: ID_MAX });
  const description = p.nullableString('description', { max: 1000 });
  const metadata = p.metadataUpdate();
  const paymentMethod = p.nullableString('payment_method', { max: ID_MAX });
  const captureMethod = p.oneOf('capture_method', INTENT_CAPTURE_METHODS);
  acceptedCardOnly(p);
  return {
    ...(a === undefined ? {} : { amount: a }),
    ...(c === undefined ? {} : { currency: c }),
    ...(customer === undefined ? {} : { customer }),
    ...(description === undefined ? {} : { description }),
    ...(metadata === undefined ? {} : { metadata }),
    ...(paymentMethod === undefined ? {} : { payment_method: paymentMethod }),
    ...(captureMethod === undefined ? {} : { capture_method: captureMethod }),
  };
}

export function readConfirm(p: StripeParams): PaymentIntentConfirm {
  const paymentMethod = p.string('payment_method', { max: ID_MAX });
  const captureMethod = p.oneOf('capture_method', INTENT_CAPTURE_METHODS);
  acceptedConfirmationFlow(p);
  acceptedCardOnly(p);
  return {
    ...(paymentMethod === undefined ? {} : { payment_method: paymentMethod }),
    ...(captureMethod === undefined ? {} : { capture_method: captureMethod }),
  };
}

export function readCapture(p: StripeParams): PaymentIntentCapture {
  const amountToCapture = p.integer('amount_to_capture', { min: 1, max: MAX_AMOUNT });
  return amountToCapture === undefined ? {} : { amount_to_capture: amountToCapture };
}

export function readCancel(p: StripeParams): PaymentIntentCancel {
  const reason = p.oneOf('cancellation_reason', REQUESTED_CANCELLATION_REASONS);
  return reason === undefined ? {} : { cancellation_reason: reason };
}
