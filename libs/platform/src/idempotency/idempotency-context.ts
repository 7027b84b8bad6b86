import type { Prisma } from '../database/generated/client';
import { type CompletionHook, toJson } from '../database/transaction-runner';

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

/** What to store for replay when a transaction's result is answered otherwise (e.g. a 402 after a declined charge). */
export interface StoredResponse {
  readonly status: number;
  readonly body: unknown;
}

/**
 * The Idempotency-Key claim of the request being handled. The interceptor makes it; the
 * controller takes it with `@IdempotencyOf()` and hands it to the service, which registers
 * `completion()` on the transaction of the request's effect, so the stored response commits
 * with the effect. When no transaction stored it, the interceptor stores it after the handler.
 */
export class IdempotentRequest {
  /** Set once the response is stored (inside the effect's transaction, or after). */
  completed = false;

  constructor(
    /** The tenant and mode the key belongs to (Authenticator.idempotencyScopeOf), never one credential. */
    readonly scope: string,
    /** The idempotency_keys row this request holds. */
    readonly id: string,
    /** Status the route answers with on success (its @HttpCode, or 201 for POST). */
    readonly successStatus: number,
    /** The UPDATE that stores a response for this claim (IdempotencyService.completion). */
    private readonly store: (response: StoredResponse) => Prisma.Sql,
  ) {}

  /**
   * The hook that stores the response in the transaction: `respond(result)` when it says
   * otherwise, else `result` as the route's success status would serialize it.
   */
  completion<T>(respond?: (result: T) => StoredResponse | undefined): CompletionHook<T> {
    return {
      statement: (result) => this.store(respond?.(result) ?? { status: this.successStatus, body: toJson(result) }),
      committed: () => {
        this.completed = true;
      },
    };
  }

  /**
   * The same claim for a service whose result the route answers in another shape (an adapter
   * of a second API over the same services): what is stored for a replay is `present(result)`,
   * the answer the route sends, not the service's own view. Completing it completes this claim.
   */
  presentedAs<T>(present: (result: T) => unknown): IdempotentRequest {
    return new PresentedRequest(this, (result) => present(result as T));
  }
}

/** An IdempotentRequest that stores its parent's claim with the result presented otherwise (presentedAs). */
class PresentedRequest extends IdempotentRequest {
  constructor(
    private readonly parent: IdempotentRequest,
    private readonly present: (result: unknown) => unknown,
  ) {
    super(parent.scope, parent.id, parent.successStatus, () => {
      throw new Error('PresentedRequest stores through its parent');
    });
  }

  override completion<T>(respond?: (result: T) => StoredResponse | undefined): CompletionHook<T> {
    return this.parent.completion<T>(
      (result) => respond?.(result) ?? { status: this.parent.successStatus, body: toJson(this.present(result)) },
    );
  }
}
