import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { MAX_FILTER } from '../../engine/filter-limits';
import { INDEX_KINDS, type IndexKind } from '../../engine/types';
import { MAX_DIMENSION } from './table.dto';

export const MAX_ROWS_PER_INSERT = 1000;
export const MAX_N = 1000;
export const MAX_ID_LENGTH = 512;
export const MAX_QUERIES_PER_BATCH = 100;
export const MAX_IDS_PER_PAGE = 1000;

/** A metadata value: a scalar, an array of values or an object of values (objects ≤ 8 deep). */
const METADATA_VALUES = [
  { type: 'string' },
  { type: 'number' },
  { type: 'boolean' },
  { type: 'array', items: {} },
  { type: 'object', additionalProperties: true },
];

const METADATA_DOC: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: { oneOf: METADATA_VALUES },
};

export class VectorRowDto {
  @ApiProperty({ minLength: 1, maxLength: MAX_ID_LENGTH, example: 'doc-1' })
  @IsString()
  @Length(1, MAX_ID_LENGTH)
  id!: string;

  /** Checked element by element in the service, so one error can name every offending id. */
  @ApiProperty({
    type: [Number],
    minItems: 1,
    maxItems: MAX_DIMENSION,
    description: 'Exactly the table dimension; finite numbers',
  })
  @IsArray()
  embedding!: unknown[];

  @ApiPropertyOptional({
    ...METADATA_DOC,
    description:
      'Values: string, number, boolean, or arrays and objects of those (objects nest ≤ 8 deep; null is refused); ' +
      'VECTOR_METADATA_MAX_KEYS counts every key of the tree',
  })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export class InsertVectorsDto {
  @ApiProperty({ type: [VectorRowDto], minItems: 1, maxItems: MAX_ROWS_PER_INSERT })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ROWS_PER_INSERT)
  @ValidateNested({ each: true })
  @Type(() => VectorRowDto)
  rows!: VectorRowDto[];
}

export class InsertedDto {
  @ApiProperty({ type: 'integer' }) inserted!: number;
}

const FILTER_DOC: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: true,
  maxProperties: MAX_FILTER.keys,
  description:
    'field path (`a.b`, `a[].b`) → value (equality; contains for array fields) or ' +
    '{$eq|$in|$nin|$ne|$gt|$gte|$lt|$lte|$exists|$except|$text|$isNull|$isEmpty: ...}, ' +
    'and $and / $or: [filters], $not: filter, $hasId: [ids], $minShould: {filters, count}; ' +
    'all keys must match (docs/vector.md, "Filters"). ' +
    `At most ${MAX_FILTER.keys} keys, ${MAX_FILTER.valuesPerArray} values per array (${MAX_FILTER.values} in all), ` +
    `${MAX_FILTER.stringLength} characters per string, logical depth ${MAX_FILTER.depth} ($and / $or / $not / $minShould), ` +
    `${MAX_FILTER.nesting} levels of nesting and ` +
    `${MAX_FILTER.size} characters of JSON; past them 400 filter_too_complex`,
  example: { genre: 'jazz', year: { $gte: 1960 } },
};

const VECTOR_DOC: ApiPropertyOptions = {
  type: [Number],
  minItems: 1,
  maxItems: MAX_DIMENSION,
  description:
    'Exactly the table dimension (longer than the largest dimension: dimension_mismatch before the table is read); finite numbers',
};

/** One query of a batch. */
export class BatchQueryItemDto {
  @ApiProperty(VECTOR_DOC)
  @IsArray()
  vector!: unknown[];

  @ApiProperty({ minimum: 1, maximum: MAX_N })
  @IsInt()
  @Min(1)
  @Max(MAX_N)
  n!: number;

  @ApiPropertyOptional(FILTER_DOC)
  @IsOptional()
  @IsObject()
  filter?: Record<string, unknown>;
}

/**
 * A query, or a batch of them: either `vector` and `n` (and `filter`), or `queries`
 * (1–100 of {vector, n, filter?}); `index`, `include_values` and `include_metadata` apply
 * to every query of a batch.
 */
export class QueryDto {
  @ApiPropertyOptional({ ...VECTOR_DOC, description: `${VECTOR_DOC.description}. Required unless \`queries\` is sent.` })
  @IsOptional()
  @IsArray()
  vector?: unknown[];

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_N, description: 'Required with `vector`' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_N)
  n?: number;

  @ApiPropertyOptional(FILTER_DOC)
  @IsOptional()
  @IsObject()
  filter?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: [BatchQueryItemDto],
    minItems: 1,
    maxItems: MAX_QUERIES_PER_BATCH,
    description: 'A batch: instead of `vector`, `n` and `filter`; the answer has one result list per query, in order',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_QUERIES_PER_BATCH)
  @ValidateNested({ each: true })
  @Type(() => BatchQueryItemDto)
  queries?: BatchQueryItemDto[];

  @ApiPropertyOptional({ enum: INDEX_KINDS, description: "Default: the table's index" })
  @IsOptional()
  @IsIn(INDEX_KINDS)
  index?: IndexKind;

  @ApiPropertyOptional({ default: false, description: "Return each result's stored `embedding`" })
  @IsOptional()
  @IsBoolean()
  include_values?: boolean;

  @ApiPropertyOptional({ default: true, description: "Return each result's `metadata`" })
  @IsOptional()
  @IsBoolean()
  include_metadata?: boolean;
}

