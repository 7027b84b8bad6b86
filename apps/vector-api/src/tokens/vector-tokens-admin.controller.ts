import { Body, Controller, Delete, Get, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly, ApiErrors } from '@app/platform';
import { NameDto, VectorTokenCreatedDto, VectorTokenDto, VectorTokenListDto } from './dto/vector-token.dto';
import { VectorTokensService } from './vector-tokens.service';

/** API tokens. */
@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/tokens')
export class VectorTokensAdminController {
  constructor(private readonly tokens: VectorTokensService) {}

  @Post()
  @ApiOperation({ summary: 'Create an API token; the token is shown once' })
  @ApiCreatedResponse({ type: VectorTokenCreatedDto })
  create(@Body() body: NameDto): Promise<VectorTokenCreatedDto> {
    return this.tokens.create(body.name);
  }

  @Get()
  @ApiOkResponse({ type: VectorTokenListDto })
  async list(): Promise<VectorTokenListDto> {
    return { data: await this.tokens.list() };
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Revoke a token, effective immediately' })
  @ApiOkResponse({ type: VectorTokenDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such token' })
  revoke(@Param('id') id: string): Promise<VectorTokenDto> {
    return this.tokens.revoke(id);
  }
}
