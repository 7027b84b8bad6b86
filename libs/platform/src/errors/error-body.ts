import type { ErrorType } from './error-catalog';

/** The platform contract's error body: `{ error: { type, code, message, param?, request_id } }`. */
export interface ErrorBody {
  error: {
    type: ErrorType;
    code: string;
    message: string;
    param?: string;
    request_id: string;
    [extra: string]: unknown;
  };
}

export function errorBody(
  type: ErrorType,
  code: string,
  message: string,
  requestId: string,
  param?: string,
  details: Readonly<Record<string, unknown>> = {},
): ErrorBody {
  return {
    error: {
      ...details,
      type,
      code,
      message,
      ...(param === undefined ? {} : { param }),
      request_id: requestId,
    },
  };
}

/** The body the global filter renders for a DomainError (used to store a response for replay). */
export function domainErrorBody(
  error: {
    spec: { type: ErrorType };
    code: string;
    message: string;
    param: string | undefined;
    details: Readonly<Record<string, unknown>>;
  },
  requestId: string,
): ErrorBody {
  return errorBody(error.spec.type, error.code, error.message, requestId, error.param, error.details);
}