export class QueryResultItemDto {
  @ApiProperty() id!: string;
  @ApiProperty({
    description:
      "By the table's metric: cosine similarity clamped to [0, 1] (`cosine`), the dot product (`dot`), 1 / (1 + L2 distance) (`euclidean`); higher is more similar",
  })
  score!: number;
  @ApiPropertyOptional({ ...METADATA_DOC, description: 'Unless `include_metadata` is false' }) metadata?: Record<string, unknown>;
  @ApiPropertyOptional({ type: [Number], description: 'With `include_values`: the embedding as stored (float32)' })
  embedding?: number[];
}

export class QueryResponseDto {
  @ApiProperty({ type: [QueryResultItemDto] }) results!: QueryResultItemDto[];
  @ApiProperty({ type: 'integer', description: 'Query execution time in milliseconds' }) latency_ms!: number;
}

export class BatchQueryResponseDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'array', items: { $ref: '#/components/schemas/QueryResultItemDto' } },
    description: 'One result list per query of `queries`, in order',
  })
  results!: QueryResultItemDto[][];
  @ApiProperty({ type: 'integer', description: 'Execution time of the whole batch in milliseconds' }) latency_ms!: number;
}

/** Exactly one of `ids` and `filter`. */
export class DeleteVectorsDto {
  @ApiPropertyOptional({
    type: [String],
    minItems: 1,
    maxItems: MAX_ROWS_PER_INSERT,
    description: 'The ids to delete (or `filter`, not both)',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ROWS_PER_INSERT)
  @IsString({ each: true })
  ids?: string[];

  @ApiPropertyOptional({
    ...FILTER_DOC,
    description: `Delete every row matching it (or \`ids\`, not both). ${FILTER_DOC.description}`,
  })
  @IsOptional()
  @IsObject()
  filter?: Record<string, unknown>;
}

export class DeletedDto {
  @ApiProperty({ type: 'integer' }) deleted!: number;
  @ApiProperty({ type: [String], description: 'The ids of `ids` that were not in the table (always empty for `filter`)' })
  not_found!: string[];
}

export class UpsertedDto {
  @ApiProperty({ type: 'integer', description: 'Rows written: inserted + updated' }) upserted!: number;
  @ApiProperty({ type: 'integer', description: 'Rows whose id was new' }) inserted!: number;
  @ApiProperty({ type: 'integer', description: 'Rows whose id existed: embedding and metadata overwritten' }) updated!: number;
}

export class FetchVectorsDto {
  @ApiProperty({ type: [String], minItems: 1, maxItems: MAX_ROWS_PER_INSERT })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ROWS_PER_INSERT)
  @IsString({ each: true })
  ids!: string[];

  @ApiPropertyOptional({ default: false, description: "Return each row's stored `embedding`" })
  @IsOptional()
  @IsBoolean()
  include_values?: boolean;
}

export class FetchedRowDto {
  @ApiProperty() id!: string;
  @ApiProperty(METADATA_DOC) metadata!: Record<string, unknown>;
  @ApiPropertyOptional({ type: [Number], description: 'With `include_values`: the embedding as stored (float32)' })
  embedding?: number[];
}

export class FetchedDto {
  @ApiProperty({ type: [FetchedRowDto], description: 'The rows found, in the order of `ids`' }) rows!: FetchedRowDto[];
  @ApiProperty({ type: [String] }) not_found!: string[];
}

/** PATCH …/vectors/{id}: at least one of the two. */
export class UpdateVectorDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { nullable: true, oneOf: METADATA_VALUES },
    description:
      'Merged into the stored metadata (JSON Merge Patch, RFC 7396): a key with a value sets it, a key with null ' +
      'removes it, an object merges into the stored object recursively',
  })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ type: [Number], minItems: 1, maxItems: MAX_DIMENSION, description: 'Replaces the embedding' })
  @IsOptional()
  @IsArray()
  embedding?: unknown[];
}

export class UpdatedVectorDto {
  @ApiProperty() id!: string;
  @ApiProperty({ ...METADATA_DOC, description: 'The metadata after the merge' }) metadata!: Record<string, unknown>;
}

export class ListIdsQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_IDS_PER_PAGE, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_IDS_PER_PAGE)
  limit?: number;

  @ApiPropertyOptional({ maxLength: 4096, description: '`next_cursor` of the previous page' })
  @IsOptional()
  @IsString()
  @Length(1, 4096)
  cursor?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: MAX_ID_LENGTH, description: 'Only ids starting with it' })
  @IsOptional()
  @IsString()
  @Length(1, MAX_ID_LENGTH)
  prefix?: string;
}

export class IdsPageDto {
  @ApiProperty({ type: [String], description: 'Ids in byte order' }) ids!: string[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last' })
  next_cursor!: string | null;
}

export class CountVectorsDto {
  @ApiPropertyOptional(FILTER_DOC)
  @IsOptional()
  @IsObject()
  filter?: Record<string, unknown>;
}

export class CountedDto {
  @ApiProperty({ type: 'integer', description: 'Rows matching the filter (all rows without one), exact' }) count!: number;
}
