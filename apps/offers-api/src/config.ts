import { WebhooksConfig } from '@app/webhooks';
import { Expose, Type } from 'class-transformer';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { DEV_JWT_KEYS, type JwtKey, parseJwtKeys } from './oauth/jwt-keys';

/** offers-api settings: the platform's and the webhooks' plus its own. Variable names are the environment's. */
export class OffersConfig extends WebhooksConfig {
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  OFFERS_PORT: number = 3000;

  /** Access-token signing keys, `kid:secret[,kid:secret]`; the first signs, all verify (oauth/jwt-keys.ts). */
  @Expose()
  @IsString()
  OAUTH_JWT_KEYS: string = DEV_JWT_KEYS;

  /** How long an instance trusts its cached "client is active" answer; a disabled client stops within it. */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(60_000)
  OAUTH_CLIENT_CACHE_TTL_MS: number = 5_000;

  /** Failed client authentications at POST /oauth/token per client address per minute before 429 (0: unlimited); see TRUST_PROXY. */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  OAUTH_TOKEN_FAILURES_PER_MINUTE: number = 60;

  /** Requests per minute per OAuth client, by partner tier (platform contract: Offers service decisions). */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  RATE_LIMIT_STARTER: number = 30;

  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  RATE_LIMIT_GROWTH: number = 100;

  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  RATE_LIMIT_ENTERPRISE: number = 1000;

  get port(): number {
    return this.OFFERS_PORT;
  }

  /** The parsed OAUTH_JWT_KEYS (validated at boot by crossChecks). */
  get jwtKeys(): JwtKey[] {
    const keys = parseJwtKeys(this.OAUTH_JWT_KEYS);
    if (typeof keys === 'string') throw new Error(`OAUTH_JWT_KEYS ${keys}`);
    return keys;
  }

  override crossChecks(): Array<[string, string]> {
    const problems = super.crossChecks();
    const keys = parseJwtKeys(this.OAUTH_JWT_KEYS);
    if (typeof keys === 'string') problems.push(['OAUTH_JWT_KEYS', keys]);
    if (this.isProduction && this.OAUTH_JWT_KEYS === DEV_JWT_KEYS) {
      problems.push(['OAUTH_JWT_KEYS', 'must be set to your own keys in production']);
    }
    return problems;
  }
}
