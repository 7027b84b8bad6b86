import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { ConsoleLinks, ConsoleSessionsRevokedDto } from '@app/console';
import { AdminOnly, ApiErrors } from '@app/platform';

/** The body of POST /admin/v1/console-sessions/revoke. */
export class RevokeConsoleSessionsDto {
  @ApiProperty({ example: 'partner_4hXk2mQw8Zx1Lc7Vb4nTp9Yd' })
  @IsString()
  @Length(1, 100)
  partner_id!: string;
}

/** The operator ends a partner's console sessions (sign-out ends one; this ends them all). */
@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/console-sessions')
export class ConsoleSessionsAdminController {
  constructor(private readonly links: ConsoleLinks) {}

  @Post('revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'End every console session of this partner at once (their next request is 401)' })
  @ApiOkResponse({ type: ConsoleSessionsRevokedDto })
  @ApiErrors({ code: 'resource_missing', status: 400, when: 'no such partner' })
  revoke(@Body() body: RevokeConsoleSessionsDto): Promise<ConsoleSessionsRevokedDto> {
    return this.links.revokeSessions(body.partner_id);
  }
}
