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

  get port(): number {
    return this.VECTOR_PORT;
  }
}
