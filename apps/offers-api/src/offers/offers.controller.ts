import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '@app/platform';
import { Authenticated, CurrentPrincipal } from '@app/auth';
import type { PartnerPrincipal } from '../oauth/partner.principal';
import { OfferDto, OfferListDto, OfferListQueryDto } from './dto/offer.dto';
import { OffersService } from './offers.service';

@ApiTags('offers')
@Authenticated('partner')
@Controller('api/v1/offers')
export class OffersController {
  constructor(private readonly offers: OffersService) {}

  @Get()
  @ApiOperation({ summary: 'List offers in your distribution agreement (default: live and upcoming)' })
  @ApiOkResponse({ type: OfferListDto })
  list(@CurrentPrincipal() partner: PartnerPrincipal, @Query() query: OfferListQueryDto): Promise<OfferListDto> {
    return this.offers.list(partner, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One offer in your distribution agreement' })
  @ApiOkResponse({ type: OfferDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such offer in your agreement' })
  get(@CurrentPrincipal() partner: PartnerPrincipal, @Param('id') id: string): Promise<OfferDto> {
    return this.offers.get(partner, id);
  }
}
