import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Length, Max, Min, IsOptional } from 'class-validator';
import { CONSOLE_LINK_MAX_TTL_SECONDS } from '@app/auth';

/** The body of POST /console/sign-in: the token of a sign-in link (the part after `#token=`). */
export class ConsoleSignInDto {
  @ApiProperty({ description: 'The token from the sign-in link (`/console/sign-in#token=cl_…`)', example: 'cl_…' })
  @IsString()
  @Length(1, 200)
  token!: string;
}

export class ConsoleTenantDto {
  @ApiProperty({ description: "The tenant's id in this service (the id the admin route's body named)" }) id!: string;
  @ApiProperty() name!: string;
}

export class ConsoleSessionDto {
  @ApiProperty({ enum: ['console_session'] }) object!: 'console_session';
  @ApiProperty({ description: 'The name of the service whose console this is (its SERVICE_NAME)' }) service!: string;
  @ApiProperty({ type: ConsoleTenantDto }) tenant!: ConsoleTenantDto;
  @ApiProperty({ description: 'Send it as X-CSRF-Token on every state-changing request of this session' }) csrf_token!: string;
  @ApiProperty({ description: 'The session ends after this many seconds without a request', example: 43200 })
  idle_timeout_seconds!: number;
  @ApiProperty({
    format: 'date-time',
    description: 'When the session ends whatever its activity: its sign-in + CONSOLE_SESSION_MAX_AGE_HOURS (default 7 days)',
  })
  ends_at!: string;
}

export class ConsoleSignedOutDto {
  @ApiProperty({ enum: ['console_session'] }) object!: 'console_session';
  @ApiProperty({ enum: [true] }) signed_out!: true;
}

/** What POST /admin/v1/console-links answers. */
export class ConsoleLinkDto {
  @ApiProperty({
    description: 'The one-time sign-in link; opening it once starts a console session',
    example: 'http://127.0.0.1:3000/console/sign-in#token=cl_…',
  })
  url!: string;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
}

/** The common part of the apps' POST /admin/v1/console-links bodies (each adds its tenant's id field). */
export class ConsoleLinkTtlDto {
  @ApiPropertyOptional({
    minimum: 1,
    maximum: CONSOLE_LINK_MAX_TTL_SECONDS,
    default: CONSOLE_LINK_MAX_TTL_SECONDS,
    description: 'Seconds the link stays usable',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(CONSOLE_LINK_MAX_TTL_SECONDS)
  ttl_seconds?: number;
}

/** What POST /admin/v1/console-sessions/revoke answers. */
export class ConsoleSessionsRevokedDto {
  @ApiProperty({ enum: ['console_sessions'] }) object!: 'console_sessions';
  @ApiProperty({ description: 'How many live sessions were ended', example: 2 }) revoked!: number;
}
