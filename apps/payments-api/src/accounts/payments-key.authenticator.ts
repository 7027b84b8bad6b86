import { Injectable } from '@nestjs/common';
import { type ApiKeyCache, ApiKeyCaches, apiKeyHash, type Authenticator, invalidApiKey } from '@app/auth';
import { PaymentAccountsRepository } from './payment-accounts.repository';
import type { PaymentsKeyPrincipal } from './payments-key.principal';

const PAYMENTS_KEY = /^sk_(test|live)_[A-Za-z0-9]{20,}$/;
const REALM = 'payments-api';

/** `sk_test_…` / `sk_live_…`, looked up by SHA-256 (cached a second); the key decides account and mode. */
@Injectable()
export class PaymentsKeyAuthenticator implements Authenticator<PaymentsKeyPrincipal> {
  readonly kind = 'payments_key';
  readonly realm = REALM;
  readonly wants = 'a secret API key (sk_test_… or sk_live_…)';
  private readonly cache: ApiKeyCache<PaymentsKeyPrincipal>;

  constructor(
    private readonly repository: PaymentAccountsRepository,
    caches: ApiKeyCaches,
  ) {
    this.cache = caches.create();
  }

  async authenticate(credential: string): Promise<PaymentsKeyPrincipal> {
    if (!PAYMENTS_KEY.test(credential)) throw invalidApiKey(REALM);
    const principal = await this.cache.getOrLoad(apiKeyHash(credential), async (hash) => {
      const row = await this.repository.findActiveKey(hash);
      return row ? { kind: 'payments_key', accountId: row.accountId, mode: row.mode, keyId: row.id } : null;
    });
    if (!principal) throw invalidApiKey(REALM);
    return principal;
  }

  keyOf(principal: PaymentsKeyPrincipal): string {
    return `payments_key:${principal.keyId}`;
  }
}
