import { WebhooksConfig } from '@app/webhooks';
import { Expose, Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/** payments-api settings: the platform's and the webhooks' plus its own. Variable names are the environment's. */
export class PaymentsConfig extends WebhooksConfig {
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  PAYMENTS_PORT: number = 3002;

  /** Requests per minute per API key (the rate-limit policy given to AuthModule). */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  PAYMENTS_RATE_LIMIT_PER_MINUTE: number = 600;

  get port(): number {
    return this.PAYMENTS_PORT;
  }
}
