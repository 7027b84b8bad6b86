import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import type { VectorTokenRecord } from '../vector-tokens.repository';

/** The body of POST /admin/v1/tokens. */
export class NameDto {
  @ApiProperty({ example: 'search-backend', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name!: string;
}

export class VectorTokenDto {
  @ApiProperty({ example: 'tok_8GfK...' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) revoked_at!: string | null;
}

export class VectorTokenCreatedDto extends VectorTokenDto {
  @ApiProperty({ description: 'The bearer token. Shown once; stored only as SHA-256.' }) token!: string;
}

export class VectorTokenListDto {
  @ApiProperty({ type: [VectorTokenDto] }) data!: VectorTokenDto[];
}

export function toVectorTokenDto(t: VectorTokenRecord): VectorTokenDto {
  return { id: t.id, name: t.name, created_at: t.createdAt.toISOString(), revoked_at: t.revokedAt?.toISOString() ?? null };
}
