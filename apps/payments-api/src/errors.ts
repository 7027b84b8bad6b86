import { DomainError, type ErrorCatalog, invalidRequest, type PlatformErrorCode } from '@app/platform';

/** payments-api's own error codes (platform contract: Payments service decisions; docs/errors.md). */
export const PAYMENTS_ERRORS = {
  card_declined: { status: 402, type: 'card_error' },
  processing_error: { status: 402, type: 'card_error' },
  live_mode_not_enabled: { status: 403, type: 'permission_error' },
  amount_exceeds_refundable: invalidRequest(400),
  payment_not_refundable: invalidRequest(400),
} as const satisfies ErrorCatalog;

export type PaymentsErrorCode = keyof typeof PAYMENTS_ERRORS;

/** A DomainError with one of payments-api's codes or the platform's. */
export class PaymentsError extends DomainError<PaymentsErrorCode | PlatformErrorCode> {}
