import { Authenticated, CurrentPrincipal } from '@app/auth';
import { ApiErrors } from '@app/platform';
import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { NameDto, VectorTokenCreatedDto, VectorTokenDto, VectorTokenListDto } from './dto/vector-token.dto';
import type { VectorTokenPrincipal } from './vector-token.principal';
import { VectorTokensService } from './vector-tokens.service';

/** A project manages its own tokens with any of its tokens (Settings → API Tokens). */
@ApiTags('tokens')
@Authenticated('vector_token')
@Controller('v1/tokens')
export class VectorTokensController {
  constructor(private readonly tokens: VectorTokensService) {}

  @Get()
  @ApiOperation({ summary: "The project's tokens that still work, newest first (never the token itself)" })
  @ApiOkResponse({ type: VectorTokenListDto })
  async list(@CurrentPrincipal() caller: VectorTokenPrincipal): Promise<VectorTokenListDto> {
    return { data: await this.tokens.listOwn(caller) };
  }

  @Post()
  @ApiOperation({ summary: 'Create a token of the project; the token is shown once' })
  @ApiCreatedResponse({ type: VectorTokenCreatedDto })
  @ApiErrors({ code: 'token_limit_reached', when: 'the project has 100 tokens that work' })
  create(@CurrentPrincipal() caller: VectorTokenPrincipal, @Body() body: NameDto): Promise<VectorTokenCreatedDto> {
    return this.tokens.create(caller.projectId, body.name, true);
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a token of the project, effective immediately (not the one making the call)' })
  @ApiOkResponse({ type: VectorTokenDto })
  @ApiErrors(
    { code: 'resource_missing', when: 'no such token in the project' },
    { code: 'token_in_use', when: 'the token making the call' },
  )
  revoke(@CurrentPrincipal() caller: VectorTokenPrincipal, @Param('id') id: string): Promise<VectorTokenDto> {
    return this.tokens.revokeOwn(caller, id);
  }
}
