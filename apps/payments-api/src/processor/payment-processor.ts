import type { PaymentsMode } from '../accounts/payments-key.principal';
import type { Currency } from '../common/money';

export interface ChargeRequest {
  readonly amount: number;
  readonly currency: Currency;
  readonly paymentMethod: string;
  readonly mode: PaymentsMode;
  /** manual: authorize only (the money is held until `capture` or `release`). */
  readonly captureMethod: 'automatic' | 'manual';
}

/** An authorization (a payment in requires_capture) to capture or release. */
export interface AuthorizationRequest {
  readonly paymentId: string;
  readonly mode: PaymentsMode;
  /** capture: the amount to take; the rest of the authorization is released. */
  readonly amount: number;
}

export const CHARGE_FAILURE_CODES = ['card_declined', 'processing_error', 'expired_card', 'incorrect_cvc'] as const;
export type ChargeFailureCode = (typeof CHARGE_FAILURE_CODES)[number];

export type ChargeResult =
  | { readonly status: 'succeeded' }
  | {
      readonly status: 'failed';
      /** Stripe's error code for the decline (expired_card, incorrect_cvc: Stripe's own codes for those two). */
      readonly failureCode: ChargeFailureCode;
      readonly declineCode: string | null;
      readonly message: string;
    };

/** Where charges go. Test mode uses TestModeProcessor; live mode needs a real one (none is configured here). */
export abstract class PaymentProcessor {
  abstract charge(request: ChargeRequest): Promise<ChargeResult>;
  /** Takes `amount` of an authorization and releases the rest. */
  abstract capture(request: AuthorizationRequest): Promise<void>;
  /** Releases an authorization in full (cancel, expiry). */
  abstract release(request: AuthorizationRequest): Promise<void>;
}

/** Live-mode processor; absent unless one is configured (contract: live_mode_not_enabled). */
export const LIVE_PROCESSOR = Symbol('LIVE_PROCESSOR');
