import { Injectable } from '@nestjs/common';
import { type ChargeRequest, type ChargeResult, PaymentProcessor } from './payment-processor';

/**
 * Deterministic test-mode outcomes by `payment_method` (docs/payments.md), like Stripe's
 * test payment methods. Nothing is charged.
 */
export const TEST_PAYMENT_METHODS: Readonly<Record<string, ChargeResult>> = {
  pm_card_visa: { status: 'succeeded' },
  pm_card_mastercard: { status: 'succeeded' },
  pm_card_declined: {
    status: 'failed',
    failureCode: 'card_declined',
    declineCode: 'generic_decline',
    message: 'Your card was declined.',
  },
  pm_card_insufficient_funds: {
    status: 'failed',
    failureCode: 'card_declined',
    declineCode: 'insufficient_funds',
    message: 'Your card has insufficient funds.',
  },
  pm_card_processing_error: {
    status: 'failed',
    failureCode: 'processing_error',
    declineCode: null,
    message: 'An error occurred while processing your card. Try again later.',
  },
};

export const DEFAULT_PAYMENT_METHOD = 'pm_card_visa';

@Injectable()
export class TestModeProcessor extends PaymentProcessor {
  charge(request: ChargeRequest): Promise<ChargeResult> {
    const outcome = TEST_PAYMENT_METHODS[request.paymentMethod];
    if (!outcome) throw new Error(`unknown test payment method ${request.paymentMethod}`);
    return Promise.resolve(outcome);
  }
}
