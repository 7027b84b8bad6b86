import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
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
import type { CollectionHit } from '../../engine/vector-collection';
import { MAX_DIMENSION } from './table.dto';

export const MAX_ROWS_PER_INSERT = 1000;
export const MAX_N = 1000;
export const MAX_ID_LENGTH = 512;

const METADATA_DOC: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: {
    oneOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] } },
    ],
  },
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

  @ApiPropertyOptional({ ...METADATA_DOC, description: 'string, number, boolean or arrays of those' })
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

export class QueryDto {
  @ApiProperty({
    type: [Number],
    minItems: 1,
    maxItems: MAX_DIMENSION,
    description:
      'Exactly the table dimension (longer than the largest dimension: dimension_mismatch before the table is read); finite numbers',
  })
  @IsArray()
  vector!: unknown[];

  @ApiProperty({ minimum: 1, maximum: MAX_N })
  @IsInt()
  @Min(1)
  @Max(MAX_N)
  n!: number;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    maxProperties: MAX_FILTER.keys,
    description:
      'key → value (equality; contains for array fields) or {$in|$nin|$ne|$gt|$gte|$lt|$lte|$exists: ...}, ' +
      'and $and / $or: [filters]; all keys must match. ' +
      `At most ${MAX_FILTER.keys} keys, ${MAX_FILTER.valuesPerArray} values per array (${MAX_FILTER.values} in all), ` +
      `${MAX_FILTER.stringLength} characters per string, logical depth ${MAX_FILTER.depth} ($and / $or), ` +
      `${MAX_FILTER.nesting} levels of nesting and ` +
      `${MAX_FILTER.size} characters of JSON; past them 400 filter_too_complex`,
    example: { genre: 'jazz', year: { $gte: 1960 } },
  })
  @IsOptional()
  @IsObject()
  filter?: Record<string, unknown>;

  @ApiPropertyOptional({ enum: INDEX_KINDS, description: "Default: the table's index" })
  @IsOptional()
  @IsIn(INDEX_KINDS)
  index?: IndexKind;
}

export class QueryResultItemDto {
  @ApiProperty() id!: string;
  @ApiProperty({ minimum: 0, maximum: 1, description: 'Cosine similarity clamped to [0, 1]' }) score!: number;
  @ApiProperty(METADATA_DOC) metadata!: Record<string, unknown>;
}

export class QueryResponseDto {
  @ApiProperty({ type: [QueryResultItemDto] }) results!: QueryResultItemDto[];
  @ApiProperty({ type: 'integer', description: 'Query execution time in milliseconds' }) latency_ms!: number;
}

/** Query hits, best first, with the query's execution time in whole milliseconds. */
export function toQueryResponse(hits: readonly CollectionHit[], latencyMs: number): QueryResponseDto {
  return { results: hits.map((h) => ({ id: h.id, score: h.score, metadata: h.metadata })), latency_ms: latencyMs };
}

export class DeleteVectorsDto {
  @ApiProperty({ type: [String], minItems: 1, maxItems: MAX_ROWS_PER_INSERT })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ROWS_PER_INSERT)
  @IsString({ each: true })
  ids!: string[];
}

export class DeletedDto {
  @ApiProperty({ type: 'integer' }) deleted!: number;
  @ApiProperty({ type: [String] }) not_found!: string[];
}
