import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import type { VectorTokenRecord } from '../vector-tokens.repository';
import { IsDisplayName } from '@app/platform';

/** The body of POST /admin/v1/tokens, POST /admin/v1/projects/{id}/tokens and POST /v1/tokens. */
export class NameDto {
  @ApiProperty({ example: 'search-backend', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @IsDisplayName()
  name!: string;
}

export class VectorTokenDto {
  @ApiProperty({ example: 'tok_8GfK...' }) id!: string;
  @ApiProperty({ example: 'proj_default', description: 'The project whose tables the token reaches' }) project_id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'x9Qa',
    description: "The token's last 4 characters, to tell tokens apart (null for tokens created before projects existed)",
  })
  last4!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the token last authenticated a request (updated at most once a minute)',
  })
  last_used_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) revoked_at!: string | null;
}

export class VectorTokenCreatedDto extends VectorTokenDto {
  @ApiProperty({ description: 'The bearer token (vt_…). Shown once; stored only as SHA-256.' }) token!: string;
}

export class VectorTokenListDto {
  @ApiProperty({ type: [VectorTokenDto] }) data!: VectorTokenDto[];
}

export function toVectorTokenDto(t: VectorTokenRecord): VectorTokenDto {
  return {
    id: t.id,
    project_id: t.projectId,
    name: t.name,
    last4: t.last4,
    created_at: t.createdAt.toISOString(),
    last_used_at: t.lastUsedAt?.toISOString() ?? null,
    revoked_at: t.revokedAt?.toISOString() ?? null,
  };
}
