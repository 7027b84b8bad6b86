import { accessSync, constants, statSync } from 'node:fs';
import { IsPublicUrl, PlatformConfig } from '@app/platform';
import { Expose, Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

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
   * Where snapshots of the tables' indexes are kept (docs/vector.md, "Snapshots: where they
   * live"). Unset: in PostgreSQL (`vector_snapshots`). Set: an absolute path of a directory
   * every instance reads and writes (NFS, EFS); it must exist and be writable at boot (a
   * shared mount that did not come up must not silently become a local folder).
   */
  @Expose()
  @IsOptional()
  @IsString()
  @Matches(/^\//, { message: 'VECTOR_SNAPSHOT_DIR must be an absolute path' })
  VECTOR_SNAPSHOT_DIR?: string;

  get port(): number {
    return this.VECTOR_PORT;
  }

  override get publicUrl(): string | undefined {
    return this.VECTOR_PUBLIC_URL;
  }

  override crossChecks(): Array<[string, string]> {
    const problems = super.crossChecks();
    const dir = this.VECTOR_SNAPSHOT_DIR;
    if (dir !== undefined) {
      const problem = directoryProblem(dir);
      if (problem) problems.push(['VECTOR_SNAPSHOT_DIR', `${problem} (got ${JSON.stringify(dir)})`]);
    }
    return problems;
  }
}

/** Why `dir` cannot hold snapshots, or undefined when it is a directory this process reads and writes. */
function directoryProblem(dir: string): string | undefined {
  try {
    if (!statSync(dir).isDirectory()) return 'must be a directory';
  } catch {
    return 'must be an existing directory';
  }
  try {
    accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch {
    return 'must be a directory this process can read and write';
  }
  return undefined;
}
