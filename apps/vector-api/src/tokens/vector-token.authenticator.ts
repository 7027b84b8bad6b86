import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Clock } from '@app/platform';
import {
  type ApiKeyCache,
  ApiKeyCaches,
  apiKeyHash,
  type Authenticator,
  type ConsoleSession,
  invalidApiKey,
  RevocationBus,
} from '@app/auth';
import type { VectorTokenPrincipal } from './vector-token.principal';
import { VectorTokensRepository } from './vector-tokens.repository';

/** RevocationBus channel of revoked token ids. */
export const VECTOR_TOKEN_REVOKED = 'auth:vector-token-revoked';

const REALM = 'vector-api';

/** `last_used_at` is written at most this often per token and instance. */
const TOUCH_EVERY_MS = 60_000;

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
  private readonly cache: ApiKeyCache<VectorTokenPrincipal>;
  private readonly logger = new Logger('VectorTokens');
  /** When this instance last wrote each token's last_used_at. */
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly repository: VectorTokensRepository,
    private readonly revocations: RevocationBus,
    private readonly clock: Clock,
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
      return row ? { kind: 'vector_token', tokenId: row.id, projectId: row.projectId } : null;
    });
    if (!principal) throw invalidApiKey(REALM);
    this.touch(principal.tokenId);
    return principal;
  }

  /** A console session acts as a token of its project (tokenId: the session's id, so it can revoke every real token). */
  fromConsole(session: ConsoleSession): Promise<VectorTokenPrincipal> {
    return Promise.resolve({ kind: 'vector_token', tokenId: session.id, projectId: session.tenantId });
  }

  /** Records the use in the background (a failed write costs the request nothing). */
  private touch(tokenId: string): void {
    const now = this.clock.now();
    const last = this.touched.get(tokenId);
    if (last !== undefined && now.getTime() - last < TOUCH_EVERY_MS) return;
    if (this.touched.size > 10_000) this.touched.clear();
    this.touched.set(tokenId, now.getTime());
    this.repository.touch(tokenId, now).catch((err: unknown) => this.logger.warn({ err }, 'could not record a token use'));
  }

  keyOf(principal: VectorTokenPrincipal): string {
    return `vector_token:${principal.tokenId}`;
  }

  /** The project: its tokens and console sessions share Idempotency-Keys (one mode; platform contract, third round). */
  idempotencyScopeOf(principal: VectorTokenPrincipal): string {
    return `vector:${principal.projectId}`;
  }
}
