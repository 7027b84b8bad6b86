import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly, ApiErrors } from '@app/platform';
import { NameDto, VectorTokenCreatedDto } from '../tokens/dto/vector-token.dto';
import { CreateProjectDto, ProjectDto, ProjectListDto, ProjectListQueryDto } from './dto/project.dto';
import { ProjectsService } from './projects.service';

/** Projects (the vector tenant) and their first tokens, for the operator. */
@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/projects')
export class ProjectsAdminController {
  constructor(private readonly projects: ProjectsService) {}

  @Post()
  @ApiOperation({ summary: 'Create a project: tables and tokens of one tenant' })
  @ApiCreatedResponse({ type: ProjectDto })
  create(@Body() body: CreateProjectDto): Promise<ProjectDto> {
    return this.projects.create(body.name);
  }

  @Get()
  @ApiOperation({
    summary: 'List projects, newest first, with their tables, tokens and stored floats; search by name prefix',
    description: 'Until issue 36 this answered `{data}` with every project, oldest first; it is now a cursor list.',
  })
  @ApiOkResponse({ type: ProjectListDto })
  @ApiErrors({ code: 'resource_missing', status: 400, when: 'starting_after names no project' })
  list(@Query() query: ProjectListQueryDto): Promise<ProjectListDto> {
    return this.projects.list(query);
  }

  @Get(':id')
  @ApiOkResponse({ type: ProjectDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such project' })
  get(@Param('id') id: string): Promise<ProjectDto> {
    return this.projects.get(id);
  }

  @Post(':id/tokens')
  @ApiOperation({ summary: 'Create a token of the project; the token is shown once' })
  @ApiCreatedResponse({ type: VectorTokenCreatedDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such project' })
  createToken(@Param('id') id: string, @Body() body: NameDto): Promise<VectorTokenCreatedDto> {
    return this.projects.createToken(id, body.name);
  }
}
