import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '@app/auth';
import type { PartnerPrincipal } from '../oauth/partner.principal';
import { AdminOnly, ApiErrors } from '@app/platform';
import {
  AllocationListDto,
  AllocationPageDto,
  AllocationPageQueryDto,
  AllocationRunDto,
  AllocationRunResultDto,
} from './dto/allocation.dto';
import { AllocationsService } from './allocations.service';

@ApiTags('allocations')
@Authenticated('partner')
@Controller('api/v1/offers/:offer_id/allocations')
export class AllocationsController {
  constructor(private readonly allocations: AllocationsService) {}

  @Get()
  @ApiOperation({ summary: 'Allocations of your indications on this offer (empty until the offer is allocated)' })
  @ApiOkResponse({ type: AllocationListDto })
  @ApiErrors({ code: 'resource_missing', when: 'no such offer in your agreement' })
  list(@CurrentPrincipal() partner: PartnerPrincipal, @Param('offer_id') offerId: string): Promise<AllocationListDto> {
    return this.allocations.listForPartner(partner, offerId);
  }
}

@ApiTags('allocations')
@Authenticated('partner')
@Controller('api/v1/allocations')
export class PartnerAllocationsController {
  constructor(private readonly allocations: AllocationsService) {}

  @Get()
  @ApiOperation({ summary: 'Allocations of your indications across your offers, newest first' })
  @ApiOkResponse({ type: AllocationPageDto })
  @ApiErrors({ code: 'resource_missing', status: 400, when: 'starting_after names no allocation of yours' })
  list(@CurrentPrincipal() partner: PartnerPrincipal, @Query() query: AllocationPageQueryDto): Promise<AllocationPageDto> {
    return this.allocations.pageForPartner(partner, query);
  }
}

@ApiTags('admin')
@AdminOnly()
@Controller('admin/v1/offers/:id/allocations')
export class AllocationsAdminController {
  constructor(private readonly allocations: AllocationsService) {}

  @Post()
  @ApiOperation({ summary: 'Allocate a closed offer (once); fires allocation.confirmed / allocation.scaled per indication' })
  @ApiCreatedResponse({ type: AllocationRunResultDto })
  @ApiErrors(
    'offer_not_closed',
    'offer_already_allocated',
    { code: 'resource_missing', when: 'no such offer' },
    { code: 'parameter_missing', when: 'minimum_allocation_shares, which policy min_then_pro_rata needs' },
    { code: 'parameter_invalid', when: 'shares_available over shares_offered' },
  )
  run(@Param('id') id: string, @Body() body: AllocationRunDto): Promise<AllocationRunResultDto> {
    return this.allocations.run(id, body);
  }
}
