import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Encrypts the stored response of a route whose answer holds a secret (a new API key), and
 * decrypts it for a replay. `context` binds the ciphertext to its record (authenticated, not
 * stored), so a sealed response cannot be moved to another scope or key. An app provides one
 * under IDEMPOTENCY_SEALER in the module of the controllers that use `@Idempotent({ sealed: true })`.
 */
export interface ResponseSealer {
  seal(plain: string, context: string): string;
  /** Throws when the text was not sealed by this sealer's keys or was altered. */
  unseal(sealed: string, context: string): string;
}

/** Injection token of the app's ResponseSealer. */
export const IDEMPOTENCY_SEALER = Symbol('IDEMPOTENCY_SEALER');

/** The Idempotency-Key claim of the request being handled, if any. */
export interface IdempotencyClaim {
  readonly id: string;
  /** The tenant and mode the key belongs to (Authenticator.idempotencyScopeOf), never one credential. */
  readonly scope: string;
  /** Status the route answers with on success (its @HttpCode, or 201 for POST). */
  readonly successStatus: number;
  /** Set on routes whose response is stored encrypted (`@Idempotent({ sealed: true })`). */
  readonly sealer?: ResponseSealer | undefined;
  /** Set once the response is stored (inside the effect's transaction, or after). */
  completed: boolean;
}

export const idempotencyStorage = new AsyncLocalStorage<IdempotencyClaim>();

export function currentIdempotencyClaim(): IdempotencyClaim | undefined {
  return idempotencyStorage.getStore();
}
