import { Authenticated } from '@app/auth';
import { BodyLimit } from '@app/platform';
import { Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { VectorConfig } from '../config';
import { DeletedDto, DeleteVectorsDto, InsertedDto, InsertVectorsDto, QueryDto, QueryResponseDto } from './dto/vectors.dto';
import { InsertBodyPipe } from './insert-body.pipe';
import { QueryBodyPipe } from './query-body.pipe';
import { KnownFieldsPipe, RawBody } from './raw-body';
import { TablesService } from './tables.service';

@ApiTags('vectors')
@Authenticated('vector_token')
@ApiNotFoundResponse({ description: 'No such table (resource_missing)' })
@Controller('v1/tables/:table')
export class VectorsController {
  constructor(private readonly tables: TablesService) {}

  @Post('insert')
  @BodyLimit((config: VectorConfig) => config.VECTOR_INSERT_BODY_LIMIT_BYTES)
  @ApiOperation({ summary: 'Insert up to 1000 vectors, all or nothing; acknowledged after commit' })
  @ApiBody({ type: InsertVectorsDto })
  @ApiCreatedResponse({ type: InsertedDto })
  @ApiBadRequestResponse({ description: 'Malformed rows or dimension mismatch; error.ids names the offending rows' })
  @ApiConflictResponse({ description: 'Ids already in the table (resource_already_exists); error.ids names them' })
  insert(@Param('table') table: string, @RawBody(InsertBodyPipe) dto: InsertVectorsDto): Promise<InsertedDto> {
    return this.tables.insert(table, dto);
  }

  @Post('query')
  @HttpCode(200)
  @ApiOperation({ summary: 'The n most similar vectors, best first, optionally filtered by metadata' })
  @ApiBody({ type: QueryDto })
  @ApiOkResponse({ type: QueryResponseDto })
  @ApiBadRequestResponse({
    description: 'Malformed query, filter or dimension mismatch; a filter over the size limits is filter_too_complex',
  })
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
