import { Injectable } from '@nestjs/common';
import { newId, NotFoundError, TransactionRunner } from '@app/platform';
import type { VectorTokenCreatedDto } from '../tokens/dto/vector-token.dto';
import { VectorTokensService } from '../tokens/vector-tokens.service';
import { VectorError } from '../errors';
import {
  type ProjectDto,
  type ProjectListDto,
  type ProjectListQueryDto,
  toProjectDto,
  toProjectListItemDto,
} from './dto/project.dto';
import { type ProjectRecord, ProjectsRepository } from './projects.repository';

/** Projects, the vector tenant: created by the operator, each with its own tables and tokens. */
@Injectable()
export class ProjectsService {
  constructor(
    private readonly repository: ProjectsRepository,
    private readonly transactions: TransactionRunner,
    private readonly tokens: VectorTokensService,
  ) {}

  async create(name: string): Promise<ProjectDto> {
    return toProjectDto(await this.transactions.run((tx) => this.repository.create(tx, newId('proj'), name)));
  }

  /**
   * The operator's list: newest first, `starting_after` any project's id (an unknown one is a
   * 400 resource_missing naming it), each project with its counts (docs/decisions.md 389–398).
   */
  async list(query: ProjectListQueryDto): Promise<ProjectListDto> {
    let after: ProjectRecord | undefined;
    if (query.starting_after !== undefined) {
      after = (await this.repository.find(query.starting_after)) ?? undefined;
      if (after === undefined) {
        throw new VectorError('resource_missing', `No such project: '${query.starting_after}'`, {
          param: 'starting_after',
          status: 400,
        });
      }
    }
    const rows = await this.repository.adminPage({
      take: query.limit + 1,
      ...(after === undefined ? {} : { after }),
      ...(query.name_prefix === undefined ? {} : { namePrefix: query.name_prefix }),
    });
    return { object: 'list', data: rows.slice(0, query.limit).map(toProjectListItemDto), has_more: rows.length > query.limit };
  }

  async get(id: string): Promise<ProjectDto> {
    const project = await this.repository.find(id);
    if (!project) throw new NotFoundError('project', id, 'id');
    return toProjectDto(project);
  }

  async createToken(projectId: string, name: string): Promise<VectorTokenCreatedDto> {
    await this.get(projectId);
    return this.tokens.create(projectId, name);
  }
}
