import { DomainError, type ErrorCatalog, invalidRequest, type PlatformErrorCode } from '@app/platform';

/** offers-api's own error codes (platform contract: Offers service decisions; docs/errors.md). */
export const OFFERS_ERRORS = {
  terms_not_accepted: invalidRequest(400),
  terms_version_invalid: invalidRequest(400),
  amount_too_small: invalidRequest(400),
  offer_not_live: invalidRequest(409),
  offer_not_closed: invalidRequest(409),
  offer_not_editable: invalidRequest(409),
  offer_already_allocated: invalidRequest(409),
} as const satisfies ErrorCatalog;

export type OffersErrorCode = keyof typeof OFFERS_ERRORS;

/** A DomainError with one of offers-api's codes or the platform's. */
export class OffersError extends DomainError<OffersErrorCode | PlatformErrorCode> {}
