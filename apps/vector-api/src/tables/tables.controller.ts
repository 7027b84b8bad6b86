import { Authenticated, CurrentPrincipal } from '@app/auth';
import { ApiErrors } from '@app/platform';
import { Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { VectorTokenPrincipal } from '../tokens/vector-token.principal';
import { CreateTableDto, ListTablesQueryDto, TableDeletedDto, TableDto, TableListDto, TableStatsDto } from './dto/table.dto';
import { KnownFieldsPipe, RawBody } from './raw-body';
import { TablesService } from './tables.service';

/** The caller's project's tables; another project's are 404 like missing ones. */
@ApiTags('tables')
@Authenticated('vector_token')
@Controller('v1/tables')
export class TablesController {
  constructor(private readonly tables: TablesService) {}

  @Post()
  @ApiOperation({ summary: 'Create a table' })
  @ApiBody({ type: CreateTableDto })
  @ApiCreatedResponse({ type: TableDto })
  @ApiErrors(
    { code: 'resource_already_exists', when: 'the project has a table with this name' },
    { code: 'table_limit_reached', when: 'the project has VECTOR_MAX_TABLES_PER_PROJECT tables' },
  )
  create(
    @CurrentPrincipal() caller: VectorTokenPrincipal,
    @RawBody(new KnownFieldsPipe(CreateTableDto, ['name', 'dimension', 'index', 'metric'])) dto: CreateTableDto,
  ): Promise<TableDto> {
    return this.tables.create(caller, dto);
  }

  @Get()
  @ApiOperation({ summary: "List the project's tables" })
  @ApiOkResponse({ type: TableListDto })
  list(@CurrentPrincipal() caller: VectorTokenPrincipal, @Query() query: ListTablesQueryDto): Promise<TableListDto> {
    return this.tables.list(caller, query);
  }

  @Get(':table')
  @ApiOperation({ summary: 'A table with its row count and index status' })
  @ApiOkResponse({ type: TableDto })
  @ApiErrors(
    { code: 'resource_missing', when: 'no such table in the project' },
    { code: 'table_not_in_partition', when: 'VECTOR_PARTITION: another partition holds the table' },
  )
  get(@CurrentPrincipal() caller: VectorTokenPrincipal, @Param('table') table: string): Promise<TableDto> {
    return this.tables.get(caller, table);
  }

  @Get(':table/stats')
  @ApiOperation({
    summary:
      "The table's query latency per minute over the last hour (p50, p95, max engine time), as the instance answering measured it",
  })
  @ApiOkResponse({ type: TableStatsDto })
  @ApiErrors(
    { code: 'resource_missing', when: 'no such table in the project' },
    { code: 'table_not_in_partition', when: 'VECTOR_PARTITION: another partition holds the table' },
  )
  stats(@CurrentPrincipal() caller: VectorTokenPrincipal, @Param('table') table: string): Promise<TableStatsDto> {
    return this.tables.stats(caller, table);
  }

  @Delete(':table')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete a table and all its vectors' })
  @ApiOkResponse({ type: TableDeletedDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such table in the project' })
  drop(@CurrentPrincipal() caller: VectorTokenPrincipal, @Param('table') table: string): Promise<TableDeletedDto> {
    return this.tables.drop(caller, table);
  }
}
