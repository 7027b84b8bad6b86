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
