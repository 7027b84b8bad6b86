import { Injectable } from '@nestjs/common';
import type { ConsoleTenant, ConsoleTenants } from '@app/console';
import { ProjectsRepository } from './projects.repository';

/** Vector projects, as the console signs in to them. */
@Injectable()
export class ProjectConsoleTenants implements ConsoleTenants {
  readonly idField = 'project_id';
  constructor(private readonly projects: ProjectsRepository) {}

  async describe(tenantId: string): Promise<ConsoleTenant | null> {
    const project = await this.projects.find(tenantId);
    return project && { id: project.id, name: project.name };
  }
}
