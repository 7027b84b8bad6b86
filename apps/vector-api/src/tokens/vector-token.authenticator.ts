import { Injectable, type OnModuleInit } from '@nestjs/common';
import { type ApiKeyCache, ApiKeyCaches, apiKeyHash, type Authenticator, invalidApiKey, RevocationBus } from '@app/auth';
import type { VectorTokenPrincipal } from './vector-token.principal';
import { VectorTokensRepository } from './vector-tokens.repository';

/** RevocationBus channel of revoked token ids. */
export const VECTOR_TOKEN_REVOKED = 'auth:vector-token-revoked';

const REALM = 'vector-api';

/**
 * Opaque token, looked up by SHA-256. Lookups are cached for a second; a revocation evicts
 * the token from this instance's cache at once and, via RevocationBus, from the other
 * instances'.
 */
@Injectable()
export class VectorTokenAuthenticator implements Authenticator<VectorTokenPrincipal>, OnModuleInit {
  readonly kind = 'vector_token';
  readonly realm = REALM;
  readonly wants = 'a vector token (vt_…, created by the operator at POST /admin/v1/tokens)';
  private readonly cache: ApiKeyCache<VectorTokenPrincipal>;

  constructor(
    private readonly repository: VectorTokensRepository,
    private readonly revocations: RevocationBus,
    caches: ApiKeyCaches,
  ) {
    this.cache = caches.create();
  }

  onModuleInit(): void {
    this.revocations.subscribe(VECTOR_TOKEN_REVOKED, (tokenId) => this.cache.invalidate((p) => p.tokenId === tokenId));
  }

  async authenticate(credential: string): Promise<VectorTokenPrincipal> {
    const principal = await this.cache.getOrLoad(apiKeyHash(credential), async (hash) => {
      const row = await this.repository.findActive(hash);
      return row ? { kind: 'vector_token', tokenId: row.id } : null;
    });
    if (!principal) throw invalidApiKey(REALM);
    return principal;
  }

  keyOf(principal: VectorTokenPrincipal): string {
    return `vector_token:${principal.tokenId}`;
  }
}
