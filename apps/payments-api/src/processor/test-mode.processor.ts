import { Injectable } from '@nestjs/common';
import { type ChargeRequest, type ChargeResult, PaymentProcessor } from './payment-processor';

const declined = (declineCode: string, message = 'Your card was declined.'): ChargeResult => ({
  status: 'failed',
  failureCode: 'card_declined',
  declineCode,
  message,
});

/**
 * Deterministic test-mode outcomes by `payment_method` (docs/payments.md), like Stripe's
 * test payment methods. Nothing is charged. The outcomes Stripe's test mode has and ours had
 * no name for are listed under Stripe's own name (expired card, incorrect CVC, lost, stolen,
 * fraudulent): their failure_code and decline_code are Stripe's (docs/decisions.md 287).
 */
export const TEST_PAYMENT_METHODS: Readonly<Record<string, ChargeResult>> = {
  pm_card_visa: { status: 'succeeded' },
  pm_card_mastercard: { status: 'succeeded' },
  pm_card_amex: { status: 'succeeded' },
  pm_card_discover: { status: 'succeeded' },
  pm_card_declined: declined('generic_decline'),
  pm_card_insufficient_funds: declined('insufficient_funds', 'Your card has insufficient funds.'),
  pm_card_processing_error: {
    status: 'failed',
    failureCode: 'processing_error',
    declineCode: null,
    message: 'An error occurred while processing your card. Try again later.',
  },
  pm_card_chargeDeclinedExpiredCard: {
    status: 'failed',
    failureCode: 'expired_card',
    declineCode: 'expired_card',
    message: 'Your card has expired.',
  },
  pm_card_chargeDeclinedIncorrectCvc: {
    status: 'failed',
    failureCode: 'incorrect_cvc',
    declineCode: 'incorrect_cvc',
    message: "Your card's security code is incorrect.",
  },
  pm_card_chargeDeclinedLostCard: declined('lost_card'),
  pm_card_chargeDeclinedStolenCard: declined('stolen_card'),
  pm_card_chargeDeclinedFraudulent: declined('fraudulent'),
};

type TestMethodName = keyof typeof TEST_PAYMENT_METHODS;

/**
 * Stripe's own test payment-method and token names (platform contract: Payments, more), each
 * the same deterministic outcome as the name it stands for, so a Stripe test suite runs
 * unchanged. The payment shows the name the caller sent.
 */
export const STRIPE_TEST_ALIASES: Readonly<Record<string, TestMethodName>> = {
  tok_visa: 'pm_card_visa',
  tok_visa_debit: 'pm_card_visa',
  pm_card_visa_debit: 'pm_card_visa',
  tok_mastercard: 'pm_card_mastercard',
  pm_card_mastercard_debit: 'pm_card_mastercard',
  tok_amex: 'pm_card_amex',
  tok_discover: 'pm_card_discover',
  pm_card_chargeDeclined: 'pm_card_declined',
  pm_card_visa_chargeDeclined: 'pm_card_declined',
  tok_chargeDeclined: 'pm_card_declined',
  pm_card_chargeDeclinedInsufficientFunds: 'pm_card_insufficient_funds',
  pm_card_visa_chargeDeclinedInsufficientFunds: 'pm_card_insufficient_funds',
  tok_chargeDeclinedInsufficientFunds: 'pm_card_insufficient_funds',
  pm_card_chargeDeclinedProcessingError: 'pm_card_processing_error',
  tok_chargeDeclinedProcessingError: 'pm_card_processing_error',
  tok_chargeDeclinedExpiredCard: 'pm_card_chargeDeclinedExpiredCard',
  tok_chargeDeclinedIncorrectCvc: 'pm_card_chargeDeclinedIncorrectCvc',
  pm_card_visa_chargeDeclinedLostCard: 'pm_card_chargeDeclinedLostCard',
  tok_chargeDeclinedLostCard: 'pm_card_chargeDeclinedLostCard',
  pm_card_visa_chargeDeclinedStolenCard: 'pm_card_chargeDeclinedStolenCard',
  tok_chargeDeclinedStolenCard: 'pm_card_chargeDeclinedStolenCard',
  tok_chargeDeclinedFraudulent: 'pm_card_chargeDeclinedFraudulent',
};

/** The outcome of a test payment method or of one of Stripe's aliases; undefined for any other name. */
export function testOutcome(paymentMethod: string): ChargeResult | undefined {
  const name = Object.hasOwn(STRIPE_TEST_ALIASES, paymentMethod) ? STRIPE_TEST_ALIASES[paymentMethod] : paymentMethod;
  return name !== undefined && Object.hasOwn(TEST_PAYMENT_METHODS, name) ? TEST_PAYMENT_METHODS[name] : undefined;
}

/** Every name test mode accepts as `payment_method`. */
export const TEST_PAYMENT_METHOD_NAMES: readonly string[] = [
  ...Object.keys(TEST_PAYMENT_METHODS),
  ...Object.keys(STRIPE_TEST_ALIASES),
];

export const DEFAULT_PAYMENT_METHOD = 'pm_card_visa';

@Injectable()
export class TestModeProcessor extends PaymentProcessor {
  charge(request: ChargeRequest): Promise<ChargeResult> {
    const outcome = testOutcome(request.paymentMethod);
    if (!outcome) throw new Error(`unknown test payment method ${request.paymentMethod}`);
    return Promise.resolve(outcome);
  }

  /** Test mode: an authorization always captures. */
  capture(): Promise<void> {
    return Promise.resolve();
  }

  /** Test mode: nothing is held, so nothing to release. */
  release(): Promise<void> {
    return Promise.resolve();
  }
}
