import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import {
  ApiKeyCaches,
  apiKeyHash,
  type Authenticator,
  type ConsoleSession,
  invalidApiKey,
  LastUsedThrottle,
  RevocationBus,
  type RouteTarget,
} from '@app/auth';
import { Clock, type TtlCache } from '@app/platform';
import { PaymentAccountsRepository } from './payment-accounts.repository';
import type { PaymentsKeyPrincipal, PaymentsMode, Permissions } from './payments-key.principal';
import { authorizeKey } from './permissions';

/** Secret (`sk_`) and restricted (`rk_`) keys of either mode. */
const PAYMENTS_KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9]{20,}$/;
/** The realm of payments-api's authentication challenges. */
export const PAYMENTS_REALM = 'payments-api';
const REALM = PAYMENTS_REALM;

/** The header a payments console session names its mode in (`test` unless `live`). */
export const CONSOLE_MODE_HEADER = 'console-mode';

/** RevocationBus channel of the ids of payments keys revoked or expired at once. */
export const PAYMENTS_KEY_REVOKED = 'auth:payments-key-revoked';

/** The scope of the Idempotency-Keys of an account's mode (the migration of 2026-11-28 writes the same form). */
export function paymentsIdempotencyScope(accountId: string, mode: PaymentsMode): string {
  return `payments:${accountId}:${mode}`;
}

/**
 * `sk_…` / `rk_…`, looked up by SHA-256 (cached a second); the key decides account, mode and,
 * for a restricted key, what it may do (authorize). A revocation (or a roll that expires keys
 * at once) evicts the key from every instance's cache through RevocationBus; a later expiry
 * travels in the cached principal and is checked on every request against the Clock.
 */
@Injectable()
export class PaymentsKeyAuthenticator implements Authenticator<PaymentsKeyPrincipal>, OnModuleInit {
  readonly kind = 'payments_key';
  readonly realm = REALM;
  readonly wants = 'a secret or restricted API key (sk_test_…, sk_live_…, rk_test_… or rk_live_…)';
  private readonly cache: TtlCache<string, PaymentsKeyPrincipal>;
  /** Each key's last_used_at, written in the background at most once a minute per instance. */
  private readonly lastUsed: LastUsedThrottle;

  constructor(
    private readonly repository: PaymentAccountsRepository,
    private readonly revocations: RevocationBus,
    private readonly clock: Clock,
    caches: ApiKeyCaches,
  ) {
    this.cache = caches.create();
    this.lastUsed = new LastUsedThrottle((id, at) => repository.touch(id, at), new Logger('PaymentsKeys'), 'a key use');
  }

  onModuleInit(): void {
    this.revocations.subscribe(PAYMENTS_KEY_REVOKED, (keyId) => this.cache.invalidate((p) => p.keyId === keyId));
  }

  async authenticate(credential: string): Promise<PaymentsKeyPrincipal> {
    if (!PAYMENTS_KEY.test(credential)) throw invalidApiKey(REALM);
    const principal = await this.cache.getOrLoad(apiKeyHash(credential), async (hash) => {
      const row = await this.repository.findActiveKey(hash);
      if (!row) return null;
      return {
        kind: 'payments_key',
        accountId: row.accountId,
        mode: row.mode,
        keyId: row.id,
        via: 'key',
        keyKind: row.kind,
        permissions: row.kind === 'restricted' ? (row.permissions as Permissions) : null,
        expiresAt: row.expiresAt?.getTime() ?? null,
        last4: row.last4,
      };
    });
    const now = this.clock.nowMs();
    if (!principal || (principal.expiresAt !== null && principal.expiresAt <= now)) throw invalidApiKey(REALM);
    this.lastUsed.record(principal.keyId, now);
    return principal;
  }

  /**
   * A dashboard session acts as the account's secret key of the mode the console shows
   * (header `Console-Mode: test | live`, test by default), like Stripe's dashboard toggle.
   */
  fromConsole(
    session: ConsoleSession,
    headers: Readonly<Record<string, string | string[] | undefined>>,
  ): Promise<PaymentsKeyPrincipal> {
    const mode = headers[CONSOLE_MODE_HEADER] === 'live' ? 'live' : 'test';
    return Promise.resolve({
      kind: 'payments_key',
      accountId: session.tenantId,
      mode,
      keyId: session.id,
      via: 'console',
      keyKind: 'secret',
      permissions: null,
      expiresAt: null,
      last4: null,
    });
  }

  authorize(principal: PaymentsKeyPrincipal, route: RouteTarget): void {
    authorizeKey(principal, route);
  }

  keyOf(principal: PaymentsKeyPrincipal): string {
    // a console session's two modes share its rate limit
    return `payments_key:${principal.keyId}`;
  }

  /**
   * The account and mode: every key of a mode, rolled or restricted, and a console session in
   * that mode share Idempotency-Keys; test and live never do (platform contract, third round).
   */
  idempotencyScopeOf(principal: PaymentsKeyPrincipal): string {
    return paymentsIdempotencyScope(principal.accountId, principal.mode);
  }
}
