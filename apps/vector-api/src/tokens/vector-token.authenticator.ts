import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Clock, type TtlCache } from '@app/platform';
import {
  ApiKeyCaches,
  apiKeyHash,
  type Authenticator,
  type ConsoleSession,
  invalidApiKey,
  LastUsedThrottle,
  RevocationBus,
} from '@app/auth';
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
  readonly wants = 'a vector token (vt_…, created at POST /admin/v1/projects/{id}/tokens or POST /v1/tokens)';
  private readonly cache: TtlCache<string, VectorTokenPrincipal>;
  /** Each token's last_used_at, written in the background at most once a minute per instance. */
  private readonly lastUsed: LastUsedThrottle;

  constructor(
    private readonly repository: VectorTokensRepository,
    private readonly revocations: RevocationBus,
    private readonly clock: Clock,
    caches: ApiKeyCaches,
  ) {
    this.cache = caches.create();
    this.lastUsed = new LastUsedThrottle((id, at) => repository.touch(id, at), new Logger('VectorTokens'), 'a token use');
  }

  onModuleInit(): void {
    this.revocations.subscribe(VECTOR_TOKEN_REVOKED, (tokenId) => this.cache.invalidate((p) => p.tokenId === tokenId));
  }

  async authenticate(credential: string): Promise<VectorTokenPrincipal> {
    const principal = await this.cache.getOrLoad(apiKeyHash(credential), async (hash) => {
      const row = await this.repository.findActive(hash);
      return row ? { kind: 'vector_token', tokenId: row.id, projectId: row.projectId } : null;
    });
    if (!principal) throw invalidApiKey(REALM);
    this.lastUsed.record(principal.tokenId, this.clock.nowMs());
    return principal;
  }

  /** A console session acts as a token of its project (tokenId: the session's id, so it can revoke every real token). */
  fromConsole(session: ConsoleSession): Promise<VectorTokenPrincipal> {
    return Promise.resolve({ kind: 'vector_token', tokenId: session.id, projectId: session.tenantId });
  }

  keyOf(principal: VectorTokenPrincipal): string {
    return `vector_token:${principal.tokenId}`;
  }

  /** The project: its tokens and console sessions share Idempotency-Keys (one mode; platform contract, third round). */
  idempotencyScopeOf(principal: VectorTokenPrincipal): string {
    return `vector:${principal.projectId}`;
  }
}
