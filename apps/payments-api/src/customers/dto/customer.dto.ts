import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsMetadata, METADATA_SCHEMA, type Metadata } from '../../common/metadata';
import { ListQuery } from '../../common/list';

export class CustomerCreateDto {
  @ApiPropertyOptional({ example: 'jenny@example.com', maxLength: 512 })
  @IsOptional()
  @IsEmail()
  @MaxLength(512)
  email?: string;

  @ApiPropertyOptional({ maxLength: 256 })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  name?: string;

  @ApiPropertyOptional({ maxLength: 350 })
  @IsOptional()
  @IsString()
  @MaxLength(350)
  description?: string;

  @ApiPropertyOptional(METADATA_SCHEMA)
  @IsOptional()
  @IsMetadata()
  metadata?: Metadata;
}

/** Same fields; omitted fields are left unchanged. Metadata keys are merged; an empty string removes a key (as Stripe). */
export class CustomerUpdateDto extends CustomerCreateDto {}

export class CustomerListQuery extends ListQuery {
  @ApiPropertyOptional({ description: 'Only customers with this exact email' })
  @IsOptional()
  @IsEmail()
  email?: string;
}
