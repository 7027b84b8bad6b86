import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsOptional, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { ListQuery } from '../../common/list';
import type { PaymentsMode, PermissionLevel } from '../../accounts/payments-key.principal';
import { IsDisplayName } from '@app/platform';

export const MODES: readonly PaymentsMode[] = ['test', 'live'];
export const LEVELS: readonly PermissionLevel[] = ['none', 'read', 'write'];
/** The longest a rolled key may keep working: a week. */
export const MAX_ROLL_EXPIRY_HOURS = 168;

/** The body of POST /v2/api-keys/roll. */
export class ApiKeyRollDto {
  @ApiProperty({ enum: MODES, description: 'The mode whose secret keys are replaced' })
  @IsIn(MODES)
  mode!: PaymentsMode;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_ROLL_EXPIRY_HOURS,
    default: 0,
    description: 'How long the replaced secret keys keep working (0: they stop at once). An earlier expiry is never extended.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_ROLL_EXPIRY_HOURS)
  expires_in_hours?: number;
}

const LEVEL_DOC = {
  enum: LEVELS,
  default: 'none',
  description: '"write" implies "read"; GET routes need "read", the others "write"',
} as const;

/** What a restricted key may do with each resource (a resource left out is "none"). */
export class ApiKeyPermissionsDto {
  @ApiPropertyOptional({ ...LEVEL_DOC, description: `/v2/customers: ${LEVEL_DOC.description}` })
  @IsOptional()
  @IsIn(LEVELS)
  customers?: PermissionLevel;

  @ApiPropertyOptional({ ...LEVEL_DOC, description: `/v2/payments: ${LEVEL_DOC.description}` })
  @IsOptional()
  @IsIn(LEVELS)
  payments?: PermissionLevel;

  @ApiPropertyOptional({ ...LEVEL_DOC, description: `/v2/refunds: ${LEVEL_DOC.description}` })
  @IsOptional()
  @IsIn(LEVELS)
  refunds?: PermissionLevel;

  @ApiPropertyOptional({ ...LEVEL_DOC, description: `/v2/webhook-endpoints: ${LEVEL_DOC.description}` })
  @IsOptional()
  @IsIn(LEVELS)
  webhooks?: PermissionLevel;

  @ApiPropertyOptional({ ...LEVEL_DOC, description: `/v2/events: ${LEVEL_DOC.description}` })
  @IsOptional()
  @IsIn(LEVELS)
  events?: PermissionLevel;
}

/** The body of POST /v2/api-keys (a restricted key). */
export class ApiKeyCreateDto {
  @ApiProperty({ enum: MODES })
  @IsIn(MODES)
  mode!: PaymentsMode;

  @ApiProperty({ example: 'reporting', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @IsDisplayName()
  name!: string;

  @ApiProperty({ type: ApiKeyPermissionsDto })
  @IsObject()
  @ValidateNested()
  @Type(() => ApiKeyPermissionsDto)
  permissions!: ApiKeyPermissionsDto;
}

export class ApiKeyListQuery extends ListQuery {}
