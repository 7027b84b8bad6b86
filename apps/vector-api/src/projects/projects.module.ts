import { Module } from '@nestjs/common';
import { TokensModule } from '../tokens/tokens.module';
import { ProjectsAdminController } from './projects-admin.controller';
import { ProjectsRepository } from './projects.repository';
import { ProjectsService } from './projects.service';

/** Projects, the vector tenant (platform contract, "Tenants and self-service"). */
@Module({
  imports: [TokensModule],
  controllers: [ProjectsAdminController],
  providers: [ProjectsRepository, ProjectsService],
  exports: [ProjectsRepository],
})
export class ProjectsModule {}
