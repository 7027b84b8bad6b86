import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly, ApiErrors } from '@app/platform';
import { NameDto, VectorTokenCreatedDto } from '../tokens/dto/vector-token.dto';
import { CreateProjectDto, ProjectDto, ProjectListDto } from './dto/project.dto';
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
  @ApiOperation({ summary: 'Every project, oldest first' })
  @ApiOkResponse({ type: ProjectListDto })
  async list(): Promise<ProjectListDto> {
    return { data: await this.projects.list() };
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
