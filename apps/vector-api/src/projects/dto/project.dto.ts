import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, MaxLength } from 'class-validator';
import type { ProjectListRecord, ProjectRecord } from '../projects.repository';
import { IsDisplayName, NamePrefix, PageLimit } from '@app/platform';

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

/** GET /admin/v1/projects: newest first, cursor paging, an optional name prefix. */
export class ProjectListQueryDto {
  @PageLimit(10)
  limit: number = 10;

  @ApiPropertyOptional({
    description: 'A project id: the projects after it in this order (the next page)',
    example: 'proj_4hXk2mQw8Zx1Lc7Vb4nTp9Yd',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  starting_after?: string;

  @NamePrefix('demo')
  name_prefix?: string;
}

export class ProjectCountsDto {
  @ApiProperty({ type: 'integer', example: 3, description: "The project's tables" }) tables!: number;
  @ApiProperty({ type: 'integer', example: 2, description: "The project's tokens that work (not revoked)" })
  active_tokens!: number;
  @ApiProperty({
    type: 'integer',
    example: 1536000,
    description: "Rows × dimension over the project's tables, the figure `VECTOR_MAX_FLOATS_PER_PROJECT` limits",
  })
  stored_floats!: number;
}

export class ProjectListItemDto extends ProjectDto {
  @ApiProperty({ type: ProjectCountsDto, description: 'Counted when the page is read' }) counts!: ProjectCountsDto;
}

/** Until issue 36 this list was `{data}`, every project, oldest first (docs/vector.md). */
export class ProjectListDto {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: [ProjectListItemDto], description: 'Newest first (created_at, then id, descending)' })
  data!: ProjectListItemDto[];
  @ApiProperty({ description: 'More projects follow: pass the last id as `starting_after`' }) has_more!: boolean;
}

export function toProjectDto(p: ProjectRecord): ProjectDto {
  return { id: p.id, name: p.name, created_at: p.createdAt.toISOString() };
}

export function toProjectListItemDto(p: ProjectListRecord): ProjectListItemDto {
  return {
    ...toProjectDto(p),
    counts: { tables: p.tables, active_tokens: p.activeTokens, stored_floats: Number(p.storedFloats) },
  };
}
