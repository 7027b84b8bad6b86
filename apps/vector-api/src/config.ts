import { accessSync, constants, statSync } from 'node:fs';
import { IsPublicUrl, PlatformConfig, toBoolean } from '@app/platform';
import { Expose, Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min, ValidateBy } from 'class-validator';
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

  /**
   * Bytes of insert and upsert bodies one process reads and applies at once (decision 156):
   * a request past it waits, its body unread, until earlier ones answered. 64 MiB admits one
   * insert at the body limit, or several small ones together; a body larger than it (when
   * VECTOR_INSERT_BODY_LIMIT_BYTES is raised above it) is admitted alone.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  VECTOR_INSERT_BYTES_IN_FLIGHT: number = 64 * 1024 * 1024;

  /**
   * Threads that parse and check insert and upsert bodies off the event loop (issue 32): a
   * large body's JSON parse, key checks and row rules run there, and only its rows in compact
   * form come back. 0 parses every body on the event loop, as before.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(16)
  VECTOR_INSERT_PARSE_WORKERS: number = 1;

  /**
   * Insert and upsert bodies smaller than this are parsed on the event loop, where they cost
   * less than the message to a parse thread and back; larger ones go to a parse thread.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  VECTOR_INSERT_PARSE_INLINE_BYTES: number = 64 * 1024;

  /**
   * Largest body of POST /v1/tables/{table}/query: a batch of 100 queries of 4096 numbers is
   * about 8 MB of JSON, past the 1 MiB of the other routes.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  VECTOR_QUERY_BODY_LIMIT_BYTES: number = 16 * 1024 * 1024;

  /**
   * Largest answer of POST /v1/tables/{table}/query (one query or a batch), estimated from
   * its hits before it is built (platform contract, third round): over it → 400
   * `response_too_large`. 32 MiB is 1000 hits of 32 KB each, far past what a search answer
   * needs, and well under the size at which building one string stalled the process.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  VECTOR_MAX_RESPONSE_BYTES: number = 32 * 1024 * 1024;

  /**
   * Distinct values of one metadata key the inverted index keeps per table (decision 153).
   * A key past it (an id-like field such as LangChain's `content`, unique on every row) is
   * dropped from the index and its conditions read the rows' metadata instead: exact, never
   * refused, a walk of the table. 10,000 lists cost at most a few MB per key.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VECTOR_INDEX_MAX_DISTINCT_VALUES_PER_KEY: number = 10_000;

  /**
   * Distinct (key, value) pairs the inverted index keeps per table, over every key (decision
   * 153): past it the key adding a new value is scanned too, and keys first seen afterwards
   * are not indexed. Bounds the index of a table at about 100,000 lists (≈ 15–20 MB)
   * whatever its keys (64 new keys per row would otherwise grow it with every row).
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VECTOR_INDEX_MAX_DISTINCT_VALUES_PER_TABLE: number = 100_000;

  /** How often each instance polls the change sequence for other instances' writes. */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(20)
  @Max(60_000)
  VECTOR_SYNC_INTERVAL_MS: number = 250;

  /**
   * Tables loaded at once at start, in the background after the port opens (decision 188):
   * each load holds one PostgreSQL connection of the pool (DATABASE_POOL_SIZE, 10) while it
   * reads, so keep it well below the pool; snapshot chunks come through a pool of their own.
   * 4 keeps both cores busy decoding while the next tables' reads wait on PostgreSQL.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(64)
  VECTOR_LOAD_CONCURRENCY: number = 4;

  /**
   * Table snapshots (rows + index structure, in the SnapshotStore) are loaded at start and
   * written in the background. false: tables always load from their rows and rebuild.
   */
  @Expose()
  // a string for toBoolean, not the implicit Boolean("false") === true conversion
  @Type(() => String)
  @Transform(toBoolean)
  @IsBoolean()
  VECTOR_SNAPSHOTS: boolean = true;

  /**
   * Where snapshots of the tables' indexes are kept (docs/vector.md, "Snapshots: where they
   * live"). Unset: in PostgreSQL (`vector_snapshots`). Set: an absolute path of a directory
   * every instance reads and writes (NFS, EFS); it must exist and be writable at boot.
   */
  @Expose()
  @IsOptional()
  @IsString()
  @Matches(/^\//, { message: 'VECTOR_SNAPSHOT_DIR must be an absolute path' })
  VECTOR_SNAPSHOT_DIR?: string;

  /** A table is snapshotted once this many rows changed since its last snapshot… */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VECTOR_SNAPSHOT_MIN_CHANGES: number = 10_000;

  /**
   * …or once its last snapshot is this old and any row changed. Keep it well below the
   * change log's retention (one hour): a snapshot older than the log cannot be caught up.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  @Max(30 * 60 * 1000)
  VECTOR_SNAPSHOT_MAX_AGE_MS: number = 10 * 60 * 1000;

  /** How often tables are checked for a snapshot due. */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(100)
  VECTOR_SNAPSHOT_CHECK_MS: number = 5000;

  /** Published snapshots kept per table (older ones are removed after each write). */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10)
  VECTOR_SNAPSHOT_KEEP: number = 2;

  /**
   * Largest metadata of one row, as serialized JSON (UTF-8 bytes), on insert, upsert and
   * PATCH (the merged result): 40 KiB, Pinecone's per-record limit. Over it: 400
   * `metadata_too_large`.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(64)
  VECTOR_METADATA_MAX_BYTES: number = 40_960;

  /** Most keys of one row's metadata, counted over the whole tree. Over it: 400 `metadata_too_large`. */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VECTOR_METADATA_MAX_KEYS: number = 64;

  /** Tables one project may have. At it, `POST /v1/tables` is 409 `table_limit_reached`. */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VECTOR_MAX_TABLES_PER_PROJECT: number = 1000;

  /**
   * Floats one project may store, rows × dimension over all its tables: 256,000,000 is 1 GiB
   * of float32. A write past it is 409 `project_capacity_reached`.
   */
  @Expose()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  VECTOR_MAX_FLOATS_PER_PROJECT: number = 256_000_000;

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
