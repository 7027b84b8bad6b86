import { Body, Controller, Delete, Get, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly, ApiErrors } from '@app/platform';
import { DEFAULT_PROJECT_ID } from '../projects/projects.repository';
import { NameDto, VectorTokenCreatedDto, VectorTokenDto, VectorTokenListDto } from './dto/vector-token.dto';
import { VectorTokensService } from './vector-tokens.service';

/** API tokens across projects; a token created here belongs to the `default` project. */
@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/tokens')
export class VectorTokensAdminController {
  constructor(private readonly tokens: VectorTokensService) {}

  @Post()
  @ApiOperation({
    summary:
      'Create an API token of the default project; the token is shown once (POST /admin/v1/projects/{id}/tokens for another project)',
  })
  @ApiCreatedResponse({ type: VectorTokenCreatedDto })
  create(@Body() body: NameDto): Promise<VectorTokenCreatedDto> {
    return this.tokens.create(DEFAULT_PROJECT_ID, body.name);
  }

  @Get()
  @ApiOperation({ summary: 'Every token of every project, revoked ones too, newest first' })
  @ApiOkResponse({ type: VectorTokenListDto })
  async list(): Promise<VectorTokenListDto> {
    return { data: await this.tokens.listAll() };
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Revoke a token, effective immediately' })
  @ApiOkResponse({ type: VectorTokenDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such token' })
  revoke(@Param('id') id: string): Promise<VectorTokenDto> {
    return this.tokens.revoke(id);
  }
}
