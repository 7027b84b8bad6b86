import { Authenticated } from '@app/auth';
import { ApiErrors } from '@app/platform';
import { Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreateTableDto, TableDeletedDto, TableDto, TableListDto } from './dto/table.dto';
import { KnownFieldsPipe, RawBody } from './raw-body';
import { TablesService } from './tables.service';

@ApiTags('tables')
@Authenticated('vector_token')
@Controller('v1/tables')
export class TablesController {
  constructor(private readonly tables: TablesService) {}

  @Post()
  @ApiOperation({ summary: 'Create a table' })
  @ApiBody({ type: CreateTableDto })
  @ApiCreatedResponse({ type: TableDto })
  @ApiErrors({ code: 'resource_already_exists', when: 'a table with this name exists' })
  create(@RawBody(new KnownFieldsPipe(CreateTableDto, ['name', 'dimension', 'index'])) dto: CreateTableDto): Promise<TableDto> {
    return this.tables.create(dto);
  }

  @Get()
  @ApiOperation({ summary: 'List tables' })
  @ApiOkResponse({ type: TableListDto })
  list(): Promise<TableListDto> {
    return this.tables.list();
  }

  @Get(':table')
  @ApiOperation({ summary: 'A table with its row count and index status' })
  @ApiOkResponse({ type: TableDto })
  @ApiErrors(
    { code: 'resource_missing', when: 'no such table' },
    { code: 'table_not_in_partition', when: 'VECTOR_PARTITION: another partition holds the table' },
  )
  get(@Param('table') table: string): Promise<TableDto> {
    return this.tables.get(table);
  }

  @Delete(':table')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete a table and all its vectors' })
  @ApiOkResponse({ type: TableDeletedDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such table' })
  drop(@Param('table') table: string): Promise<TableDeletedDto> {
    return this.tables.drop(table);
  }
}
