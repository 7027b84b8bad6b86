import { IsPublicUrl, PlatformConfig } from '@app/platform';
import { Expose, Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min, ValidateBy } from 'class-validator';
import { MAX_PARTITIONS, type Partition, parsePartition } from './tables/partition';

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

  /**
   * `i/n`: this instance serves partition i of n (docs/scaling.md). It loads only the tables
   * `partitionOf(name, n)` gives to i — what the proxy's `split_clients` routes to its group —
   * and answers 421 `table_not_in_partition` for the others' per-table routes. Unset: every
   * table. Every instance of a deployment has the same n.
   */
  @Expose()
  @IsOptional()
  @ValidateBy({
    name: 'isPartition',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && parsePartition(value) !== undefined,
      defaultMessage: () => `VECTOR_PARTITION must be i/n with 1 ≤ i ≤ n ≤ ${MAX_PARTITIONS} (e.g. 2/4)`,
    },
  })
  VECTOR_PARTITION?: string;

  /** VECTOR_PARTITION read; undefined when unset (this instance holds every table). */
  get partition(): Partition | undefined {
    return this.VECTOR_PARTITION === undefined ? undefined : parsePartition(this.VECTOR_PARTITION);
  }

  get port(): number {
    return this.VECTOR_PORT;
  }

  override get publicUrl(): string | undefined {
    return this.VECTOR_PUBLIC_URL;
  }
}
