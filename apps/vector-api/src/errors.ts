import { DomainError, type ErrorCatalog, invalidRequest, type PlatformErrorCode } from '@app/platform';

/** vector-api's own error codes (docs/errors.md). */
export const VECTOR_ERRORS = {
  /** An embedding's length differs from its table's dimension. */
  dimension_mismatch: invalidRequest(400),
  /** A query filter over one of the size limits of docs/vector.md ("Filters"); `param` says where. */
  filter_too_complex: invalidRequest(400),
} as const satisfies ErrorCatalog;

export type VectorErrorCode = keyof typeof VECTOR_ERRORS;

/** A DomainError with one of vector-api's codes or the platform's. */
export class VectorError extends DomainError<VectorErrorCode | PlatformErrorCode> {}
