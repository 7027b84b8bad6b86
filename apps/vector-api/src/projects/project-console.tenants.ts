import { Injectable } from '@nestjs/common';
import type { ConsoleAdminTenant, ConsoleTenant, ConsoleTenants } from '@app/console';
import { ProjectsRepository } from './projects.repository';

/** How the admin console routes (console-links, console-sessions) name a project. */
export const PROJECT_CONSOLE_ADMIN: ConsoleAdminTenant = {
  idField: 'project_id',
  noun: 'project',
  example: 'proj_4hXk2mQw8Zx1Lc7Vb4nTp9Yd',
};

/** Vector projects, as the console signs in to them. */
@Injectable()
export class ProjectConsoleTenants implements ConsoleTenants {
  readonly idField = PROJECT_CONSOLE_ADMIN.idField;
  constructor(private readonly projects: ProjectsRepository) {}

  async describe(tenantId: string): Promise<ConsoleTenant | null> {
    const project = await this.projects.find(tenantId);
    return project && { id: project.id, name: project.name };
  }
}
