import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import type { ProjectRecord } from '../projects.repository';
import { IsDisplayName } from '@app/platform';

/** The body of POST /admin/v1/projects. */
export class CreateProjectDto {
  @ApiProperty({ example: 'search', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @IsDisplayName()
  name!: string;
}

export class ProjectDto {
  @ApiProperty({ example: 'proj_4hXk2mQw8Zx1Lc7Vb4nTp9Yd' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class ProjectListDto {
  @ApiProperty({ type: [ProjectDto] }) data!: ProjectDto[];
}

export function toProjectDto(p: ProjectRecord): ProjectDto {
  return { id: p.id, name: p.name, created_at: p.createdAt.toISOString() };
}
