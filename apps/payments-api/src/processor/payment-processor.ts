import type { PaymentsMode } from '../accounts/payments-key.principal';
import type { Currency } from '../common/money';

export interface ChargeRequest {
  readonly amount: number;
  readonly currency: Currency;
  readonly paymentMethod: string;
  readonly mode: PaymentsMode;
}

export type ChargeResult =
  | { readonly status: 'succeeded' }
  | {
      readonly status: 'failed';
      readonly failureCode: 'card_declined' | 'processing_error';
      readonly declineCode: string | null;
      readonly message: string;
    };

/** Where charges go. Test mode uses TestModeProcessor; live mode needs a real one (none is configured here). */
export abstract class PaymentProcessor {
  abstract charge(request: ChargeRequest): Promise<ChargeResult>;
}

/** Live-mode processor; absent unless one is configured (contract: live_mode_not_enabled). */
export const LIVE_PROCESSOR = Symbol('LIVE_PROCESSOR');
