import { IsPublicUrl, PlatformConfig } from '@app/platform';
import { Expose, Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** vector-api settings: the platform's plus its own. Variable names are the environment's. */
export class VectorConfig extends PlatformConfig {
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  VECTOR_PORT: number = 3001;

  /**
   * The base URL clients reach vector-api at (`https://api.example.com`): the `servers` of its
   * OpenAPI document. Unset: the origin each request of the document was made to.
   */
  @Expose()
  @IsOptional()
  @IsPublicUrl()
  VECTOR_PUBLIC_URL?: string;

  /**
   * Largest body of an insert (`@BodyLimit` on that route): 64 MiB. An insert of 1000 rows ×
   * 4096 dimensions is about 40 MB of JSON at float32 precision (≈ 9 significant digits);
   * the platform's 1 MiB BODY_LIMIT_BYTES, which every other route keeps, would refuse
   * batches of realistic embeddings.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  VECTOR_INSERT_BODY_LIMIT_BYTES: number = 64 * 1024 * 1024;

  /** How often each instance polls the change sequence for other instances' writes. */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(20)
  @Max(60_000)
  VECTOR_SYNC_INTERVAL_MS: number = 250;

  /** Requests per minute per API token (the rate-limit policy given to AuthModule). */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VECTOR_RATE_LIMIT_PER_MINUTE: number = 1200;

  get port(): number {
    return this.VECTOR_PORT;
  }

  override get publicUrl(): string | undefined {
    return this.VECTOR_PUBLIC_URL;
  }
}
