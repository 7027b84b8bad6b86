import { type ErrorType, isDomainError } from '@app/platform';

/** What a unit spec checks of a DomainError (a plain object, so `toMatchObject` sees every field). */
export interface Rejection {
  readonly code: string;
  readonly status: number;
  readonly type: ErrorType;
  readonly param: string | undefined;
  readonly details: Readonly<Record<string, unknown>>;
  readonly message: string;
}

/** The DomainError a call failed with; fails the spec if the call succeeded or threw anything else. */
export async function rejection(promise: Promise<unknown>): Promise<Rejection> {
  try {
    await promise;
  } catch (err) {
    if (!isDomainError(err)) throw err;
    return {
      code: err.code,
      status: err.status,
      type: err.spec.type,
      param: err.param,
      details: err.details,
      message: err.message,
    };
  }
  throw new Error('expected a DomainError, and the call succeeded');
}
