import { PageLimit } from '@app/platform';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { INDEX_KINDS, type IndexKind, type IndexState, METRICS, type Metric, toSeq } from '../../engine/types';
import type { LiveTable } from '../live-tables';
import type { TableHead } from '../tables.repository';

/** Table names, as Qdrant's collection names: letters of either case, digits, `-`, `_`, `.`; not only dots. */
export const TABLE_NAME = /^(?!\.+$)[A-Za-z0-9_.-]{1,64}$/;
export const MAX_DIMENSION = 4096;

export class CreateTableDto {
  @ApiProperty({ pattern: TABLE_NAME.source, example: 'articles' })
  @IsString()
  @Matches(TABLE_NAME, { message: 'name must be 1-64 characters of letters, digits, _, - and ., not only dots' })
  name!: string;

  @ApiProperty({ minimum: 1, maximum: MAX_DIMENSION, example: 384 })
  @IsInt()
  @Min(1)
  @Max(MAX_DIMENSION)
  dimension!: number;

  @ApiPropertyOptional({ enum: INDEX_KINDS, default: 'flat', description: 'The default index of queries on this table' })
  @IsOptional()
  @IsIn(INDEX_KINDS)
  index?: IndexKind;

  @ApiPropertyOptional({
    enum: METRICS,
    default: 'cosine',
    description:
      'How similarity is scored: `cosine` (score = cosine similarity clamped to [0, 1]), `dot` (score = dot product), `euclidean` (score = 1 / (1 + L2 distance)). Fixed at creation.',
  })
  @IsOptional()
  @IsIn(METRICS)
  metric?: Metric;
}

export class IndexStatusDto {
  @ApiProperty({
    enum: ['ready', 'building', 'exact', 'not_loaded', 'loading'],
    description:
      '`ready`: the index holds every row; `building`: `details.pending` rows are still on their way into it (`details.progress`, 0–1), queries scan them exactly meanwhile; `exact`: the table is small enough that queries scan it exactly; `not_loaded`: this instance does not hold the table in memory (VECTOR_PARTITION: another partition does, or it was created through another instance moments ago); `details.partition` names the partition that holds it, whose instances show its index status; `loading`: this instance has just started and has not loaded the table yet (routes of its rows answer 503 `table_loading` until it has; `rows` is counted in PostgreSQL)',
  })
  state!: IndexState | 'not_loaded' | 'loading';

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    description:
      'Index parameters and counters (nlist, nprobe, m, ef_search, points, tombstones, pending, progress, ...), and where this instance stands: applied_seq (the change log position applied), snapshot_seq, snapshot_bytes, snapshot_write_ms, snapshot_load_ms (the snapshot it loaded or last wrote)',
  })
  details!: Record<string, number>;
}

export class TableDto {
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_DIMENSION }) dimension!: number;
  @ApiProperty({ enum: INDEX_KINDS }) index!: IndexKind;
  @ApiProperty({ enum: METRICS }) metric!: Metric;
  @ApiProperty({ type: 'integer', description: 'Number of vectors in the table' }) rows!: number;
  @ApiProperty({ type: IndexStatusDto }) index_status!: IndexStatusDto;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

/** `GET /v1/tables`: a page of the project's tables by name (byte order), as every list of the platform pages. */
export class ListTablesQueryDto {
  @PageLimit(100)
  limit?: number;

  @ApiPropertyOptional({
    pattern: TABLE_NAME.source,
    description: 'A table name, usually the last of the previous page: the tables whose names come after it',
  })
  @IsOptional()
  @IsString()
  @Matches(TABLE_NAME, {
    message: 'starting_after must be a table name (1-64 characters of letters, digits, _, - and ., not only dots)',
  })
  starting_after?: string;
}

export class TableListDto {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [TableDto], description: 'Tables by name, in byte order' }) data!: TableDto[];
  @ApiProperty({ description: 'More tables follow: pass the last name as `starting_after`' }) has_more!: boolean;
}

export class TableDeletedDto {
  @ApiProperty() name!: string;
  @ApiProperty({ enum: [true] }) deleted!: true;
}

/** Where this instance's memory of the table stands against the change log and its snapshots. */
function snapshotDetails(t: LiveTable): Record<string, number> {
  const s = t.snapshot;
  return {
    applied_seq: toSeq(t.appliedSeq),
    ...(s ? { snapshot_seq: s.seq, snapshot_bytes: s.bytes, snapshot_write_ms: s.writeMs, snapshot_load_ms: s.loadMs } : {}),
  };
}

/** A table as the API shows it: its row count and index status from this instance's memory. */
export function toTableDto(t: LiveTable): TableDto {
  const status = t.collection.status();
  return {
    name: t.name,
    dimension: t.dimension,
    index: t.indexKind,
    metric: t.metric,
    rows: t.collection.size,
    index_status: { state: status.state, details: { ...status.details, ...snapshotDetails(t) } },
    created_at: t.createdAt.toISOString(),
  };
}

/**
 * A table as an instance that does not hold it shows it (VECTOR_PARTITION): `rows` counted in
 * PostgreSQL, the index status `not_loaded` with the partition that holds it.
 */
export function toNotLoadedTableDto(head: TableHead, rows: number, partition: number): TableDto {
  return {
    name: head.name,
    dimension: head.dimension,
    index: head.indexKind,
    metric: head.metric,
    rows,
    index_status: { state: 'not_loaded', details: { partition } },
    created_at: head.createdAt.toISOString(),
  };
}

/**
 * A table of this instance that its load after start has not reached yet: as PostgreSQL
 * has it, `rows` counted there, the index status `loading`.
 */
export function toLoadingTableDto(head: TableHead, rows: number): TableDto {
  return {
    name: head.name,
    dimension: head.dimension,
    index: head.indexKind,
    metric: head.metric,
    rows,
    index_status: { state: 'loading', details: {} },
    created_at: head.createdAt.toISOString(),
  };
}

export class QueryLatencyBucketDto {
  @ApiProperty({ format: 'date-time', description: 'Start of the minute' }) start!: string;
  @ApiProperty({ type: 'integer', description: 'Queries answered in the minute (each query of a batch counts)' })
  queries!: number;
  @ApiProperty({ description: 'Median engine time of a query, in milliseconds (3 decimals)' }) p50_ms!: number;
  @ApiProperty({ description: '95th percentile of the engine time, in milliseconds (3 decimals)' }) p95_ms!: number;
  @ApiProperty({ description: 'Slowest query of the minute, in milliseconds (3 decimals)' }) max_ms!: number;
}

export class TableStatsDto {
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'integer', description: 'Minutes looked back' }) window_minutes!: number;
  @ApiProperty({
    enum: ['instance'],
    description: 'Whose queries are counted: those the instance that answers this request ran (kept in its memory)',
  })
  scope!: 'instance';
  @ApiProperty({
    type: [QueryLatencyBucketDto],
    description: 'One entry per minute with queries, oldest first (minutes without queries are left out)',
  })
  query_latency!: QueryLatencyBucketDto[];
}
