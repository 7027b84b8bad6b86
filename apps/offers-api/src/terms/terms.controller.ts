import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '@app/auth';
import { AdminOnly, ApiErrors } from '@app/platform';
import { TermsDto, TermsPublishDto } from './dto/terms.dto';
import { TermsService } from './terms.service';

@ApiTags('terms')
@Authenticated('partner')
@Controller('api/v1/terms')
export class TermsController {
  constructor(private readonly terms: TermsService) {}

  @Get()
  @ApiOperation({ summary: 'The current terms; send its version as terms_version with every indication' })
  @ApiOkResponse({ type: TermsDto })
  @ApiErrors({ code: 'resource_missing', when: 'no terms have been published yet' })
  current(): Promise<TermsDto> {
    return this.terms.current();
  }
}

@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/terms')
export class TermsAdminController {
  constructor(private readonly terms: TermsService) {}

  @Post()
  @ApiOperation({ summary: 'Publish a new current terms version' })
  @ApiCreatedResponse({ type: TermsDto })
  @ApiErrors({ code: 'resource_already_exists', when: 'this version exists' })
  publish(@Body() body: TermsPublishDto): Promise<TermsDto> {
    return this.terms.publish(body);
  }
}
