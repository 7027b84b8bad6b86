import { Injectable } from '@nestjs/common';
import { newId, NotFoundError, TransactionRunner } from '@app/platform';
import type { VectorTokenCreatedDto } from '../tokens/dto/vector-token.dto';
import { VectorTokensService } from '../tokens/vector-tokens.service';
import { type ProjectDto, toProjectDto } from './dto/project.dto';
import { ProjectsRepository } from './projects.repository';

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

  async list(): Promise<ProjectDto[]> {
    return (await this.repository.list()).map(toProjectDto);
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
