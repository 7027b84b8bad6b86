import { PlatformConfig } from '@app/platform';
import { Expose, Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/** vector-api settings: the platform's plus its own. Variable names are the environment's. */
export class VectorConfig extends PlatformConfig {
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  VECTOR_PORT: number = 3001;

  /** Requests per minute per API token (libs/auth rate limiter). */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VECTOR_RATE_LIMIT_PER_MINUTE: number = 1200;

  get port(): number {
    return this.VECTOR_PORT;
  }
}
