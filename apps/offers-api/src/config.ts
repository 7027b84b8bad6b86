import { PlatformConfig } from '@app/platform';
import { Expose, Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/** offers-api settings: the platform's plus its own. Variable names are the environment's. */
export class OffersConfig extends PlatformConfig {
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  OFFERS_PORT: number = 3000;

  get port(): number {
    return this.OFFERS_PORT;
  }
}
