import { webcrypto } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { errors as joseErrors, jwtVerify, type JWTPayload, SignJWT } from 'jose';
import { Clock, DomainError, newId } from '@app/platform';
import { OffersConfig } from '../config';
import { TIERS, type Tier } from '../partners/partner-tier';
import { developmentJwtKeys, type JwtKey } from './jwt-keys';

/** Issuer and audience of our access tokens, and the realm of our authentication challenges. */
export const OAUTH_ISSUER = 'offers-api';
/** Access token lifetime; the contract fixes 3600 s. A token claiming a longer one is refused. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** How far `iat` may lie in the future (clocks of instances disagree a little). */
export const MAX_CLOCK_SKEW_SECONDS = 60;

export interface AccessTokenClaims {
  readonly clientId: string;
  readonly partnerId: string;
  readonly tier: Tier;
  /**
   * Claim `secret_version`: the version of the client secret that minted the token (the
   * client's `secret_version`, or one less for its previous secret in grace). A token whose
   * secret has since been rotated cannot manage credentials, and after a rotation without grace
   * it is refused (issue 31). A token without the claim (issued before it existed) counts as 0.
   */
  readonly secretVersion: number;
}

/**
 * Access tokens are JWTs (RFC 9068 profile, `typ: at+jwt`) signed with HS256. The key id
 * (`kid`) selects the verification key, so keys can rotate: put the new key first in
 * OAUTH_JWT_KEYS (it signs), keep the old one after it until its tokens expire. Without
 * OAUTH_JWT_KEYS (development and test only) the installation's generated key signs.
 *
 * Besides signature, issuer, audience, type and expiry, a token must carry numeric `iat` and
 * `exp` with `exp − iat` ≤ 3600 s and `iat` at most 60 s in the future: whoever holds a key
 * cannot mint a token that outlives the contract's lifetime.
 */
@Injectable()
export class AccessTokenService {
  private readonly keys: readonly JwtKey[];
  /**
   * Verification keys imported once per kid: given raw bytes, jose imports a WebCrypto key on
   * every verify, i.e. on every authenticated request (docs/benchmarks.md, HTTP load: Profile).
   */
  private readonly verifyKeys = new Map<string, Promise<webcrypto.CryptoKey>>();

  constructor(
    config: OffersConfig,
    private readonly clock: Clock,
  ) {
    this.keys = config.jwtKeys ?? developmentJwtKeys(config.dataDir);
    if (this.keys.length === 0) throw new Error('AccessTokenService: at least one OAUTH_JWT_KEYS key is required');
  }

  get ttlSeconds(): number {
    return ACCESS_TOKEN_TTL_SECONDS;
  }

  async issue(claims: AccessTokenClaims): Promise<string> {
    const [key] = this.keys;
    if (!key) throw new Error('no signing key');
    const now = Math.floor(this.clock.nowMs() / 1000);
    return new SignJWT({
      client_id: claims.clientId,
      partner_id: claims.partnerId,
      tier: claims.tier,
      secret_version: claims.secretVersion,
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: key.kid })
      .setIssuer(OAUTH_ISSUER)
      .setAudience(OAUTH_ISSUER)
      .setSubject(claims.clientId)
      .setJti(newId('jti'))
      .setIssuedAt(now)
      .setExpirationTime(now + ACCESS_TOKEN_TTL_SECONDS)
      .sign(key.secret);
  }

  /** Signature, issuer, audience, type, expiry and lifetime; throws DomainError('invalid_token'). */
  async verify(token: string): Promise<AccessTokenClaims> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(
        token,
        (header) => {
          const key = this.keys.find((k) => k.kid === header.kid);
          if (!key) throw new joseErrors.JWKSNoMatchingKey();
          let imported = this.verifyKeys.get(key.kid);
          if (!imported) {
            imported = webcrypto.subtle.importKey('raw', key.secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
            this.verifyKeys.set(key.kid, imported);
          }
          return imported;
        },
        {
          algorithms: ['HS256'],
          issuer: OAUTH_ISSUER,
          audience: OAUTH_ISSUER,
          typ: 'at+jwt',
          currentDate: this.clock.now(),
          requiredClaims: ['exp', 'iat', 'sub'],
        },
      ));
    } catch (err) {
      throw invalidToken(err instanceof joseErrors.JWTExpired ? 'The access token expired.' : 'The access token is invalid.');
    }
    const { iat, exp } = payload;
    if (typeof iat !== 'number' || typeof exp !== 'number' || !Number.isFinite(iat) || !Number.isFinite(exp)) {
      throw invalidToken('The access token is invalid.');
    }
    const now = this.clock.nowMs() / 1000;
    if (exp - iat > ACCESS_TOKEN_TTL_SECONDS || iat > now + MAX_CLOCK_SKEW_SECONDS) {
      throw invalidToken('The access token is invalid.');
    }
    const { client_id: clientId, partner_id: partnerId, tier, secret_version: version = 0 } = payload as Record<string, unknown>;
    if (typeof clientId !== 'string' || typeof partnerId !== 'string' || !TIERS.includes(tier as Tier)) {
      throw invalidToken('The access token is invalid.');
    }
    if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) {
      throw invalidToken('The access token is invalid.');
    }
    return { clientId, partnerId, tier: tier as Tier, secretVersion: version };
  }

  realm(): string {
    return OAUTH_ISSUER;
  }
}

/** RFC 6750 §3.1 `invalid_token`, in the platform error body. */
export function invalidToken(description: string): DomainError {
  return new DomainError('invalid_token', description, {
    headers: {
      'WWW-Authenticate': `Bearer realm="${OAUTH_ISSUER}", error="invalid_token", error_description="${description}"`,
    },
  });
}
