import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly, ApiErrors } from '@app/platform';
import {
  ClientCreatedDto,
  ClientDto,
  PartnerCreateDto,
  PartnerDto,
  PartnerListDto,
  PartnerListQueryDto,
} from './dto/partner.dto';
import { PartnersService } from './partners.service';

/** Partners and their OAuth clients. */
@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/partners')
export class PartnersAdminController {
  constructor(private readonly partners: PartnersService) {}

  @Post()
  @ApiOperation({ summary: 'Create a partner' })
  @ApiCreatedResponse({ type: PartnerDto })
  create(@Body() body: PartnerCreateDto): Promise<PartnerDto> {
    return this.partners.createPartner(body.name, body.tier);
  }

  @Get()
  @ApiOperation({
    summary: 'List partners, newest first, with the counts of their agreement and clients; search by name prefix',
  })
  @ApiOkResponse({ type: PartnerListDto })
  @ApiErrors({ code: 'resource_missing', status: 400, when: 'starting_after names no partner' })
  list(@Query() query: PartnerListQueryDto): Promise<PartnerListDto> {
    return this.partners.listPartners(query);
  }

  @Get(':id')
  @ApiOkResponse({ type: PartnerDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such partner' })
  get(@Param('id') id: string): Promise<PartnerDto> {
    return this.partners.getPartner(id);
  }

  @Post(':id/clients')
  @ApiOperation({ summary: 'Create an OAuth client for the partner; the secret is shown once' })
  @ApiCreatedResponse({ type: ClientCreatedDto })
  @ApiErrors(
    { code: 'resource_missing', when: 'no such partner' },
    { code: 'rate_limit_exceeded', when: "the operator's share of the secret hashing slots is taken (Retry-After)" },
    { code: 'service_unavailable', when: "the instance's secret hashing queue is full or its wait timed out (Retry-After)" },
  )
  createClient(@Param('id') id: string): Promise<ClientCreatedDto> {
    return this.partners.createClient(id);
  }

  @Delete(':id/clients/:client_id')
  @ApiOperation({ summary: 'Disable a client: new tokens are refused at once, issued tokens within seconds' })
  @ApiOkResponse({ type: ClientDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such client of this partner' })
  disableClient(@Param('id') id: string, @Param('client_id') clientId: string): Promise<ClientDto> {
    return this.partners.disableClient(id, clientId);
  }
}
