import { Inject, Injectable, Optional } from '@nestjs/common';
import { DomainError, sha256Hex } from '@app/platform';
import { ApiKeyCache } from './api-key-cache';
import type { AuthModuleOptions } from './auth.options';
import { AUTH_OPTIONS } from './auth.tokens';
import { CredentialsRepository } from './credentials.repository';
import { AccessTokenService, invalidToken } from './oauth/access-token.service';
import type { PartnerPrincipal, PaymentsKeyPrincipal, PrincipalKind, PrincipalOf, Tier, VectorTokenPrincipal } from './principal';

/** Turns a presented bearer credential into a principal of one kind, or throws a 401. */
export interface Authenticator<K extends PrincipalKind> {
  readonly kind: K;
  authenticate(credential: string): Promise<PrincipalOf<K>>;
}

function invalidApiKey(realm: string): DomainError {
  return new DomainError('invalid_api_key', 'Invalid API key provided.', {
    headers: { 'WWW-Authenticate': `Bearer realm="${realm}", error="invalid_token"` },
  });
}

interface ClientStatus {
  readonly active: boolean;
  readonly partnerId: string;
  readonly tier: Tier;
  readonly expires: number;
}

/**
 * offers-api: a signed access token, plus "is the client still active?" from a per-instance
 * cache with a short TTL — a disabled client's tokens stop working within that TTL on every
 * instance, without a database read on every request.
 */
@Injectable()
export class PartnerAuthenticator implements Authenticator<'partner'> {
  readonly kind = 'partner';
  private readonly cache = new Map<string, ClientStatus>();

  constructor(
    @Optional() @Inject(AccessTokenService) private readonly tokens: AccessTokenService | null,
    private readonly repository: CredentialsRepository,
    @Inject(AUTH_OPTIONS) private readonly options: AuthModuleOptions,
  ) {}

  async authenticate(credential: string): Promise<PartnerPrincipal> {
    if (!this.tokens) throw new Error('PartnerAuthenticator needs AccessTokenService (offers service only)');
    const claims = await this.tokens.verify(credential);
    const status = await this.clientStatus(claims.clientId);
    if (!status?.active || status.partnerId !== claims.partnerId) {
      throw invalidToken('The client of this access token is disabled.');
    }
    return { kind: 'partner', partnerId: status.partnerId, clientId: claims.clientId, tier: status.tier };
  }

  /** Forget a client's cached status (called when this instance disables it). */
  invalidate(clientId: string): void {
    this.cache.delete(clientId);
  }

  private async clientStatus(clientId: string): Promise<ClientStatus | undefined> {
    const now = Date.now();
    const cached = this.cache.get(clientId);
    if (cached && cached.expires > now) return cached;
    const client = await this.repository.findClient(clientId);
    if (!client) {
      this.cache.delete(clientId);
      return undefined;
    }
    const status: ClientStatus = {
      active: client.active,
      partnerId: client.partnerId,
      tier: client.tier,
      expires: now + (this.options.oauth?.clientCacheTtlMs ?? 5_000),
    };
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(clientId, status);
    return status;
  }
}

/** How long an instance trusts a cached API-key lookup (revocations also evict it at once). */
export const API_KEY_CACHE_TTL_MS = 1_000;

/**
 * vector-api: opaque token, looked up by SHA-256. Lookups are cached for a second; a
 * revocation evicts the token from this instance's cache at once and, via RevocationBus,
 * from the other instances'.
 */
@Injectable()
export class VectorTokenAuthenticator implements Authenticator<'vector_token'> {
  readonly kind = 'vector_token';
  private readonly cache: ApiKeyCache<VectorTokenPrincipal>;

  constructor(
    private readonly repository: CredentialsRepository,
    @Inject(AUTH_OPTIONS) options: AuthModuleOptions,
  ) {
    this.cache = new ApiKeyCache(options.apiKeyCacheTtlMs ?? API_KEY_CACHE_TTL_MS);
  }

  async authenticate(credential: string): Promise<VectorTokenPrincipal> {
    const principal = await this.cache.getOrLoad(sha256Hex(credential), async (hash) => {
      const row = await this.repository.findActiveVectorToken(hash);
      return row ? { kind: 'vector_token', tokenId: row.id } : null;
    });
    if (!principal) throw invalidApiKey('vector-api');
    return principal;
  }

  revoked(tokenId: string): void {
    this.cache.invalidate((p) => p.tokenId === tokenId);
  }
}

const PAYMENTS_KEY = /^sk_(test|live)_[A-Za-z0-9]{20,}$/;

/** payments-api: `sk_test_…` / `sk_live_…`, looked up by SHA-256 (cached a second); the key decides account and mode. */
@Injectable()
export class PaymentsKeyAuthenticator implements Authenticator<'payments_key'> {
  readonly kind = 'payments_key';
  private readonly cache: ApiKeyCache<PaymentsKeyPrincipal>;

  constructor(
    private readonly repository: CredentialsRepository,
    @Inject(AUTH_OPTIONS) options: AuthModuleOptions,
  ) {
    this.cache = new ApiKeyCache(options.apiKeyCacheTtlMs ?? API_KEY_CACHE_TTL_MS);
  }

  async authenticate(credential: string): Promise<PaymentsKeyPrincipal> {
    if (!PAYMENTS_KEY.test(credential)) throw invalidApiKey('payments-api');
    const principal = await this.cache.getOrLoad(sha256Hex(credential), async (hash) => {
      const row = await this.repository.findActivePaymentKey(hash);
      return row ? { kind: 'payments_key', accountId: row.accountId, mode: row.mode, keyId: row.id } : null;
    });
    if (!principal) throw invalidApiKey('payments-api');
    return principal;
  }
}
