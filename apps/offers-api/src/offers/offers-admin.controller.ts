import { Body, Controller, Get, HttpCode, Param, Patch, Post, Put } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly, ApiErrors } from '@app/platform';
import { AgreementDto, OfferCreateDto, OfferDto, OfferUpdateDto } from './dto/offer.dto';
import { OffersService } from './offers.service';

@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/offers')
export class OffersAdminController {
  constructor(private readonly offers: OffersService) {}

  @Post()
  @ApiOperation({ summary: 'Create an offer; its status follows opens_at/closes_at and lifecycle jobs are scheduled' })
  @ApiCreatedResponse({ type: OfferDto })
  @ApiErrors({ code: 'parameter_invalid', when: 'closes_at not after opens_at, minimum_investment under price_per_share' })
  create(@Body() body: OfferCreateDto): Promise<OfferDto> {
    return this.offers.adminCreate(body);
  }

  @Get(':id')
  @ApiOkResponse({ type: OfferDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such offer' })
  get(@Param('id') id: string): Promise<OfferDto> {
    return this.offers.adminGet(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change an offer that is not closed; lifecycle jobs are rescheduled' })
  @ApiOkResponse({ type: OfferDto })
  @ApiErrors(
    { code: 'resource_missing', when: 'no such offer' },
    {
      code: 'offer_not_editable',
      when: 'the offer is closed, or live and the change touches opens_at, price_per_share, currency or minimum_investment',
    },
    { code: 'parameter_invalid', when: 'closes_at not after opens_at, minimum_investment under price_per_share' },
  )
  update(@Param('id') id: string, @Body() body: OfferUpdateDto): Promise<OfferDto> {
    return this.offers.adminUpdate(id, body);
  }
}

@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/partners/:id/offers')
export class AgreementsAdminController {
  constructor(private readonly offers: OffersService) {}

  @Put(':offer_id')
  @HttpCode(200)
  @ApiOperation({ summary: "Add an offer to the partner's distribution agreement (idempotent)" })
  @ApiOkResponse({ type: AgreementDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such partner or offer' })
  add(@Param('id') partnerId: string, @Param('offer_id') offerId: string): Promise<AgreementDto> {
    return this.offers.addToAgreement(partnerId, offerId);
  }
}
