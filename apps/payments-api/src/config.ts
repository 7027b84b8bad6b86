import { IsPublicUrl } from '@app/platform';
import { WebhooksConfig } from '@app/webhooks';
import { resolve } from 'node:path';
import { Expose, Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { parseEncryptionSecrets } from './api-keys/encryption-secrets';

/** payments-api settings: the platform's and the webhooks' plus its own. Variable names are the environment's. */
export class PaymentsConfig extends WebhooksConfig {
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  PAYMENTS_PORT: number = 3002;

  /**
   * The base URL clients reach payments-api at (`https://api.example.com`): the `servers` of its
   * OpenAPI document. Unset: the origin each request of the document was made to.
   */
  @Expose()
  @IsOptional()
  @IsPublicUrl()
  PAYMENTS_PUBLIC_URL?: string;

  /** Requests per minute per API key (the rate-limit policy given to AuthModule). */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  PAYMENTS_RATE_LIMIT_PER_MINUTE: number = 600;

  /**
   * Hours an authorization (capture_method manual) may wait for capture before it is canceled
   * with cancellation_reason automatic. Stripe's card authorizations last 7 days (168 h);
   * at most 30 days, the longest extended authorization card networks allow.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(720)
  AUTHORIZATION_TTL_HOURS: number = 168;

  /**
   * The secret(s) that encrypt (AES-256-GCM) the stored answers of `POST /v2/api-keys` and
   * `/v2/api-keys/roll`, which hold a new key, for their Idempotency-Key replays: one or more
   * comma-separated secrets of at least 32 characters; the first encrypts, every one decrypts
   * (rotation: prepend the new one, drop the old one after IDEMPOTENCY_RETENTION_HOURS).
   * Required in production; elsewhere, when unset, the installation's own random secret from
   * DATA_DIR is used (created on first use).
   */
  @Expose()
  @IsOptional()
  @IsString()
  PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY?: string;

  /**
   * Where a development or test installation keeps local state: the generated secret of
   * PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY when it is unset outside production. Relative to the
   * working directory.
   */
  @Expose()
  @IsString()
  @MinLength(1)
  DATA_DIR: string = '.data';

  /** DATA_DIR as an absolute path. */
  get dataDir(): string {
    return resolve(this.DATA_DIR);
  }

  get port(): number {
    return this.PAYMENTS_PORT;
  }

  override get publicUrl(): string | undefined {
    return this.PAYMENTS_PUBLIC_URL;
  }

  override crossChecks(): Array<[string, string]> {
    const problems = super.crossChecks();
    if (this.PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY === undefined) {
      if (this.isProduction) {
        problems.push([
          'PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY',
          'is required in production: one or more comma-separated secrets of at least 32 random characters',
        ]);
      }
    } else {
      const parsed = parseEncryptionSecrets(this.PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY);
      if (typeof parsed === 'string') problems.push(['PAYMENTS_IDEMPOTENCY_ENCRYPTION_KEY', parsed]);
    }
    return problems;
  }
}
