import { Body, Controller, Delete, Get, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '@app/auth';
import type { PartnerPrincipal } from '../oauth/partner.principal';
import { ApiErrors, Idempotent, IdempotencyOf, type IdempotentRequest } from '@app/platform';
import { IndicationCreateDto, IndicationDto, IndicationListDto, IndicationUpdateDto } from './dto/indication.dto';
import { IndicationsService } from './indications.service';

@ApiTags('indications')
@Authenticated('partner')
@Controller('api/v1/offers/:offer_id/indications')
export class IndicationsController {
  constructor(private readonly indications: IndicationsService) {}

  @Post()
  @Idempotent()
  @ApiOperation({ summary: "Submit an investor's indication of interest; fires indication.received" })
  @ApiCreatedResponse({ type: IndicationDto })
  @ApiErrors(
    'terms_not_accepted',
    'terms_version_invalid',
    'amount_too_small',
    'amount_above_maximum',
    'offer_not_live',
    { code: 'parameter_invalid', when: "a currency other than the offer's" },
    { code: 'resource_missing', when: 'no such offer in your agreement' },
  )
  create(
    @CurrentPrincipal() partner: PartnerPrincipal,
    @Param('offer_id') offerId: string,
    @Body() body: IndicationCreateDto,
    @IdempotencyOf() idempotency: IdempotentRequest | undefined,
  ): Promise<IndicationDto> {
    return this.indications.create(partner, offerId, body, idempotency);
  }

  @Get()
  @ApiOperation({ summary: 'Your indications on this offer' })
  @ApiOkResponse({ type: IndicationListDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such offer in your agreement' })
  list(@CurrentPrincipal() partner: PartnerPrincipal, @Param('offer_id') offerId: string): Promise<IndicationListDto> {
    return this.indications.list(partner, offerId);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change the amount of one of your indications while the offer is live; fires indication.updated' })
  @ApiOkResponse({ type: IndicationDto })
  @ApiErrors('amount_too_small', 'amount_above_maximum', 'indication_cancelled', 'offer_not_live', {
    code: 'resource_missing',
    when: 'no such offer in your agreement, or no such indication of yours on it',
  })
  update(
    @CurrentPrincipal() partner: PartnerPrincipal,
    @Param('offer_id') offerId: string,
    @Param('id') id: string,
    @Body() body: IndicationUpdateDto,
  ): Promise<IndicationDto> {
    return this.indications.amend(partner, offerId, id, body);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Cancel one of your indications while the offer is live' })
  @ApiOkResponse({ type: IndicationDto })
  @ApiErrors('offer_not_live', {
    code: 'resource_missing',
    when: 'no such offer in your agreement, or no such indication of yours',
  })
  cancel(
    @CurrentPrincipal() partner: PartnerPrincipal,
    @Param('offer_id') offerId: string,
    @Param('id') id: string,
  ): Promise<IndicationDto> {
    return this.indications.cancel(partner, offerId, id);
  }
}

@ApiTags('indications')
@Authenticated('partner')
@Controller('api/v1/indications')
export class IndicationsByIdController {
  constructor(private readonly indications: IndicationsService) {}

  @Get(':id')
  @ApiOperation({ summary: 'One of your indications, by id' })
  @ApiOkResponse({ type: IndicationDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such indication of yours' })
  get(@CurrentPrincipal() partner: PartnerPrincipal, @Param('id') id: string): Promise<IndicationDto> {
    return this.indications.get(partner, id);
  }
}
