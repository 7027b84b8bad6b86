import { Authenticated } from '@app/auth';
import { ApiErrors, BodyLimit } from '@app/platform';
import { Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { VectorConfig } from '../config';
import { DeletedDto, DeleteVectorsDto, InsertedDto, InsertVectorsDto, QueryDto, QueryResponseDto } from './dto/vectors.dto';
import { InsertBodyPipe } from './insert-body.pipe';
import { QueryBodyPipe } from './query-body.pipe';
import { KnownFieldsPipe, RawBody } from './raw-body';
import { TablesService } from './tables.service';

@ApiTags('vectors')
@Authenticated('vector_token')
@ApiErrors(
  { code: 'resource_missing', when: 'no such table' },
  { code: 'table_not_in_partition', when: 'VECTOR_PARTITION: another partition holds the table' },
)
@Controller('v1/tables/:table')
export class VectorsController {
  constructor(private readonly tables: TablesService) {}

  @Post('insert')
  @BodyLimit((config: VectorConfig) => config.VECTOR_INSERT_BODY_LIMIT_BYTES)
  @ApiOperation({ summary: 'Insert up to 1000 vectors, all or nothing; acknowledged after commit' })
  @ApiBody({ type: InsertVectorsDto })
  @ApiCreatedResponse({ type: InsertedDto })
  @ApiErrors(
    { code: 'dimension_mismatch', when: 'embeddings whose length is not the table dimension; error.ids names their rows' },
    {
      code: 'parameter_invalid',
      when: 'non-finite embedding values, invalid metadata or an id twice in the batch; error.ids names the rows',
    },
    { code: 'resource_already_exists', when: 'ids already in the table; error.ids names them' },
  )
  insert(@Param('table') table: string, @RawBody(InsertBodyPipe) dto: InsertVectorsDto): Promise<InsertedDto> {
    return this.tables.insert(table, dto);
  }

  @Post('query')
  @HttpCode(200)
  @ApiOperation({ summary: 'The n most similar vectors, best first, optionally filtered by metadata' })
  @ApiBody({ type: QueryDto })
  @ApiOkResponse({ type: QueryResponseDto })
  @ApiErrors(
    { code: 'dimension_mismatch', when: 'a vector whose length is not the table dimension' },
    { code: 'filter_too_complex', when: 'a filter over its size limits' },
    { code: 'parameter_invalid', when: 'a malformed filter or non-finite vector values' },
  )
  query(@Param('table') table: string, @RawBody(QueryBodyPipe) dto: QueryDto): Promise<QueryResponseDto> {
    return this.tables.query(table, dto);
  }

  @Delete('vectors')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete vectors by id; unknown ids are reported, not an error' })
  @ApiBody({ type: DeleteVectorsDto })
  @ApiOkResponse({ type: DeletedDto })
  deleteVectors(
    @Param('table') table: string,
    @RawBody(new KnownFieldsPipe(DeleteVectorsDto, ['ids'])) dto: DeleteVectorsDto,
  ): Promise<DeletedDto> {
    return this.tables.deleteVectors(table, dto);
  }
}
