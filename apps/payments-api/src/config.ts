import { IsPublicUrl } from '@app/platform';
import { WebhooksConfig } from '@app/webhooks';
import { Expose, Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

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

  get port(): number {
    return this.PAYMENTS_PORT;
  }

  override get publicUrl(): string | undefined {
    return this.PAYMENTS_PUBLIC_URL;
  }
}
