import { Authenticated, CurrentPrincipal } from '@app/auth';
import { ApiErrors, BodyLimit, RawJsonBody } from '@app/platform';
import { Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { VectorConfig } from '../config';
import type { VectorTokenPrincipal } from '../tokens/vector-token.principal';
import {
  BatchQueryResponseDto,
  CountedDto,
  CountVectorsDto,
  DeletedDto,
  DeleteVectorsDto,
  FetchedDto,
  FetchVectorsDto,
  IdsPageDto,
  InsertedDto,
  InsertVectorsDto,
  ListIdsQueryDto,
  QueryDto,
  QueryResponseDto,
  UpdatedVectorDto,
  UpdateVectorDto,
  UpsertedDto,
} from './dto/vectors.dto';
import { InsertAdmission } from './insert-admission';
import { InsertBodyPipe } from './insert-body.pipe';
import { filterBodyPipe, QueryBodyPipe } from './query-body.pipe';
import { KnownFieldsPipe, RawBody } from './raw-body';
import { QueryAnswerInterceptor, SlicedJsonInterceptor } from './sliced-json';
import { TablesService } from './tables.service';

const ROWS_ERRORS = [
  { code: 'dimension_mismatch', when: 'embeddings whose length is not the table dimension; error.ids names their rows' },
  {
    code: 'parameter_invalid',
    when: 'embedding values that are not finite float32, invalid metadata or an id twice in the batch; error.ids names the rows',
  },
  {
    code: 'metadata_too_large',
    when: 'a row whose metadata is over VECTOR_METADATA_MAX_BYTES or VECTOR_METADATA_MAX_KEYS; error.ids names the rows',
  },
  { code: 'project_capacity_reached', when: 'the new rows would take the project past VECTOR_MAX_FLOATS_PER_PROJECT' },
] as const;

const FILTER_ERRORS = [
  { code: 'filter_too_complex', when: 'a filter over its size limits' },
  { code: 'parameter_invalid', when: 'a malformed filter' },
] as const;

/** The rows of one of the caller's project's tables. */
@ApiTags('vectors')
@Authenticated('vector_token')
@ApiErrors(
  { code: 'resource_missing', when: 'no such table in the project' },
  { code: 'table_not_in_partition', when: 'VECTOR_PARTITION: another partition holds the table' },
)
@ApiExtraModels(QueryResponseDto, BatchQueryResponseDto)
@Controller('v1/tables/:table')
export class VectorsController {
  constructor(private readonly tables: TablesService) {}

  @Post('insert')
  @UseGuards(InsertAdmission)
  @RawJsonBody()
  @BodyLimit((config: VectorConfig) => config.VECTOR_INSERT_BODY_LIMIT_BYTES)
  @ApiOperation({ summary: 'Insert up to 1000 vectors, all or nothing; acknowledged after commit' })
  @ApiBody({ type: InsertVectorsDto })
  @ApiCreatedResponse({ type: InsertedDto })
  @ApiErrors(...ROWS_ERRORS, { code: 'resource_already_exists', when: 'ids already in the table; error.ids names them' })
  insert(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('table') table: string,
    @RawBody(InsertBodyPipe) dto: InsertVectorsDto,
  ): Promise<InsertedDto> {
    return this.tables.insert(caller, table, dto);
  }

  @Post('upsert')
  @UseGuards(InsertAdmission)
  @RawJsonBody()
  @HttpCode(200)
  @BodyLimit((config: VectorConfig) => config.VECTOR_INSERT_BODY_LIMIT_BYTES)
  @ApiOperation({
    summary: 'Insert up to 1000 vectors or overwrite the embedding and metadata of those whose id exists; all or nothing',
  })
  @ApiBody({ type: InsertVectorsDto })
  @ApiOkResponse({ type: UpsertedDto })
  @ApiErrors(...ROWS_ERRORS)
  upsert(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('table') table: string,
    @RawBody(InsertBodyPipe) dto: InsertVectorsDto,
  ): Promise<UpsertedDto> {
    return this.tables.upsert(caller, table, dto);
  }

  @Post('fetch')
  @HttpCode(200)
  @UseInterceptors(SlicedJsonInterceptor)
  @ApiOperation({ summary: 'Rows by id (up to 1000), with their metadata and optionally their embeddings' })
  @ApiBody({ type: FetchVectorsDto })
  @ApiOkResponse({ type: FetchedDto })
  fetch(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('table') table: string,
    @RawBody(new KnownFieldsPipe(FetchVectorsDto, ['ids', 'include_values'])) dto: FetchVectorsDto,
  ): Promise<FetchedDto> {
    return this.tables.fetch(caller, table, dto);
  }

  @Patch('vectors/:id')
  @ApiOperation({ summary: "Merge a row's metadata (null removes a key) and/or replace its embedding" })
  @ApiBody({ type: UpdateVectorDto })
  @ApiOkResponse({ type: UpdatedVectorDto })
  @ApiErrors(
    { code: 'resource_missing', when: 'no such table in the project, or no row with this id' },
    { code: 'dimension_mismatch', when: 'an embedding whose length is not the table dimension' },
    { code: 'parameter_invalid', when: 'embedding values that are not finite float32, or invalid metadata' },
    { code: 'metadata_too_large', when: 'the merged metadata is over VECTOR_METADATA_MAX_BYTES or VECTOR_METADATA_MAX_KEYS' },
    { code: 'parameter_missing', when: 'neither metadata nor embedding' },
  )
  update(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('table') table: string,
    @Param('id') id: string,
    @RawBody(new KnownFieldsPipe(UpdateVectorDto, ['metadata', 'embedding'])) dto: UpdateVectorDto,
  ): Promise<UpdatedVectorDto> {
    return this.tables.update(caller, table, id, dto);
  }

  @Get('vectors')
  @ApiOperation({ summary: 'Ids in byte order, a page at a time (stable under concurrent writes)' })
  @ApiOkResponse({ type: IdsPageDto })
  @ApiErrors({ code: 'parameter_invalid', when: 'a cursor this route did not return' })
  listIds(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('table') table: string,
    @Query() query: ListIdsQueryDto,
  ): Promise<IdsPageDto> {
    return this.tables.listIds(caller, table, query);
  }

  @Post('count')
  @HttpCode(200)
  @ApiOperation({ summary: 'The exact number of rows, or of rows matching a filter' })
  @ApiBody({ type: CountVectorsDto })
  @ApiOkResponse({ type: CountedDto })
  @ApiErrors(...FILTER_ERRORS)
  count(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('table') table: string,
    @RawBody(filterBodyPipe(CountVectorsDto, ['filter'], true)) dto: CountVectorsDto,
  ): Promise<CountedDto> {
    return this.tables.count(caller, table, dto);
  }

  @Post('query')
  @HttpCode(200)
  @UseInterceptors(QueryAnswerInterceptor)
  @BodyLimit((config: VectorConfig) => config.VECTOR_QUERY_BODY_LIMIT_BYTES)
  @ApiOperation({
    summary:
      'The n most similar vectors, best first, optionally filtered by metadata; or a batch of up to 100 such queries (`queries`)',
  })
  @ApiBody({ type: QueryDto })
  @ApiOkResponse({
    description: '`results` for one query; one list per query for a batch',
    schema: { oneOf: [{ $ref: getSchemaPath(QueryResponseDto) }, { $ref: getSchemaPath(BatchQueryResponseDto) }] },
  })
  @ApiErrors(
    { code: 'dimension_mismatch', when: 'a vector whose length is not the table dimension' },
    ...FILTER_ERRORS,
    {
      code: 'parameter_invalid',
      when: 'a malformed filter, vector values that are not finite float32, or both vector and queries',
    },
    { code: 'parameter_missing', when: 'neither vector nor queries, or vector without n' },
    { code: 'response_too_large', when: 'an answer estimated over VECTOR_MAX_RESPONSE_BYTES' },
  )
  query(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('table') table: string,
    @RawBody(QueryBodyPipe) dto: QueryDto,
  ): Promise<QueryResponseDto | BatchQueryResponseDto> {
    return dto.queries == null ? this.tables.query(caller, table, dto) : this.tables.queryBatch(caller, table, dto);
  }

  @Delete('vectors')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete vectors by id (unknown ids are reported, not an error) or every vector matching a filter' })
  @ApiBody({ type: DeleteVectorsDto })
  @ApiOkResponse({ type: DeletedDto })
  @ApiErrors(
    ...FILTER_ERRORS,
    { code: 'parameter_missing', when: 'neither ids nor filter' },
    { code: 'filter_matches_all', when: 'a filter that matches every possible row by its form' },
  )
  deleteVectors(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @Param('table') table: string,
    @RawBody(filterBodyPipe(DeleteVectorsDto, ['ids', 'filter'])) dto: DeleteVectorsDto,
  ): Promise<DeletedDto> {
    return this.tables.deleteVectors(caller, table, dto);
  }
}
