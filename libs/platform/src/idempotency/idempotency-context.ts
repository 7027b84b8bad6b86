import { AsyncLocalStorage } from 'node:async_hooks';

/** The Idempotency-Key claim of the request being handled, if any. */
export interface IdempotencyClaim {
  readonly id: string;
  /** The authenticated caller the key belongs to (keys are scoped per API key / client). */
  readonly scope: string;
  /** Status the route answers with on success (its @HttpCode, or 201 for POST). */
  readonly successStatus: number;
  /** Set once the response is stored (inside the effect's transaction, or after). */
  completed: boolean;
}

export const idempotencyStorage = new AsyncLocalStorage<IdempotencyClaim>();

export function currentIdempotencyClaim(): IdempotencyClaim | undefined {
  return idempotencyStorage.getStore();
}
