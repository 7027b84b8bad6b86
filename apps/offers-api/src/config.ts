import { IsPublicUrl } from '@app/platform';
import { WebhooksConfig } from '@app/webhooks';
import { resolve } from 'node:path';
import { Expose, Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { type JwtKey, parseJwtKeys } from './oauth/jwt-keys';

/** offers-api settings: the platform's and the webhooks' plus its own. Variable names are the environment's. */
export class OffersConfig extends WebhooksConfig {
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  OFFERS_PORT: number = 3000;

  /**
   * The base URL clients reach offers-api at (`https://api.example.com`): the `servers` of its
   * OpenAPI document. Unset: the origin each request of the document was made to.
   */
  @Expose()
  @IsOptional()
  @IsPublicUrl()
  OFFERS_PUBLIC_URL?: string;

  /**
   * Access-token signing keys, `kid:secret[,kid:secret]`; the first signs, all verify
   * (oauth/jwt-keys.ts). Required in production; elsewhere, when unset, the installation's
   * own random key from DATA_DIR is used (created on first use).
   */
  @Expose()
  @IsOptional()
  @IsString()
  OAUTH_JWT_KEYS?: string;

  /**
   * Where a development or test installation keeps local state: the generated OAuth signing
   * key (when OAUTH_JWT_KEYS is unset outside production). Relative to the working directory.
   */
  @Expose()
  @IsString()
  @MinLength(1)
  DATA_DIR: string = '.data';

  /** How long an instance trusts its cached "client is active" answer; a disabled client stops within it even if the RevocationBus broadcast is lost. */
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

  /**
   * Client secret verifications and hashes (scrypt, ≈ 40 ms of CPU each, on libuv's pool of 4
   * threads) running at once per process, token endpoint and client routes together
   * (oauth/secret-gate.ts); one client address, partner or the operator gets at most half.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(64)
  OAUTH_HASH_CONCURRENCY: number = 2;

  /** Requests waiting for a verification or hashing slot per process before 429 temporarily_unavailable (token endpoint) or 503 (client routes). */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(10_000)
  OAUTH_HASH_QUEUE: number = 32;

  /** Longest wait for a verification or hashing slot before 429 temporarily_unavailable (token endpoint) or 503 (client routes). */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(60_000)
  OAUTH_HASH_QUEUE_TIMEOUT_MS: number = 2_000;

  /**
   * Token requests of one client address running or waiting for a verification at once, per
   * process, before 429 slow_down; on the client routes the same places per partner (and for
   * the operator), before 429 rate_limit_exceeded.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000)
  OAUTH_HASH_PER_ADDRESS: number = 4;

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

  override get publicUrl(): string | undefined {
    return this.OFFERS_PUBLIC_URL;
  }

  /**
   * The parsed OAUTH_JWT_KEYS (validated at boot by crossChecks), or undefined when it is
   * unset: then the installation's development key from DATA_DIR signs (oauth/jwt-keys.ts).
   */
  get jwtKeys(): JwtKey[] | undefined {
    if (this.OAUTH_JWT_KEYS === undefined) return undefined;
    const keys = parseJwtKeys(this.OAUTH_JWT_KEYS);
    if (typeof keys === 'string') throw new Error(`OAUTH_JWT_KEYS ${keys}`);
    return keys;
  }

  /** DATA_DIR as an absolute path. */
  get dataDir(): string {
    return resolve(this.DATA_DIR);
  }

  override crossChecks(): Array<[string, string]> {
    const problems = super.crossChecks();
    if (this.OAUTH_JWT_KEYS === undefined) {
      if (this.isProduction) {
        problems.push([
          'OAUTH_JWT_KEYS',
          'is required in production: kid:secret[,kid:secret...] with secrets of at least 32 random characters',
        ]);
      }
    } else {
      const keys = parseJwtKeys(this.OAUTH_JWT_KEYS);
      if (typeof keys === 'string') problems.push(['OAUTH_JWT_KEYS', keys]);
    }
    return problems;
  }
}
