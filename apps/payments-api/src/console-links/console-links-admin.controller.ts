import { Body, Controller, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { ConsoleLinkDto, ConsoleLinks, ConsoleLinkTtlDto } from '@app/console';
import { AdminOnly, ApiErrors } from '@app/platform';

/** The body of POST /admin/v1/console-links: the payments account to sign in as. */
export class CreateConsoleLinkDto extends ConsoleLinkTtlDto {
  @ApiProperty({ example: 'acct_4hXk2mQw8Zx1Lc7Vb4nTp9Yd' })
  @IsString()
  @Length(1, 100)
  account_id!: string;
}

/** One-time console sign-in links, for the operator to hand to a payments account. */
@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/console-links')
export class ConsoleLinksAdminController {
  constructor(private readonly links: ConsoleLinks) {}

  @Post()
  @ApiOperation({ summary: 'A one-time sign-in link to the console as this payments account (usable once, within ttl_seconds)' })
  @ApiCreatedResponse({ type: ConsoleLinkDto })
  @ApiErrors({ code: 'resource_missing', status: 400, when: 'no such payments account' })
  create(@Body() body: CreateConsoleLinkDto): Promise<ConsoleLinkDto> {
    return this.links.issue(body.account_id, body.ttl_seconds);
  }
}
